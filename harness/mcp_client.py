"""The MCP server (content_publishing/mcp/) run as an assistant runs it, and
the official SDK's own client driving it, over both transports.

    McpHttpServer   `python -m content_publishing.mcp --http 127.0.0.1:PORT`, ready when
                    its /health answers
    http_session    a ClientSession over streamable HTTP, the key in Authorization
    stdio_session   a ClientSession over stdio: the SDK spawns the server with
                    CPS_API_KEY, its stderr (the server's log) going to `errlog`

Not imported by harness/__init__.py: the SDK is a test requirement (the
`mcp` extra), and bench and faults run without it.
"""

import contextlib

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from harness.http_client import Client
from harness.paths import BIN, ROOT
from harness.process import Process
from harness.server import free_port

COMMAND = [str(BIN / "python"), "-m", "content_publishing.mcp"]


class McpHttpServer(Process):
    """The server over streamable HTTP at `url` (…/mcp), calling the service
    at `base_url`; `env`: more CPS_* settings."""

    def __init__(self, base_url, *, env=None, log=None, port=None):
        self.port = port or free_port()
        self.root_url = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.root_url}/mcp"
        super().__init__(
            [*COMMAND, "--http", f"127.0.0.1:{self.port}"],
            env={"CPS_BASE_URL": base_url, **(env or {})},
            log=log,
            name="mcp --http",
        )

    def ready(self):
        with Client(self.root_url, timeout=1.0) as client:
            return client.get("/health").status == 200


@contextlib.asynccontextmanager
async def http_session(url, key):
    """An initialized ClientSession with the server at `url`; each request
    carries `Authorization: Bearer <key>` (none if key is None)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    timeout = httpx.Timeout(30.0, read=60.0)
    async with httpx.AsyncClient(headers=headers, timeout=timeout) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


@contextlib.asynccontextmanager
async def stdio_session(base_url, key, errlog, env=None):
    """An initialized ClientSession with a server the SDK spawns over stdio."""
    settings = {"CPS_BASE_URL": base_url, **({"CPS_API_KEY": key} if key else {}), **(env or {})}
    params = StdioServerParameters(command=COMMAND[0], args=COMMAND[1:], env=settings, cwd=ROOT)
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session
