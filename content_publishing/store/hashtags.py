"""Saved hashtag sets: one owner's named lists of hashtags."""

from content_publishing.store.db import one
from content_publishing.store.records import OwnedTable

COLUMNS = "id, name, hashtags, created_at, updated_at, version, created_by"
WRITABLE = ["name", "hashtags"]
hashtag_sets = OwnedTable("hashtag_sets", COLUMNS, json_columns=["hashtags"], writable=WRITABLE)


def get_set(workspace_id, set_id):
    return hashtag_sets.get(workspace_id, set_id)


def lock_set(workspace_id, set_id):
    return hashtag_sets.lock(workspace_id, set_id)


def named(workspace_id, name):
    """The owner's set called `name` (exactly), or None."""
    row = one(
        f"SELECT {COLUMNS} FROM hashtag_sets WHERE workspace_id = ? AND name = ?",
        (workspace_id, name),
    )
    return hashtag_sets.record(row) if row else None


def insert_set(workspace_id, set_id, fields, now, created_by=None):
    """The new set; `created_by`: its maker's member id."""
    kept = {**{k: fields[k] for k in WRITABLE}, "created_by": created_by}
    return hashtag_sets.insert(workspace_id, set_id, kept, now)


def update_set(workspace_id, set_id, changes, now):
    return hashtag_sets.update(workspace_id, set_id, changes, now)


def delete_set(workspace_id, set_id):
    return hashtag_sets.delete(workspace_id, set_id)


def list_sets(workspace_id, query):
    """One page of the owner's sets, oldest first."""
    return hashtag_sets.page_of(workspace_id, query, "created_at, id")
