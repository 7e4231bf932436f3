"""Saved hashtag sets: what a set may be, created, changed and deleted.

A set is shared by the workspace: every member with posts:write saves one;
it is changed or deleted by whoever made it, or an editor or higher
(roles.check_maker). Names are unique among one workspace's sets: a second set of a name is a 409,
held by the unique index (workspace_id, name) as well as by the read before the
write, so that two concurrent requests cannot both take a name.
"""

import uuid

from content_publishing.errors import conflict
from content_publishing.roles import check_maker
from content_publishing.store import hashtags as hashtag_store
from content_publishing.store.db import is_unique_violation, savepoint


def create(workspace_id, fields, now, maker=None):
    """A new set, made by member `maker`."""
    _check_free(workspace_id, fields["name"], None)
    return _written(
        fields["name"],
        lambda: hashtag_store.insert_set(workspace_id, str(uuid.uuid4()), fields, now, maker),
    )


def update(workspace_id, hashtag_set, changes, now, grant=None):
    """The changed set (read with lock_set); only what differs is written."""
    check_maker(grant, hashtag_set.get("created_by"), "change this hashtag set")
    changes = {k: v for k, v in changes.items() if hashtag_set.get(k) != v}
    if not changes:
        return hashtag_set
    if "name" in changes:
        _check_free(workspace_id, changes["name"], hashtag_set["id"])
    return _written(
        changes.get("name"),
        lambda: hashtag_store.update_set(workspace_id, hashtag_set["id"], changes, now),
    )


def delete(workspace_id, hashtag_set, grant=None):
    check_maker(grant, hashtag_set.get("created_by"), "delete this hashtag set")
    hashtag_store.delete_set(workspace_id, hashtag_set["id"])


def _check_free(workspace_id, name, own_id):
    found = hashtag_store.named(workspace_id, name)
    if found is not None and found["id"] != own_id:
        raise _taken(name, found["id"])


def _written(name, write):
    try:
        with savepoint():
            return write()
    except Exception as error:  # a concurrent request took the name first
        if name is None or not is_unique_violation(error):
            raise
        raise _taken(name, None) from None


def _taken(name, set_id):
    return conflict(
        f"You have a hashtag set named {name!r} already: choose another name, or change that set.",
        {"name": name, "id": set_id},
    )
