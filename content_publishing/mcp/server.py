"""The MCP server: the official SDK's FastMCP, with this server's tools and
resources, and every refusal turned into a tool error in the API's words.

FastMCP makes each tool's input schema from its signature and its output
schema from its return type (shapes.py). What it does not do is say why a
call failed in a way a model can act on: a tool that raises comes back as
"Error executing tool ...". PlanningServer catches the two failures a model
can correct (the API's envelope, and arguments of the wrong type) and
answers them as a tool error carrying the code, the message and the
details (errors.py).
"""

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import McpError
from mcp.types import INVALID_PARAMS, ErrorData, ToolAnnotations
from pydantic import ValidationError

from content_publishing.mcp import media_tools, planning_tools, post_tools, resources
from content_publishing.mcp.api import Api
from content_publishing.mcp.calls import Caller, key_from_headers
from content_publishing.mcp.errors import ToolFailure, from_arguments

INSTRUCTIONS = """\
Plans LinkedIn posts in a Content Publishing Service workspace, through its API and within
its rules: the key this server was given decides what you may do. A usual flow: list_channels,
find_free_slots, create_draft, preview_post (fix any warning), then submit_for_review where the
workspace requires approvals (a person approves), and schedule_post or add_to_queue once
approved. A refused call is a tool error whose `code` and `message` are the service's, with a
`hint` of what to do next. Times are RFC 3339 (2030-01-07T09:00:00+01:00)."""
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
MAX_BODY = 16 * 1024 * 1024  # about 11 MiB of a file in base64; larger ones come by url
# Tools that change nothing, which an assistant may call without asking.
READ_ONLY = {
    "list_posts",
    "get_post",
    "preview_post",
    "list_channels",
    "find_free_slots",
    "get_analytics",
    "suggested_slots",
}


class PlanningServer(FastMCP):
    def __init__(self, settings, api=None, host="127.0.0.1", port=8000):
        hosts = LOOPBACK_HOSTS + [
            pattern
            for host in settings.allowed_hosts
            for pattern in ([host] if ":" in host else [host, f"{host}:*"])
        ]
        super().__init__(
            name="content-publishing",
            instructions=INSTRUCTIONS,
            host=host,
            port=port,
            stateless_http=True,
            json_response=True,
            max_request_body_size=MAX_BODY,
            transport_security=TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=hosts,
                allowed_origins=[f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")],
            ),
        )
        self.api = api or Api(settings.api_url)
        self.settings_key = settings.api_key
        self.settings_fetch_private = settings.fetch_allow_private
        for tool in post_tools.TOOLS + planning_tools.TOOLS + media_tools.TOOLS:
            reads = tool.__name__ in READ_ONLY
            hints = ToolAnnotations(readOnlyHint=reads, destructiveHint=False, openWorldHint=False)
            self.add_tool(tool, annotations=hints, structured_output=True)

    async def call_tool(self, name, arguments):
        try:
            return await super().call_tool(name, arguments)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ToolFailure):
                return cause.result()
            if isinstance(cause, ValidationError) and cause.title.endswith("Arguments"):
                return from_arguments(cause).result()
            raise

    def caller_for(self, request):
        """The API as the caller of `request` calls it: over HTTP (a request)
        with its own key, over stdio (None) with CPS_API_KEY."""
        key = key_from_headers(request.headers) if request is not None else self.settings_key
        return Caller(self.api, key)

    def _caller(self):
        return self.caller_for(self.get_context().request_context.request)

    async def list_resources(self):
        try:
            return await resources.listed(self._caller())
        except ToolFailure as failure:
            raise resource_error(failure) from None

    async def list_resource_templates(self):
        return [resources.CALENDAR_TEMPLATE]

    async def read_resource(self, uri):
        try:
            text = await resources.read(self._caller(), str(uri))
        except ToolFailure as failure:
            raise resource_error(failure) from None
        if text is None:
            raise McpError(ErrorData(code=INVALID_PARAMS, message=f"No resource {uri}."))
        return [ReadResourceContents(content=text, mime_type=resources.JSON)]


def resource_error(failure):
    """An API refusal of a resource read, as a JSON-RPC error with the envelope as its data."""
    return McpError(ErrorData(code=INVALID_PARAMS, message=str(failure), data=failure.envelope()))
