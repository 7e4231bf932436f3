"""What a channel may be: create, change and delete, with one channel per id.

A channel's id is `personal` or the brand_id its posts carry, so a user has
at most one of each: a second is a 409, held by the table's primary key
(workspace_id, id) as well as by the read before the insert. Deleting a channel
leaves its posts as they are: they go on as posts with no channel.
"""

from marshmallow import ValidationError

from content_publishing import connections
from content_publishing.errors import conflict, validation_error
from content_publishing.schemas.channels import PERSONAL, check_author
from content_publishing.store import channels as channel_store
from content_publishing.store.db import is_unique_violation, savepoint


def create(workspace_id, fields, now):
    """The new channel, with its (empty) connection; a new channel is never
    connected, so `publisher: linkedin` is a 409."""
    channel_id = PERSONAL if fields["type"] == "personal" else fields["brand_id"]
    if channel_store.get_channel(workspace_id, channel_id) is not None:
        raise _exists(channel_id)
    if fields.get("publisher") == "linkedin":
        connections.check_change(
            workspace_id, {"id": channel_id, "type": fields["type"]}, fields, now
        )
    try:
        with savepoint():
            channel = channel_store.insert_channel(workspace_id, channel_id, fields, now)
            return connections.attach_one(workspace_id, channel, now)
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


def update(workspace_id, channel, changes, now):
    """The changed channel, with its connection; only what differs is
    written. A change of its slots, zone or guards makes the queue look from
    its start again; a connected channel's author and publisher keep to its
    connection (connections.check_change)."""
    changes = {k: v for k, v in changes.items() if channel.get(k) != v}
    if "author_urn" in changes:
        try:
            check_author(channel["type"], changes["author_urn"])
        except ValidationError as error:
            raise validation_error(error.normalized_messages()) from None
    connections.check_change(workspace_id, channel, changes, now)
    if changes:
        if changes.keys() & PLAN_FIELDS:
            channel_store.forget_queue(workspace_id, channel["id"])
        channel = channel_store.update_channel(workspace_id, channel["id"], changes, now)
    return connections.attach_one(workspace_id, channel, now)


def delete(workspace_id, channel):
    """The channel goes, and its LinkedIn connection with it (the row
    cascades); the access token to revoke at LinkedIn once the deletion has
    committed, or None."""
    found = connections.for_channel(workspace_id, channel["id"])
    channel_store.delete_channel(workspace_id, channel["id"])
    return found["access_token"] if found else None
