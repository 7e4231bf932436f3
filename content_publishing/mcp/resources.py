"""The resources: each channel's calendar of the next 14 days, and the
workspace's hashtag sets, as JSON an assistant reads before it plans.

    cps://calendar/{channel}   the posts planned on the channel (any status with a time in
                               the next 14 days), the repeats its recurring posts will make,
                               and its free slots
    cps://hashtag-sets         the saved hashtag sets, to put in a post's text

The list names one calendar per channel of the caller's workspace (and
`personal`, whose posts need no channel set up); a channel's id is
percent-encoded in the URI.
"""

import json
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, unquote

from mcp.types import Resource, ResourceTemplate

from content_publishing.mcp import channels
from content_publishing.mcp.errors import ToolFailure

DAYS = 14
EXCERPT = 200
CALENDAR = "cps://calendar/"
HASHTAGS = "cps://hashtag-sets"
JSON = "application/json"


def utc_text(moment):
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def calendar_uri(channel):
    return CALENDAR + quote(channel, safe="")


def calendar_resource(channel, name):
    return Resource(
        uri=calendar_uri(channel),
        name=f"calendar-{channel}",
        title=f"Calendar of {name}, the next {DAYS} days",
        description=f"What is planned on the channel {channel} in the next {DAYS} days, the "
        "repeats of its recurring posts, and its free posting slots.",
        mimeType=JSON,
    )


HASHTAG_RESOURCE = Resource(
    uri=HASHTAGS,
    name="hashtag-sets",
    title="Hashtag sets",
    description="The workspace's saved hashtag sets (a name and its hashtags), to add to posts.",
    mimeType=JSON,
)
CALENDAR_TEMPLATE = ResourceTemplate(
    uriTemplate=CALENDAR + "{channel}",
    name="calendar",
    title=f"A channel's calendar, the next {DAYS} days",
    description="`personal` or a brand page's id, percent-encoded.",
    mimeType=JSON,
)


async def listed(api):
    """The resources of the caller's workspace: a calendar per channel."""
    found = {channels.PERSONAL: "your personal profile"}
    for channel in await api.pages("/channels"):
        found[channel["id"]] = channel["name"]
    return [HASHTAG_RESOURCE] + [calendar_resource(c, name) for c, name in found.items()]


async def read(api, uri):
    """The JSON text of `uri`, or None for a URI that is none of these."""
    if uri == HASHTAGS:
        sets = await api.pages("/hashtag-sets")
        shown = [{"id": s["id"], "name": s["name"], "hashtags": s["hashtags"]} for s in sets]
        return json.dumps({"hashtag_sets": shown}, ensure_ascii=False)
    if uri.startswith(CALENDAR) and len(uri) > len(CALENDAR):
        channel = unquote(uri[len(CALENDAR) :])
        return json.dumps(await calendar(api, channel), ensure_ascii=False)
    return None


async def calendar(api, channel, now=None):
    start = now or datetime.now(UTC)
    end = start + timedelta(days=DAYS)
    span = {"start": utc_text(start), "end": utc_text(end)}
    planned = await api.pages(
        "/api-v2-posts",
        **channels.posts_filter(channel),
        scheduled_after=span["start"],
        scheduled_before=span["end"],
        order="scheduled_at",
    )
    coming = await api.get(
        "/api-v2-posts-occurrences", **{"from": span["start"], "to": span["end"]}
    )
    setup = await channel_setup(api, channel)
    return {
        "channel": channel,
        **span,
        "timezone": setup["timezone"],
        "posts": [brief(post) for post in planned],
        "repeats": [
            {key: occurrence[key] for key in ("post_id", "scheduled_at", "occurrence", "stops")}
            for occurrence in coming["data"]
            if channels.of(occurrence) == channel
        ],
        "free_slots": setup["free_slots"],
    }


def brief(post):
    text = post["content"]
    return {
        "id": post["id"],
        "status": post["status"],
        "scheduled_at": post["scheduled_at"],
        "excerpt": text if len(text) <= EXCERPT else text[:EXCERPT] + "…",
        "author": (post.get("author") or {}).get("name"),
        "approved_by": (post.get("approved_by") or {}).get("name"),
    }


async def channel_setup(api, channel):
    """The channel's zone and free slots; a channel that is not set up has
    none (UTC, and null: it has no slots)."""
    try:
        found = await api.get("/channels-item/" + channels.path(channel))
        slots = await api.get("/channels-slots/" + channels.path(channel), days=DAYS)
    except ToolFailure as failure:
        if failure.code != "not_found":
            raise
        return {"timezone": "UTC", "free_slots": None}
    free = [{"at": s["at"], "local": s["local"]} for s in slots["data"] if s["post_id"] is None]
    return {"timezone": found["timezone"], "free_slots": free}
