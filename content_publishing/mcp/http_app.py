"""The streamable HTTP transport: the SDK's app at /mcp, behind a check
that each request brings a key, and /health for whatever watches it.

Stateless: each POST is a whole exchange, answered as JSON, and the server
keeps nothing between requests; a tool call uses the key of the request
that carries it (calls.py), so a session cannot outlive or borrow a key.
The SDK's DNS-rebinding guard takes Host headers of loopback only, and the
names of CPS_MCP_ALLOWED_HOSTS (a proxy's).
"""

import logging

import uvicorn
from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from content_publishing.mcp.calls import key_from_headers

log = logging.getLogger("content_publishing.mcp")
MCP_PATH = "/mcp"


class KeyRequired:
    """ASGI middleware: a request to /mcp without a key is a 401 in the
    API's envelope, before the SDK reads it. Whether the key is good is the
    API's to say, at each tool call."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if (
            scope["type"] == "http"
            and scope["path"].rstrip("/") == MCP_PATH
            and key_from_headers(Headers(scope=scope)) is None
        ):
            response = JSONResponse(
                {
                    "error": {
                        "code": "unauthorized",
                        "message": "Send the service's API key: Authorization: Bearer <key>.",
                        "details": {},
                    }
                },
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="content-publishing"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def health(_request):
    return JSONResponse({"status": "ok"})


def app(server):
    server.custom_route("/health", methods=["GET"])(health)
    return KeyRequired(server.streamable_http_app())


async def serve(server, host, port):
    """Serve until SIGINT or SIGTERM; uvicorn logs through the root logger
    (its access lines name the method, path and status, never a header)."""
    config = uvicorn.Config(app(server), host=host, port=port, log_config=None, lifespan="on")
    log.info("MCP over streamable HTTP at http://%s:%s%s", host, port, MCP_PATH)
    await uvicorn.Server(config).serve()
