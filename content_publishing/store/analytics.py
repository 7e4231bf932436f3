"""The analytics' reads of post_metrics: one row per Published post with
its channel, the second it went out and its latest figures.

Both reads go through post_metrics' indexes on (user_id, published_at) and
(user_id, channel, published_at), and read each post's narrow row once:
never the snapshots, never the posts' text (but for the ten top posts).
"""

from content_publishing.store.db import rows

FIGURES = ("impressions", "members_reached", "reactions", "comments", "reshares", "clicks")
SHIFT = 3 * 86400  # local day 0 is then a Monday (analytics/zone.py)
WEEK, HOUR = 7 * 86400, 3600
# The periods of a zone's offsets are padded to a multiple of this, so that
# the statement's text (and so the prepared statements a worker keeps) takes
# a few forms only.
PERIODS_STEP = 4


def _where(user_id, channel, start, end):
    if channel is None:
        return "user_id = ? AND published_at >= ? AND published_at < ?", [user_id, start, end]
    return (
        "user_id = ? AND channel = ? AND published_at >= ? AND published_at < ?",
        [user_id, channel, start, end],
    )


def _local(periods):
    """(SQL, parameters): the local second of a post, shifted to a Monday,
    from its epoch second and `periods` [(first epoch second, offset)]."""
    padded = list(periods)
    while len(padded) % PERIODS_STEP:
        padded.append((padded[-1][0], padded[-1][1]))  # never chosen: an empty period
    branches, params = [], []
    for (_, offset), (following, _) in zip(padded, padded[1:], strict=False):
        branches.append("WHEN published_epoch < CAST(? AS BIGINT) THEN CAST(? AS BIGINT)")
        params += [following, offset]
    case = f"CASE {' '.join(branches)} ELSE CAST(? AS BIGINT) END"
    params.append(padded[-1][1])
    return f"published_epoch + {case} + {SHIFT}", params


def hour_groups(user_id, channel, start, end, periods):
    """The user's (or one channel's) Published posts with start <= published_at
    < end (stored text), grouped by local week and hour of the week:
    [{week, hour_of_week, posts, measured (posts with an engagement), the
    figures' sums, measured_interactions, engagement_sum, engagement_squares}]."""
    where, params = _where(user_id, channel, start, end)
    local, local_params = _local(periods)
    sums = ", ".join(f"CAST(SUM({f}) AS BIGINT) AS {f}" for f in FIGURES)
    return rows(
        f"SELECT local / {WEEK} AS week, (local % {WEEK}) / {HOUR} AS hour_of_week,"
        f" COUNT(*) AS posts, COUNT(engagement) AS measured, {sums},"
        " CAST(SUM(CASE WHEN engagement IS NOT NULL THEN interactions ELSE 0 END) AS BIGINT)"
        " AS measured_interactions,"
        " SUM(engagement) AS engagement_sum, SUM(engagement * engagement) AS engagement_squares"
        f" FROM (SELECT {local} AS local, {', '.join(FIGURES)}, interactions, engagement"
        f" FROM post_metrics WHERE {where}) AS found GROUP BY 1, 2",
        (*local_params, *params),
    )


def top_posts(user_id, channel, start, end, limit):
    """The `limit` posts of the range with the highest engagement (then the
    most impressions), with their figures, text and live URL."""
    where, params = _where(user_id, channel, start, end)
    columns = f"post_id, channel, published_at, taken_at, {', '.join(FIGURES)}, engagement"
    return rows(
        f"SELECT m.*, p.content, p.live_url FROM (SELECT {columns} FROM post_metrics"
        f" WHERE {where} AND engagement IS NOT NULL"
        " ORDER BY engagement DESC, impressions DESC, post_id LIMIT ?) AS m"
        " JOIN posts p ON p.id = m.post_id"
        " ORDER BY m.engagement DESC, m.impressions DESC, m.post_id",
        (*params, limit),
    )
