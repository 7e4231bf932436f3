"""Which channel a post goes to, in the one place that knows how the API
says it.

A tool's `channel` is a channel's id, as list_channels names them: a
member's personal profile (the first one's id is `personal`, each later
one's a UUID) or a brand page's id (its brand_id). A post carries its
`channel_id`, and the posts list filters by it. A channel that is not set
up has no id to name in `channel_id`: a brand page's posts then go by
`type` and `brand_id`, as the reference interface's always did, and
`personal` by `type` alone (the caller's own profile, else the
workspace's first). Every tool goes through these functions.
"""

from urllib.parse import quote

from content_publishing.mcp.errors import ToolFailure

PERSONAL = "personal"
ABOUT = (
    "The channel: a channel's id, as list_channels names them (a member's personal profile, "
    "`personal` being the first one's, or a brand page's id); `personal` also works before "
    "any profile is set up."
)


async def post_fields(api, channel):
    """The fields of a create or a PATCH that put a post on `channel`."""
    if await _set_up(api, channel):
        return {"channel_id": channel}
    if channel == PERSONAL:
        return {"type": "personal"}  # the API clears a brand_id itself
    return {"type": "brand", "brand_id": channel}


async def _set_up(api, channel):
    try:
        await api.get("/channels-item/" + path(channel))
    except ToolFailure as failure:
        if failure.code != "not_found":
            raise
        return False
    return True


def posts_filter(channel):
    """The posts list's query parameters that keep `channel`'s posts."""
    if channel is None:
        return {}
    return {"channel_id": channel}


def of(record):
    """The channel of a post, or of a coming occurrence."""
    if record.get("channel_id"):
        return record["channel_id"]
    return PERSONAL if record.get("type") == "personal" else record.get("brand_id")


def path(channel):
    """`channel` as the last segment of a /channels-item or /channels-slots path."""
    return quote(channel, safe="")


def analytics_query(channel):
    return {"channel": channel}
