"""Channels, and the planned posts of a channel that the queue and the guards read."""

from content_publishing.store.db import dialect, one, rows, value, write
from content_publishing.store.records import OwnedTable

COLUMNS = (
    "id, type, name, author_urn, timezone, slots, min_gap_minutes, daily_cap, publisher,"
    " recycle_after_days, utm, created_at, updated_at, version, queue_full_until"
)
WRITABLE = [
    "type",
    "name",
    "author_urn",
    "timezone",
    "slots",
    "min_gap_minutes",
    "daily_cap",
    "publisher",
    "recycle_after_days",
    "utm",
]
channels = OwnedTable("channels", COLUMNS, json_columns=["slots"], writable=WRITABLE)

# The channel a post belongs to, in SQL: `personal` for a personal post, its
# brand_id for a brand post (planning/plan.py's channel_of). Written exactly
# as in the index posts_channel_plan, so that the planner uses it.
CHANNEL_OF_POST = "(CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END)"
PLANNED = "status IN ('Scheduled', 'Publishing', 'Published')"


def get_channel(workspace_id, channel_id):
    return channels.get(workspace_id, channel_id)


def lock_channel(workspace_id, channel_id):
    """The channel, locked until the transaction ends: every scheduling into
    it (queue, guards, import, recurrence) takes this lock first, so two
    cannot both find the same slot free or both fit under a cap. With it,
    `queue_hole`: the first instant at which a planned post left its place
    before queue_full_until, or None (so that the queue asks for the holes
    only when there are some)."""
    row = one(_LOCK + dialect().for_update, (workspace_id, channel_id, channel_id, workspace_id))
    return channels.record(row) if row else None


_LOCK = (
    f"SELECT {COLUMNS}, (SELECT min(at) FROM channel_queue_holes"
    " WHERE workspace_id = ? AND channel_id = ?) AS queue_hole"
    " FROM channels WHERE id = ? AND workspace_id = ?"
)


def insert_channel(workspace_id, channel_id, fields, now):
    return channels.insert(workspace_id, channel_id, {k: fields[k] for k in WRITABLE}, now)


def update_channel(workspace_id, channel_id, changes, now):
    return channels.update(workspace_id, channel_id, changes, now)


def delete_channel(workspace_id, channel_id):
    forget_queue(workspace_id, channel_id)
    return channels.delete(workspace_id, channel_id)


def list_channels(workspace_id, query):
    return channels.page_of(workspace_id, query, "created_at, id")


def zones(workspace_id):
    """{channel id: time zone} of the user's channels."""
    return {
        r["id"]: r["timezone"]
        for r in rows("SELECT id, timezone FROM channels WHERE workspace_id = ?", (workspace_id,))
    }


def handover_settings(workspace_id, channel_ids):
    """{channel id: {author_urn, utm}} of those of the workspace's channels that
    are set up: what a publish plan takes from its channel."""
    if not channel_ids:
        return {}
    marks = ", ".join("?" * len(channel_ids))
    return {
        r["id"]: {"author_urn": r["author_urn"], "utm": r["utm"]}
        for r in rows(
            f"SELECT id, author_urn, utm FROM channels WHERE workspace_id = ? AND id IN ({marks})",
            (workspace_id, *sorted(channel_ids)),
        )
    }


def planned_between(workspace_id, channel_id, start, end):
    """[{id, scheduled_at}] of the channel's Scheduled, Publishing and
    Published posts with start <= scheduled_at < end (stored text), in time
    order."""
    return rows(
        f"SELECT id, scheduled_at FROM posts WHERE workspace_id = ? AND {CHANNEL_OF_POST} = ?"
        f" AND {PLANNED} AND scheduled_at >= ? AND scheduled_at < ? ORDER BY scheduled_at, id",
        (workspace_id, channel_id, start, end),
    )


def last_planned(workspace_id, channel_id):
    """The scheduled_at of the channel's latest planned post, or None."""
    return value(
        f"SELECT scheduled_at FROM posts WHERE workspace_id = ? AND {CHANNEL_OF_POST} = ?"
        f" AND {PLANNED} ORDER BY scheduled_at DESC LIMIT 1",
        (workspace_id, channel_id),
    )


# --- where the queue stands (migration 0011_channel_rule_and_queue.sql) ----------------


def set_queue_full_until(workspace_id, channel_id, at):
    """Every slot of the channel before `at` is taken or barred (not a change
    of the channel: no new version)."""
    write(
        "UPDATE channels SET queue_full_until = ? WHERE workspace_id = ? AND id = ?",
        (at, workspace_id, channel_id),
    )


def queue_holes(workspace_id, channel_id, after, limit):
    """Up to `limit` instants (stored text) after `after` (or from the first,
    when None) where a planned post left its place before queue_full_until,
    in time order."""
    return [
        r["at"]
        for r in rows(
            "SELECT at FROM channel_queue_holes WHERE workspace_id = ? AND channel_id = ? AND at > ?"
            " ORDER BY at LIMIT ?",
            (workspace_id, channel_id, after or "", limit),
        )
    ]


def forget_queue_holes(workspace_id, channel_id, instants):
    """Holes the queue looked around and found nothing free near."""
    marks = ", ".join("?" * len(instants))
    write(
        f"DELETE FROM channel_queue_holes WHERE workspace_id = ? AND channel_id = ? AND at IN ({marks})",
        (workspace_id, channel_id, *instants),
    )


def forget_queue(workspace_id, channel_id):
    """The queue knows nothing of the channel's slots any more (its slots,
    zone or guards changed): the next one looks from its start again."""
    write(
        "UPDATE channels SET queue_full_until = NULL WHERE workspace_id = ? AND id = ?",
        (workspace_id, channel_id),
    )
    write(
        "DELETE FROM channel_queue_holes WHERE workspace_id = ? AND channel_id = ?",
        (workspace_id, channel_id),
    )
