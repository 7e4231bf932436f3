"""Idempotency keys of creates, one table per resource (with a foreign key
to the record, so a key can never point at a record that is gone), and of
imports, whose key is claimed before the work (ClaimedKeys)."""

from content_publishing.store.db import execute, one, value


class IdempotencyKeys:
    def __init__(self, table, record_column):
        self.table = table
        self._find = (
            f"SELECT request_hash, {record_column} AS record_id FROM {table}"
            " WHERE workspace_id = ? AND key = ?"
        )
        self._forget = f"DELETE FROM {table} WHERE workspace_id = ? AND {record_column} = ?"
        self._save = (
            f"INSERT INTO {table} (workspace_id, key, request_hash, {record_column}, created_at)"
            " VALUES (?, ?, ?, ?, ?)"
        )

    def find(self, workspace_id, key):
        """{"request_hash", "record_id"} of the workspace's key, or None."""
        return one(self._find, (workspace_id, key))

    def save(self, workspace_id, key, request_hash, record_id, now):
        execute(self._save, (workspace_id, key, request_hash, record_id, now))

    def forget(self, workspace_id, record_id):
        """Drop the keys that named a record being deleted: a retry with one
        of them then creates a new record instead of naming a gone one."""
        execute(self._forget, (workspace_id, record_id))


class ClaimedKeys(IdempotencyKeys):
    """Keys taken before the work they name is done, for a table whose record
    column names no row (no foreign key): the key's row is written first,
    with an empty record, and filled in by `settle` in the same transaction.

    The table's primary key (workspace_id, key) makes a concurrent claim of the
    same key wait until the first one's transaction ends (on PostgreSQL the
    insert waits on the row not yet committed; on SQLite the write lock
    keeps it out): it then finds the key taken, and the first one's result
    stored, or free again if that one rolled back."""

    def __init__(self, table, record_column):
        super().__init__(table, record_column)
        self._claim = (
            f"INSERT INTO {table} (workspace_id, key, request_hash, {record_column}, created_at)"
            " VALUES (?, ?, ?, '', ?) ON CONFLICT (workspace_id, key) DO NOTHING RETURNING 1"
        )
        self._settle = f"UPDATE {table} SET {record_column} = ? WHERE workspace_id = ? AND key = ?"

    def claim(self, workspace_id, key, request_hash, now):
        """True if the key was free and is now this transaction's."""
        return value(self._claim, (workspace_id, key, request_hash, now)) == 1

    def settle(self, workspace_id, key, record_id):
        execute(self._settle, (record_id, workspace_id, key))


post_keys = IdempotencyKeys("idempotency_keys", "post_id")
article_keys = IdempotencyKeys("article_idempotency_keys", "article_id")
# An import's "record" is its batch: the JSON array of the posts' ids.
import_keys = ClaimedKeys("import_idempotency_keys", "post_ids")
