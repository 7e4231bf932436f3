"""Saved hashtag sets: one owner's named lists of hashtags."""

from content_publishing.store.db import one
from content_publishing.store.records import OwnedTable

COLUMNS = "id, name, hashtags, created_at, updated_at, version"
WRITABLE = ["name", "hashtags"]
hashtag_sets = OwnedTable("hashtag_sets", COLUMNS, json_columns=["hashtags"], writable=WRITABLE)


def get_set(user_id, set_id):
    return hashtag_sets.get(user_id, set_id)


def lock_set(user_id, set_id):
    return hashtag_sets.lock(user_id, set_id)


def named(user_id, name):
    """The owner's set called `name` (exactly), or None."""
    row = one(f"SELECT {COLUMNS} FROM hashtag_sets WHERE user_id = ? AND name = ?", (user_id, name))
    return hashtag_sets.record(row) if row else None


def insert_set(user_id, set_id, fields, now):
    return hashtag_sets.insert(user_id, set_id, {k: fields[k] for k in WRITABLE}, now)


def update_set(user_id, set_id, changes, now):
    return hashtag_sets.update(user_id, set_id, changes, now)


def delete_set(user_id, set_id):
    return hashtag_sets.delete(user_id, set_id)


def list_sets(user_id, query):
    """One page of the owner's sets, oldest first."""
    return hashtag_sets.page_of(user_id, query, "created_at, id")
