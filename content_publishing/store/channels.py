"""Channels, and the planned posts of a channel that the queue and the guards read."""

from content_publishing.store.db import dialect, one, rows, value, write
from content_publishing.store.records import OwnedTable

COLUMNS = (
    "id, type, name, author_urn, timezone, slots, min_gap_minutes, daily_cap, publisher,"
    " recycle_after_days, utm, created_at, updated_at, version, queue_full_until, member_id,"
    " others_may_post, approvals, (SELECT name FROM members WHERE id = member_id) AS member_name,"
    " (SELECT removed_at FROM members WHERE id = member_id) AS member_removed_at"
)  # (the subqueries: the member's name and whether they left, from members)
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
    "member_id",
    "others_may_post",
    "approvals",
]


def _shape(record):
    """The record as the API shows it: its kind (its type, by the name the
    channels of people and pages go by), and the member whose profile it
    is, {id, name, removed_at}, for a personal channel."""
    member = None
    if record.get("member_id") is not None:
        member = {
            "id": record["member_id"],
            "name": record.get("member_name"),
            "removed_at": record.get("member_removed_at"),
        }
    brand = record["type"] == "brand"
    return {
        **record,
        "kind": record["type"],
        "member": member,
        "others_may_post": None if brand else record["others_may_post"],
    }


channels = OwnedTable(
    "channels",
    COLUMNS,
    json_columns=["slots"],
    bool_columns=["others_may_post"],
    writable=WRITABLE,
    shape=_shape,
)

# The channel a post belongs to, in SQL: the channel_id it carries
# (planning/plan.py's channel_of), as in the index posts_channel_plan.
CHANNEL_OF_POST = "channel_id"
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
    return channels.insert(
        workspace_id, channel_id, {k: fields[k] for k in WRITABLE if k in fields}, now
    )


def personal_of(workspace_id, member_id):
    """The member's personal channel, or None."""
    row = one(
        f"SELECT {COLUMNS} FROM channels WHERE workspace_id = ? AND member_id = ?",
        (workspace_id, member_id),
    )
    return channels.record(row) if row else None


def first_personal(workspace_id):
    """The id of the workspace's oldest personal channel of a member still
    in it, or None."""
    return value(
        "SELECT c.id FROM channels c JOIN members m ON m.id = c.member_id"
        " WHERE c.workspace_id = ? AND c.type = 'personal' AND m.removed_at IS NULL"
        " ORDER BY c.created_at, c.id LIMIT 1",
        (workspace_id,),
    )


def planned_by_others(workspace_id, channel_id, member_id):
    """Whether a Scheduled or Publishing post of someone other than
    `member_id` carries `channel_id` (a channel deleted, its posts left)."""
    return (
        value(
            "SELECT 1 FROM posts WHERE workspace_id = ? AND channel_id = ?"
            " AND status IN ('Scheduled', 'Publishing')"
            " AND (created_by IS NULL OR created_by <> ?) LIMIT 1",
            (workspace_id, channel_id, member_id),
        )
        == 1
    )


def named(workspace_id, name):
    """The ids of the workspace's channels called `name`, oldest first."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM channels WHERE workspace_id = ? AND name = ? ORDER BY created_at, id",
            (workspace_id, name),
        )
    ]


def update_channel(workspace_id, channel_id, changes, now):
    return channels.update(workspace_id, channel_id, changes, now)


def delete_channel(workspace_id, channel_id):
    forget_queue(workspace_id, channel_id)
    return channels.delete(workspace_id, channel_id)


def list_channels(workspace_id, query):
    return channels.page_of(workspace_id, query, "created_at, id")


def zones(workspace_id):
    """{channel id: time zone} of the workspace's channels."""
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


def live_series(workspace_id, channel_id):
    """[{id, repeat, scheduled_at, series_start}] of the channel's series
    still going: each one's current occurrence, Scheduled or Publishing,
    whose later occurrences are not rows yet (planning/plan.py counts them
    as taken)."""
    return rows(
        f"SELECT id, repeat, scheduled_at, series_start FROM posts WHERE workspace_id = ?"
        f" AND {CHANNEL_OF_POST} = ? AND status IN ('Scheduled', 'Publishing')"
        " AND repeat IS NOT NULL ORDER BY scheduled_at, id",  # index posts_live_series (0024)
        (workspace_id, channel_id),
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
