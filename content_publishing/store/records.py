"""Reading and changing one owned row, and a page of them: shared by posts,
articles, channels and webhook endpoints."""

import json

import orjson

from content_publishing.store.db import dialect, execute, one
from content_publishing.store.paging import Page, page


class OwnedTable:
    """A table whose rows belong to a workspace and carry a version.

    `json_columns` are stored as JSON text and returned as Python values,
    `bool_columns` as 0/1 and returned as booleans; `shape`, if given, turns
    the row into the record after that. Another workspace's row is as unknown as
    a missing one: every statement here names the owner.
    """

    def __init__(self, name, columns, json_columns, writable, bool_columns=(), shape=None):
        self.name = name
        self.columns = columns
        self.json_columns = frozenset(json_columns)
        self.bool_columns = frozenset(bool_columns)
        self.writable = frozenset(writable)
        self.shape = shape
        self._select = f"SELECT {columns} FROM {name} WHERE id = ? AND workspace_id = ?"

    def record(self, row):
        record = dict(row)
        for column in self.json_columns:  # orjson: a list page decodes two a row
            record[column] = orjson.loads(record[column])
        for column in self.bool_columns:
            record[column] = bool(record[column])
        return self.shape(record) if self.shape else record

    def get(self, workspace_id, row_id):
        """The workspace's row, or None."""
        row = one(self._select, (row_id, workspace_id))
        return self.record(row) if row else None

    def lock(self, workspace_id, row_id):
        """The workspace's row, read in order to change it (inside a transaction):
        locked until the transaction ends (FOR UPDATE on PostgreSQL; SQLite's
        write transaction holds the whole database already)."""
        row = one(self._select + dialect().for_update, (row_id, workspace_id))
        return self.record(row) if row else None

    def page_of(self, workspace_id, query, order):
        """A Page of the workspace's records in `order` (by created_at and id,
        either way, so that `cursor` can name where the page starts)."""
        found = page(
            self.name,
            self.columns,
            ["workspace_id = ?"],
            [workspace_id],
            order,
            query["limit"],
            query["offset"],
            after=query.get("cursor"),
        )
        return Page([self.record(r) for r in found.rows], found.total, found.more)

    def insert(self, workspace_id, row_id, fields, now):
        """Write a new row; returns its record (RETURNING: no second read)."""
        values = {k: self._store(k, v) for k, v in fields.items()}
        names = ", ".join(["id", "workspace_id", *values, "created_at", "updated_at"])
        marks = ", ".join("?" * (len(values) + 4))
        row = one(
            f"INSERT INTO {self.name} ({names}) VALUES ({marks}) RETURNING {self.columns}",
            (row_id, workspace_id, *values.values(), now, now),
        )
        return self.record(row)

    def update(self, workspace_id, row_id, changes, now, expected_version=None):
        """Write `changes` and bump the version; returns the new record, or
        None if the workspace has no such row (or, given `expected_version`, the
        row is at another version: the write is conditional on it in SQL)."""
        unknown = changes.keys() - self.writable
        if unknown:
            raise ValueError(f"not writable in {self.name}: {sorted(unknown)}")
        values = {k: self._store(k, v) for k, v in changes.items()}
        assignments = "".join(f"{column} = ?, " for column in values)
        guard, guarded = (
            ("", ()) if expected_version is None else (" AND version = ?", (expected_version,))
        )
        row = one(
            f"UPDATE {self.name} SET {assignments}updated_at = ?, version = version + 1"
            f" WHERE id = ? AND workspace_id = ?{guard} RETURNING {self.columns}",
            (*values.values(), now, row_id, workspace_id, *guarded),
        )
        return self.record(row) if row else None

    def delete(self, workspace_id, row_id):
        """Remove the workspace's row; True if there was one."""
        return (
            execute(
                f"DELETE FROM {self.name} WHERE id = ? AND workspace_id = ?", (row_id, workspace_id)
            ).rowcount
            == 1
        )

    def _store(self, column, value):
        if column in self.json_columns:
            return json.dumps(value)
        if column in self.bool_columns:
            return int(value)
        return value
