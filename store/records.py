"""Reading and changing one owned row: shared by posts and articles."""

import json

from store.db import get_db


class OwnedTable:
    """A table whose rows belong to a user and carry a version.

    `json_columns` are stored as JSON text and returned as Python values.
    """

    def __init__(self, name, columns, json_columns, writable):
        self.name = name
        self.columns = columns
        self.json_columns = frozenset(json_columns)
        self.writable = frozenset(writable)

    def record(self, row):
        record = dict(row)
        for column in self.json_columns:
            record[column] = json.loads(record[column])
        return record

    def get(self, user_id, row_id, db=None):
        """The user's row, or None: another user's row is as unknown as a
        missing one."""
        row = (db or get_db()).execute(
            f"SELECT {self.columns} FROM {self.name} WHERE id = ? AND user_id = ?",
            (row_id, user_id),
        ).fetchone()
        return self.record(row) if row else None

    def insert(self, db, user_id, row_id, fields, now):
        values = {k: self._store(k, v) for k, v in fields.items()}
        names = ", ".join(["id", "user_id", *values, "created_at", "updated_at"])
        marks = ", ".join("?" * (len(values) + 4))
        db.execute(
            f"INSERT INTO {self.name} ({names}) VALUES ({marks})",
            (row_id, user_id, *values.values(), now, now),
        )
        return self.get(user_id, row_id, db)

    def update(self, db, user_id, row_id, changes, now):
        """Write `changes` and bump the version; returns the new record."""
        unknown = changes.keys() - self.writable
        if unknown:
            raise ValueError(f"not writable in {self.name}: {sorted(unknown)}")
        values = {k: self._store(k, v) for k, v in changes.items()}
        assignments = "".join(f"{column} = ?, " for column in values)
        db.execute(
            f"UPDATE {self.name} SET {assignments}updated_at = ?, version = version + 1"
            " WHERE id = ? AND user_id = ?",
            (*values.values(), now, row_id, user_id),
        )
        return self.get(user_id, row_id, db)

    def _store(self, column, value):
        return json.dumps(value) if column in self.json_columns else value
