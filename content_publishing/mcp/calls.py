"""Whose key a tool call uses, and the API calls made with it.

Over stdio the server has one caller, whose key is CPS_API_KEY. Over HTTP
every request brings its own key in its Authorization header (or
X-API-Key, as the API takes it), and each tool call uses the key of the
request that carried it: nothing of one caller is kept for the next, so
one server serves many workspaces and each sees only its own.
"""

from urllib.parse import quote

from mcp.server.fastmcp import Context


def key_from_headers(headers):
    """The API key in an HTTP request's headers, or None."""
    scheme, _, credentials = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return headers.get("x-api-key", "").strip() or None


class Caller:
    """The API, as one caller (one key) calls it."""

    def __init__(self, api, key):
        self.api, self.key = api, key

    async def get(self, path, **query):
        return (await self.api.call(self.key, "GET", path, query=query)).data

    async def send(self, method, path, body=None, *, if_match=None):
        headers = {"If-Match": if_match} if if_match else None
        return await self.api.call(self.key, method, path, body=body, headers=headers)

    async def upload(self, path, data, content_type):
        return await self.api.call(
            self.key, "POST", path, data=data, headers={"Content-Type": content_type}
        )

    async def pages(self, path, most=1000, **query):
        """Every record of a list, page after page (offset), up to `most`."""
        found, offset = [], 0
        while len(found) < most:
            page = await self.get(path, **query, limit=100, offset=offset)
            found += page["data"]
            offset += len(page["data"])
            if not page.get("next") or not page["data"]:
                return found
        return found[:most]


def caller(ctx: Context):
    """The caller of this tool call: the server's API with the call's key."""
    return ctx.fastmcp.caller_for(ctx.request_context.request)


def segment(value):
    """An id as one path segment: whatever it holds, it cannot leave its route."""
    return quote(str(value), safe="")
