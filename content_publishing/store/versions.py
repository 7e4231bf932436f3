"""The schema version this code writes, shared by both backends.

It is the number of the newest migration (store/migrate.py): adding the
files of a schema change is what raises it. SQLite keeps a database's
version in PRAGMA user_version, PostgreSQL in the schema_version table; a
database with a newer version is refused rather than misread.
"""

from pathlib import Path

MIGRATIONS = Path(__file__).parent / "migrations"  # <backend>/NNNN_<what>.sql

SCHEMA_VERSION = max(int(p.name[:4]) for p in MIGRATIONS.glob("*/[0-9][0-9][0-9][0-9]_*.sql"))


class MigrationError(Exception):
    """This database cannot be brought to this code's schema version; the
    message is one line that says why."""


class SchemaTooNew(MigrationError):
    def __init__(self, found, version=SCHEMA_VERSION):
        super().__init__(
            f"database schema version {found} is newer than this code ({version}): "
            "run the release that wrote it, or a newer one"
        )
