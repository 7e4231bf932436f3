"""The analytics of a range: totals, weeks, the top posts, the weekday x
hour grid and the suggested slots, for all of a workspace's channels or one;
and each channel's totals side by side.

Every figure is a post's latest snapshot (post_metrics). Posts count by
when they were published, in the channel's time zone: a channel that is
not set up counts in UTC, and all channels together in the zone they share,
or UTC when they differ. Two kinds of engagement, as Buffer and Hootsuite
report them:

- a group's engagement rate (totals, each week): its posts' interactions
  over their impressions, so a post seen ten times as often weighs ten
  times as much;
- a mean engagement (the grid's cells, the channel's mean that slots are
  compared with): the mean of its posts' own engagement, each post counted
  once, since a posting time is judged by how its posts did, not by one
  that went far.
"""

from datetime import UTC, datetime, time, timedelta

from content_publishing import timestamps
from content_publishing.analytics import slots, zone
from content_publishing.errors import validation_error
from content_publishing.planning import clock
from content_publishing.store import analytics as analytics_store
from content_publishing.store import channels as channel_store

FIGURES = analytics_store.FIGURES
DEFAULT_DAYS = 90
MAX_DAYS = 400
TOP = 10


def build(workspace_id, query, now):
    """The analytics answer for `query` ({start, end}: ("date", date) or
    ("instant", stored text), each optional; channel: optional), read at `now`
    (stored text)."""
    channel = query.get("channel")
    zones = channel_store.zones(workspace_id)
    name = _zone_name(zones, channel)
    where = clock.zone(name)
    start, end = _span(query, where, clock.parse(now))
    span = (_bound(start), _bound(end, last=True))
    groups = analytics_store.hour_groups(
        workspace_id, channel, *span, zone.periods(where, start, end)
    )
    cells = _grid(groups)
    totals = _sum(groups)
    mean = totals["engagement_sum"] / totals["measured"] if totals["measured"] else None
    existing = _channel_slots(workspace_id, channel) if channel is not None else []
    return {
        "from": timestamps.to_text(start),
        "to": timestamps.to_text(end),
        "channel": channel,
        "timezone": name,
        "totals": {**_figures(totals), "mean_engagement": mean},
        "weeks": _weeks(groups, start, end, where),
        "top": [_top(row) for row in analytics_store.top_posts(workspace_id, channel, *span, TOP)],
        "grid": [
            {
                "day": slots.DAYS[c["weekday"]],
                "hour": c["hour"],
                "posts": c["posts"],
                "measured": c["measured"],
                "engagement": c["engagement_sum"] / c["measured"] if c["measured"] else None,
            }
            for c in cells
        ],
        "suggested_slots": slots.suggest(cells, mean, existing) if channel is not None else [],
        "channels": [
            {"channel": row["channel"], **_figures(row)}
            for row in analytics_store.channel_totals(workspace_id, *span)
            if channel is None or row["channel"] == channel
        ],
    }


def _bound(moment, last=False):
    """(stored text, its quarter-hour): the quarter of the range's last
    moment for its end, which is not in the range itself."""
    text = timestamps.to_text(moment)
    if last:
        return text, zone.quarter_of(timestamps.to_text(moment - timedelta(microseconds=1)))
    return text, zone.quarter_of(text)


def _zone_name(zones, channel):
    if channel is not None:
        return zones.get(channel, "UTC")
    shared = set(zones.values())
    return shared.pop() if len(shared) == 1 else "UTC"


def _channel_slots(workspace_id, channel):
    found = channel_store.get_channel(workspace_id, channel)
    return found["slots"] if found else []


def _span(query, where, now):
    """(start, end) aware datetimes in UTC: `to` (a date: the end of that
    day in the zone; default now) and `from` (a date: its start; default 90
    days before `to`)."""
    end = _moment(query.get("end"), where, day_after=True) or now
    start = _moment(query.get("start"), where) or end - timedelta(days=DEFAULT_DAYS)
    if end <= start:
        raise validation_error({"to": ["Must be after from."]})
    if end - start > timedelta(days=MAX_DAYS):
        raise validation_error({"to": [f"Must be at most {MAX_DAYS} days after from."]})
    return start, end


def _moment(value, where, day_after=False):
    if value is None:
        return None
    kind, found = value
    if kind == "instant":
        return clock.parse(found)
    day = found + timedelta(days=1) if day_after else found
    return datetime.combine(day, time(0), tzinfo=where).astimezone(UTC)


def _add(a, b):
    """Sums where a missing figure (None) is not 0: None only if both are."""
    if a is None:
        return b
    return a if b is None else a + b


SUMMED = (
    "posts",
    "measured",
    *FIGURES,
    "measured_interactions",
    "engagement_sum",
    "engagement_squares",
)


def _sum(groups):
    total = dict.fromkeys(SUMMED)
    total.update(posts=0, measured=0)
    for group in groups:
        for name in SUMMED:
            total[name] = _add(total[name], group[name])
    return total


def _figures(group):
    """What a group shows: its counts, the figures' sums and its engagement rate."""
    impressions = group["impressions"]
    rate = (
        group["measured_interactions"] / impressions if impressions and group["measured"] else None
    )
    return {
        "posts": group["posts"],
        "measured": group["measured"],
        **{name: group[name] for name in FIGURES},
        "engagement": rate,
    }


def _weeks(groups, start, end, where):
    """Every local week from the one holding `start` to the one holding the
    last moment before `end`, with zeros where nothing went out."""
    by_week = {}
    for group in groups:
        by_week.setdefault(group["week"], []).append(group)
    first = zone.week_index(start, where)
    last = zone.week_index(end - timedelta(microseconds=1), where)
    return [
        {"week": zone.week_monday(index).isoformat(), **_figures(_sum(by_week.get(index, [])))}
        for index in range(first, last + 1)
    ]


def _grid(groups):
    """168 cells, Monday 00:00 first: {weekday, hour, posts, measured,
    engagement_sum, engagement_squares} summed over the range's weeks."""
    cells = [
        {
            "weekday": n // 24,
            "hour": n % 24,
            "posts": 0,
            "measured": 0,
            "engagement_sum": 0.0,
            "engagement_squares": 0.0,
        }
        for n in range(7 * 24)
    ]
    for group in groups:
        cell = cells[group["hour_of_week"]]
        cell["posts"] += group["posts"]
        cell["measured"] += group["measured"]
        cell["engagement_sum"] += group["engagement_sum"] or 0.0
        cell["engagement_squares"] += group["engagement_squares"] or 0.0
    return cells


def _top(row):
    return {
        "post_id": row["post_id"],
        "channel": row["channel"],
        "published_at": row["published_at"],
        "content": row["content"],
        "live_url": row["live_url"],
        "taken_at": row["taken_at"],
        **{name: row[name] for name in FIGURES},
        "engagement": row["engagement"],
    }
