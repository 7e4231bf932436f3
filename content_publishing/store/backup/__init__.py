"""Backups of the whole database and restoring one, on either backend:
`flask --app app backup PATH` and `flask --app app restore PATH` (cli/backup.py).

The backend halves are store/backup/sqlite.py (SQLite's online backup API)
and store/backup/postgres.py (pg_dump, pg_restore). What they share is in store/backup/common.py:

- A backup is written under a temporary name beside PATH, fsynced, renamed
  into place and the directory fsynced, so a file at PATH is always a whole
  backup: a crash or a full disk half-way leaves no file that looks complete.
  An existing PATH is replaced only when asked to, and never when it is the
  database itself.
- A restore checks everything it can before it touches the database: the
  file is a backup of this service, made on the same backend, intact, with a
  schema version this code can serve, and no process of the service has the
  database open. It then replaces the database in one step (a rename on
  SQLite, one transaction on PostgreSQL), so a refused or failed restore
  leaves the database as it was.

Every refusal is a BackupError whose message is one line for the operator.
"""

from pathlib import Path

from content_publishing.store.backup.common import KINDS, BackupError, Summary, backup_kind
from content_publishing.store.db import is_postgres

__all__ = ["BackupError", "Summary", "backup", "restore"]


def backup(config, path, force=False):
    """Write a consistent copy of the configured database to `path`; a Summary."""
    return _half(config).backup(config, Path(path), force)


def restore(config, path):
    """Replace the configured database with the backup at `path`; a Summary."""
    path = Path(path)
    kind = backup_kind(path)
    wanted = "postgresql" if is_postgres(config["DATABASE"]) else "sqlite"
    if kind is None:
        raise BackupError(
            f"{path} is not a backup of this service (neither an SQLite database nor a pg_dump archive)"
        )
    if kind != wanted:
        raise BackupError(
            f"{path} is {KINDS[kind]} backup; it restores only into {KINDS[kind]} database,"
            f" and FLASK_DATABASE names {KINDS[wanted]} one"
        )
    return _half(config).restore(config, path)


def _half(config):
    # Imported here: the PostgreSQL half imports psycopg, slow to import.
    if is_postgres(config["DATABASE"]):
        from content_publishing.store.backup import postgres as backup_postgres

        return backup_postgres
    from content_publishing.store.backup import sqlite as backup_sqlite

    return backup_sqlite
