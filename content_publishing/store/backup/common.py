"""What the two halves of backup and restore share (store/backup/__init__.py
says what a backup is): the refusal, the summary, the checks and the careful
file handling. A module of its own, so that the halves import it without
importing the package that picks between them.
"""

import contextlib
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from content_publishing.store import migrate
from content_publishing.store.versions import SCHEMA_VERSION

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"
KINDS = {"sqlite": "an SQLite", "postgresql": "a PostgreSQL"}

# Tables counted in the one line that says what a backup holds: name -> label.
COUNTED = {
    "users": "users",  # before schema version 15, when they became workspaces
    "workspaces": "workspaces",
    "api_keys": "keys",
    "posts": "posts",
    "articles": "articles",
    "webhook_endpoints": "webhook endpoints",
}
# Every schema version has these; a file without them is not our database.
REQUIRED_TABLES = {"api_keys", "posts"}  # (users became workspaces in version 15)


class BackupError(Exception):
    """A refused or failed backup or restore; the message is one line."""


@dataclass
class Summary:
    """What a backup holds: its schema version and some row counts."""

    path: Path
    version: int
    counts: dict = field(default_factory=dict)  # table -> rows
    schema: str | None = None  # PostgreSQL: the schema it is of

    @property
    def size(self):
        return self.path.stat().st_size

    def contents(self):
        counted = ", ".join(
            f"{self.counts[table]:,} {label}"
            for table, label in COUNTED.items()
            if table in self.counts
        )
        return f"schema version {self.version}; {counted}"


# --- checks ---------------------------------------------------------------------------------


def backup_kind(path):
    """ "sqlite", "postgresql" or None (something else), from the file's first bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise BackupError(f"backup {path} does not exist") from None
    except IsADirectoryError:
        raise BackupError(f"{path} is a directory, not a backup") from None
    except OSError as e:
        raise BackupError(f"cannot read {path} ({e.strerror})") from None
    if head == SQLITE_MAGIC:
        return "sqlite"
    if head.startswith(PG_DUMP_MAGIC):
        return "postgresql"
    return None


def known_tables():
    """Every table of our schema, on both backends, in any version."""
    names = migrate.tables()
    for step in migrate.migrations("sqlite"):  # an FTS5 index has shadow tables
        for index in re.findall(r"CREATE VIRTUAL TABLE (?:IF NOT EXISTS )?(\w+)", step.sql):
            names |= {index + shadow for shadow in FTS5_SHADOW_TABLES}
    return names


# The tables SQLite's FTS5 keeps beside an index (content is left out: the
# search index is an external-content one).
FTS5_SHADOW_TABLES = ("_data", "_idx", "_docsize", "_config", "_content")


def check_schema(path, version, tables):
    """Refuse a backup that is not of our schema, or newer than this code."""
    foreign = sorted(set(tables) - known_tables())
    if version <= 0 or not set(tables) >= REQUIRED_TABLES or foreign:
        why = f"tables {', '.join(foreign[:5])} are not ours" if foreign else "it lacks our tables"
        raise BackupError(f"{path} is not a backup of this service's database ({why})")
    if version > SCHEMA_VERSION:
        raise BackupError(
            f"{path} has schema version {version}, newer than this code ({SCHEMA_VERSION});"
            " restore it with the version of the service that wrote it"
        )


def check_output(path, force, database_files=()):
    """Refuse a PATH that cannot or may not be written."""
    directory = path.parent
    if not directory.is_dir():
        raise BackupError(f"directory {directory} does not exist")
    if path.is_dir():
        raise BackupError(f"{path} is a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise BackupError(f"directory {directory} is not writable")
    if path.exists():
        for existing in database_files:
            if existing.exists() and path.samefile(existing):
                raise BackupError(f"{path} is the database itself; back up to another file")
        if not force:
            raise BackupError(f"{path} exists; give --force to replace it")


# --- files ----------------------------------------------------------------------------------


def temp_beside(path):
    """A new name in the directory of `path` (so that a rename is atomic)."""
    return path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.partial"


def new_private_file(path):
    """An empty file only its owner can read: a backup holds every workspace's data."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def fsync_file(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(directory):
    """Make a rename or removal in `directory` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def install(temp, path):
    """Put the finished file `temp` at `path` in one step, durably."""
    fsync_file(temp)
    os.replace(temp, path)
    fsync_dir(path.parent)


def remove(*paths):
    for p in paths:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)


def os_error(action, path, error):
    return BackupError(f"cannot {action} {path} ({error.strerror or error})")
