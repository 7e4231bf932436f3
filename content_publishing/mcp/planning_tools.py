"""The tools on planning: channels, their free slots, and what the
published posts did (analytics, suggested slots)."""

from typing import Annotated

from mcp.server.fastmcp import Context
from pydantic import Field

from content_publishing.mcp import channels
from content_publishing.mcp.calls import caller
from content_publishing.mcp.channels import ABOUT as CHANNEL
from content_publishing.mcp.shapes import Analytics, Channels, FreeSlots, SuggestedSlots

Start = Annotated[
    str | None,
    Field(
        description="From: a date (YYYY-MM-DD, in the channel's zone) or an RFC 3339 time. "
        "Default: 90 days before `end`."
    ),
]
End = Annotated[
    str | None,
    Field(
        description="To (that whole day for a date); at most 400 days after start. Default: now."
    ),
]


async def list_channels(ctx: Context) -> Channels:
    """List the workspace's channels: where posts go (`personal` and brand
    pages), each with its time zone, weekly posting slots and guards (the
    least gap between two posts, the most a day). A channel's `id` is what
    every other tool's `channel` takes."""
    return Channels(channels=await caller(ctx).pages("/channels"))


async def find_free_slots(
    ctx: Context,
    channel: Annotated[str, Field(description=CHANNEL)],
    days: Annotated[int, Field(description="How many days ahead to look (1-90).")] = 14,
) -> FreeSlots:
    """The channel's posting slots of the coming days that no post takes
    yet, soonest first: good times for schedule_post's `at`. add_to_queue
    takes the first of them that keeps the channel's guards by itself."""
    path = "/channels-slots/" + channels.path(channel)
    slots = (await caller(ctx).get(path, days=days))["data"]
    free = [{"at": s["at"], "local": s["local"]} for s in slots if s["post_id"] is None]
    return FreeSlots(channel=channel, free=free, taken=len(slots) - len(free))


async def get_analytics(
    ctx: Context,
    channel: Annotated[
        str | None, Field(description=CHANNEL + " Absent: every channel together.")
    ] = None,
    start: Start = None,
    end: End = None,
) -> Analytics:
    """What the published posts of a period did on LinkedIn: totals
    (impressions, reactions, comments, engagement rate), each week's, the
    top 10 posts, the weekday x hour grid, and (with a channel) suggested
    posting times."""
    query = {"from": start, "to": end, **(channels.analytics_query(channel) if channel else {})}
    return await caller(ctx).get("/analytics", **query)


async def suggested_slots(
    ctx: Context, channel: Annotated[str, Field(description=CHANNEL)]
) -> SuggestedSlots:
    """Up to 3 weekly posting times (day and time in the channel's zone)
    whose posts did clearly better than the channel's mean over the last 90
    days, and whether each is one of the channel's slots already. Empty
    until enough posts have figures."""
    report = await caller(ctx).get("/analytics", **channels.analytics_query(channel))
    return SuggestedSlots(
        channel=channel, timezone=report["timezone"], suggested_slots=report["suggested_slots"]
    )


TOOLS = [list_channels, find_free_slots, get_analytics, suggested_slots]
