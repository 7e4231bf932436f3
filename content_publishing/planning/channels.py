"""What a channel may be: create, change and delete, with one channel per id.

A channel's id is `personal` or the brand_id its posts carry, so a user has
at most one of each: a second is a 409, held by the table's primary key
(user_id, id) as well as by the read before the insert. Deleting a channel
leaves its posts as they are: they go on as posts with no channel.
"""

from marshmallow import ValidationError

from content_publishing.errors import conflict, validation_error
from content_publishing.schemas.channels import PERSONAL, check_author
from content_publishing.store import channels as channel_store
from content_publishing.store.db import is_unique_violation, savepoint


def create(user_id, fields, now):
    channel_id = PERSONAL if fields["type"] == "personal" else fields["brand_id"]
    if channel_store.get_channel(user_id, channel_id) is not None:
        raise _exists(channel_id)
    try:
        with savepoint():
            return channel_store.insert_channel(user_id, channel_id, fields, now)
    except Exception as error:  # a concurrent create committed first
        if not is_unique_violation(error):
            raise
        raise _exists(channel_id) from None


def _exists(channel_id):
    return conflict(
        f"Channel {channel_id} exists already; change it with PATCH.", {"id": channel_id}
    )


# What decides which slots are free: a change of any may free slots the
# queue passed as taken, anywhere in it.
PLAN_FIELDS = frozenset({"slots", "timezone", "min_gap_minutes", "daily_cap"})


def update(user_id, channel, changes, now):
    """The changed channel; only what differs is written. A change of its
    slots, zone or guards makes the queue look from its start again."""
    changes = {k: v for k, v in changes.items() if channel.get(k) != v}
    if "author_urn" in changes:
        try:
            check_author(channel["type"], changes["author_urn"])
        except ValidationError as error:
            raise validation_error(error.normalized_messages()) from None
    if not changes:
        return channel
    if changes.keys() & PLAN_FIELDS:
        channel_store.forget_queue(user_id, channel["id"])
    return channel_store.update_channel(user_id, channel["id"], changes, now)


def delete(user_id, channel):
    channel_store.delete_channel(user_id, channel["id"])
