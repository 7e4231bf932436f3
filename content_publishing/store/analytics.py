"""The analytics' reads of post_metrics: one row per Published post with
its channel, the quarter-hour it went out in and its latest figures.

Both reads use post_metrics' covering indexes on (workspace_id,
published_quarter, ...) and (workspace_id, channel, published_quarter, ...):
every column they need is in the index, so a year of 100,000 posts is read
from the index alone, never the snapshots, and never the posts' text but
for the ten top posts. The posts are summed per quarter-hour as the index
gives them, in order (no sort of 100,000 rows); only those sums, a few
thousand, are then moved into local weeks and hours and grouped again.
"""

from content_publishing.store.db import rows

FIGURES = ("impressions", "members_reached", "reactions", "comments", "reshares", "clicks")
SHIFT = 3 * 96  # quarter-hours: local day 0 is then a Monday (analytics/zone.py)
PER_WEEK, PER_HOUR = 7 * 96, 4
# The periods of a zone's offsets are padded to a multiple of this, so that
# the statement's text (and so the prepared statements a worker keeps) takes
# a few forms only.
PERIODS_STEP = 4


def _where(workspace_id, channel, start, end, quarters=True):
    """(WHERE, parameters) of the posts published from `start` to `end`
    (stored text; with `quarters`, their quarter-hours first, so that the
    range of a quarter-hour index is tight)."""
    if channel is None:
        where, params = "workspace_id = ?", [workspace_id]
    else:
        where, params = "workspace_id = ? AND channel = ?", [workspace_id, channel]
    if quarters:
        where += " AND published_quarter >= ? AND published_quarter <= ?"
        params += [start[1], end[1]]
    return f"{where} AND published_at >= ? AND published_at < ?", [*params, start[0], end[0]]


def _local(periods):
    """(SQL, parameters): a row's local quarter-hour, shifted to a Monday,
    from its `quarter` and `periods` [(first quarter, offset in quarters)]."""
    padded = list(periods)
    while len(padded) % PERIODS_STEP:
        padded.append(padded[-1])  # never chosen: an empty period
    branches, params = [], []
    for (_, offset), (following, _) in zip(padded, padded[1:], strict=False):
        branches.append("WHEN quarter < CAST(? AS BIGINT) THEN CAST(? AS BIGINT)")
        params += [following, offset]
    params.append(padded[-1][1])
    return f"quarter + CASE {' '.join(branches)} ELSE CAST(? AS BIGINT) END + {SHIFT}", params


_SUMS = ", ".join(f"CAST(SUM({f}) AS BIGINT) AS {f}" for f in FIGURES)


def hour_groups(workspace_id, channel, start, end, periods):
    """The workspace's (or one channel's) Published posts with start <= published_at
    < end, grouped by local week and hour of the week: [{week, hour_of_week,
    posts, measured (posts with an engagement), the figures' sums,
    measured_interactions, engagement_sum, engagement_squares}].

    `start`, `end`: (stored text, its quarter-hour); `periods`: the zone's
    offsets (analytics/zone.py)."""
    where, params = _where(workspace_id, channel, start, end)
    local, local_params = _local(periods)
    by_quarter = (
        f"SELECT published_quarter AS quarter, COUNT(*) AS posts, COUNT(engagement) AS measured,"
        f" {_SUMS},"
        " SUM(CASE WHEN engagement IS NOT NULL THEN interactions ELSE 0 END) AS measured_interactions,"
        " SUM(engagement) AS engagement_sum, SUM(engagement * engagement) AS engagement_squares"
        f" FROM post_metrics WHERE {where} GROUP BY published_quarter"
    )
    return rows(
        f"SELECT local / {PER_WEEK} AS week, (local % {PER_WEEK}) / {PER_HOUR} AS hour_of_week,"
        f" CAST(SUM(posts) AS BIGINT) AS posts, CAST(SUM(measured) AS BIGINT) AS measured,"
        f" {_SUMS}, CAST(SUM(measured_interactions) AS BIGINT) AS measured_interactions,"
        " SUM(engagement_sum) AS engagement_sum, SUM(engagement_squares) AS engagement_squares"
        f" FROM (SELECT {local} AS local, q.* FROM ({by_quarter}) AS q) AS found GROUP BY 1, 2",
        (*local_params, *params),
    )


def top_posts(workspace_id, channel, start, end, limit):
    """The `limit` posts of the range with the highest engagement (then the
    most impressions), with their figures, text and live URL.

    Read from the top indexes in their order (engagement, impressions,
    post_id, all descending), stopping at the `limit`-th post of the range:
    a few entries for a range that holds most posts, every entry of the
    workspace's (or channel's) at worst, a range that holds none."""
    where, params = _where(workspace_id, channel, start, end, quarters=False)
    order = "engagement DESC, impressions DESC, post_id DESC"
    return rows(
        f"SELECT m.post_id, m.channel, m.published_at, {', '.join(f'm.{f}' for f in FIGURES)},"
        " m.engagement, m.taken_at, p.content, p.live_url FROM"
        f" (SELECT post_id FROM post_metrics WHERE {where} AND engagement IS NOT NULL"
        f" ORDER BY {order} LIMIT ?) AS top JOIN post_metrics m ON m.post_id = top.post_id"
        f" JOIN posts p ON p.id = top.post_id ORDER BY {', '.join(f'm.{o}' for o in order.split(', '))}",
        (*params, limit),
    )


def channel_totals(workspace_id, start, end):
    """The range's Published posts summed per channel, side by side:
    [{channel, posts, measured, the figures' sums, measured_interactions}],
    by channel id."""
    where, params = _where(workspace_id, None, start, end)
    return rows(
        f"SELECT channel, COUNT(*) AS posts, COUNT(engagement) AS measured, {_SUMS},"
        " CAST(SUM(CASE WHEN engagement IS NOT NULL THEN interactions ELSE 0 END) AS BIGINT)"
        f" AS measured_interactions FROM post_metrics WHERE {where} GROUP BY channel"
        " ORDER BY channel",
        params,
    )
