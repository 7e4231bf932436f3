"""Idempotency keys of creates, one table per resource (with a foreign key
to the record, so a key can never point at a record that is gone)."""

from content_publishing.store.db import execute, one


class IdempotencyKeys:
    def __init__(self, table, record_column):
        self.table = table
        self._find = (
            f"SELECT request_hash, {record_column} AS record_id FROM {table}"
            " WHERE user_id = ? AND key = ?"
        )
        self._forget = f"DELETE FROM {table} WHERE user_id = ? AND {record_column} = ?"
        self._save = (
            f"INSERT INTO {table} (user_id, key, request_hash, {record_column}, created_at)"
            " VALUES (?, ?, ?, ?, ?)"
        )

    def find(self, user_id, key):
        """{"request_hash", "record_id"} of the user's key, or None."""
        return one(self._find, (user_id, key))

    def save(self, user_id, key, request_hash, record_id, now):
        execute(self._save, (user_id, key, request_hash, record_id, now))

    def forget(self, user_id, record_id):
        """Drop the keys that named a record being deleted: a retry with one
        of them then creates a new record instead of naming a gone one."""
        execute(self._forget, (user_id, record_id))


post_keys = IdempotencyKeys("idempotency_keys", "post_id")
article_keys = IdempotencyKeys("article_idempotency_keys", "article_id")
# An import's "record" is its batch: the JSON array of the posts' ids.
import_keys = IdempotencyKeys("import_idempotency_keys", "post_ids")
