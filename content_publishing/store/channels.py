"""Channels, and the planned posts of a channel that the queue and the guards read."""

from content_publishing.store.db import rows
from content_publishing.store.records import OwnedTable

COLUMNS = (
    "id, type, name, author_urn, timezone, slots, min_gap_minutes, daily_cap,"
    " created_at, updated_at, version"
)
WRITABLE = ["type", "name", "author_urn", "timezone", "slots", "min_gap_minutes", "daily_cap"]
channels = OwnedTable("channels", COLUMNS, json_columns=["slots"], writable=WRITABLE)


def get_channel(user_id, channel_id):
    return channels.get(user_id, channel_id)


def lock_channel(user_id, channel_id):
    """The channel, locked until the transaction ends: every scheduling into
    it (queue, guards, import, recurrence) takes this lock first, so two
    cannot both find the same slot free or both fit under a cap."""
    return channels.lock(user_id, channel_id)


def insert_channel(user_id, channel_id, fields, now):
    return channels.insert(user_id, channel_id, {k: fields[k] for k in WRITABLE}, now)


def update_channel(user_id, channel_id, changes, now):
    return channels.update(user_id, channel_id, changes, now)


def delete_channel(user_id, channel_id):
    return channels.delete(user_id, channel_id)


def list_channels(user_id, query):
    return channels.page_of(user_id, query, "created_at, id")


def zones(user_id):
    """{channel id: time zone} of the user's channels."""
    return {
        r["id"]: r["timezone"]
        for r in rows("SELECT id, timezone FROM channels WHERE user_id = ?", (user_id,))
    }


def author_urns(user_id, channel_ids):
    """{channel id: author_urn} of those of the user's channels that name one."""
    if not channel_ids:
        return {}
    marks = ", ".join("?" * len(channel_ids))
    return {
        r["id"]: r["author_urn"]
        for r in rows(
            f"SELECT id, author_urn FROM channels WHERE user_id = ? AND id IN ({marks})"
            " AND author_urn IS NOT NULL",
            (user_id, *sorted(channel_ids)),
        )
    }


def _channel_posts(channel_id):
    """The WHERE part that picks a channel's posts: the personal ones, or a brand's."""
    if channel_id == "personal":
        return "type = 'personal' AND brand_id IS NULL", []
    return "type = 'brand' AND brand_id = ?", [channel_id]


def planned_between(user_id, channel_id, start, end):
    """[{id, scheduled_at}] of the channel's Scheduled, Publishing and
    Published posts with start <= scheduled_at < end (stored text), in time
    order."""
    which, params = _channel_posts(channel_id)
    return rows(
        f"SELECT id, scheduled_at FROM posts WHERE user_id = ? AND {which}"
        " AND status IN ('Scheduled', 'Publishing', 'Published')"
        " AND scheduled_at >= ? AND scheduled_at < ? ORDER BY scheduled_at, id",
        (user_id, *params, start, end),
    )
