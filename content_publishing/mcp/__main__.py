"""`python -m content_publishing.mcp`: the MCP server over stdio (one
caller: CPS_API_KEY), or with `--http HOST:PORT` over streamable HTTP
(each request's Authorization header). Settings: settings.py."""

import argparse
import logging
import sys

try:
    import anyio

    from content_publishing.mcp import http_app
    from content_publishing.mcp.server import PlanningServer
except ImportError as missing:  # the service installed without its `mcp` extra
    sys.exit(f"error: the MCP server needs the mcp extra (pip install '.[mcp]'): {missing}")

from content_publishing.mcp.settings import SettingError, from_environ

log = logging.getLogger("content_publishing.mcp")


def bind(value):
    host, _, port = value.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError("give HOST:PORT, such as 127.0.0.1:8765")
    return host, int(port)


def parser():
    found = argparse.ArgumentParser(
        prog="python -m content_publishing.mcp",
        description="An MCP server over the Content Publishing Service's API (docs/mcp.md).",
    )
    found.add_argument(
        "--http",
        type=bind,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    return found


def configure_logging():
    """Plain lines on stderr (stdout is the stdio transport's); the HTTP
    libraries' own lines, which name URLs with their queries, are left out."""
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for name in ("httpx", "httpcore", "mcp.server.lowlevel.server", "mcp.server.streamable_http"):
        logging.getLogger(name).setLevel(logging.WARNING)


async def run(server, address):
    try:
        if address is None:
            log.info("MCP over stdio, API at %s", server.api.api_url)
            await server.run_stdio_async()
        else:
            await http_app.serve(server, *address)
    finally:
        await server.api.close()


def main(argv=None):
    options = parser().parse_args(argv)
    configure_logging()
    try:
        settings = from_environ()
    except SettingError as error:
        sys.exit(f"error: {error}")
    if options.http is None and settings.api_key is None:
        sys.exit("error: CPS_API_KEY is not set: over stdio the server acts with that key")
    host, port = options.http or ("127.0.0.1", 8000)
    server = PlanningServer(settings, host=host, port=port)
    anyio.run(run, server, options.http)


if __name__ == "__main__":
    main()
