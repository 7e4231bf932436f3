"""Backup and restore of the SQLite database (store/backup.py has the rules).

Backup: SQLite's online backup API, copying every page in one step, which
is one read transaction: in WAL mode the workers go on writing meanwhile,
and the copy is the database as of one commit. The copy is switched out of
WAL (one self-contained file), checked with integrity_check and renamed into
place.

Restore: the backup is copied beside the database and the copy checked
(integrity_check, user_version, our tables) before anything else happens.
Then the database must be ours and idle: leaving WAL mode needs every other
connection closed, and every process of the service keeps one open (a
gunicorn worker from its start, the dispatcher while it runs), so a
`journal_mode = DELETE` that succeeds proves the service is stopped. It also
folds the WAL into the file and deletes it: an old -wal beside the new file
would be replayed into it. An exclusive lock is then held until the copy has
been renamed over the database.
"""

import contextlib
import os
import shutil
import sqlite3
import stat
from pathlib import Path

from content_publishing.store.backup.common import (
    COUNTED,
    SQLITE_MAGIC,
    BackupError,
    Summary,
    check_output,
    check_schema,
    install,
    new_private_file,
    os_error,
    remove,
    temp_beside,
)

SIDE_FILES = ("-wal", "-shm", "-journal")
HELD = (
    "another process has {path} open (the service's gunicorn or dispatcher?);"
    " stop the service before a restore"
)


def side_files(path):
    return [Path(f"{path}{suffix}") for suffix in SIDE_FILES]


def backup(config, path, force):
    database = Path(config["DATABASE"])
    check_output(path, force, [database, *side_files(database)])
    temp = temp_beside(path)
    try:
        new_private_file(temp)
        source = sqlite3.connect(database, timeout=30)
        try:
            target = sqlite3.connect(temp, isolation_level=None)
            try:
                source.backup(target)  # every page in one step: one snapshot
                summary = _verified(target, path, f"the copy of {database}")
            finally:
                target.close()
        finally:
            source.close()
        install(temp, path)
    except sqlite3.Error as e:
        raise BackupError(f"backup of {database} failed ({e})") from None
    except OSError as e:
        raise os_error("write", path, e) from None
    finally:
        remove(temp, *side_files(temp))
    return summary


def restore(config, path):
    database = Path(config["DATABASE"])
    directory = database.parent
    if not directory.is_dir():
        raise BackupError(f"database directory {directory} does not exist")
    if database.is_dir():
        raise BackupError(
            f"database {database} is a directory, not a file: FLASK_DATABASE names the "
            f"SQLite file itself (such as {database / 'publishing.sqlite'})"
        )
    temp = temp_beside(database)
    try:
        try:
            shutil.copyfile(path, temp)
        except OSError as e:
            raise os_error("copy the backup to", directory, e) from None
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            summary = _verified(conn, path, str(path))
        except sqlite3.DatabaseError as e:
            raise BackupError(f"{path} is not an intact SQLite database ({e})") from None
        finally:
            conn.close()
        _same_owner(temp, database)
        with _idle(database):
            try:
                remove(*side_files(database))  # an old -wal would be replayed into the new file
                install(temp, database)
            except OSError as e:
                raise os_error("replace", database, e) from None
    finally:
        remove(temp, *side_files(temp))
    return summary


def _verified(conn, path, label):
    """Check a copy (ours, intact, not newer than the code), leave it out of
    WAL mode, and say what it holds. `label` names it in a refusal."""
    conn.execute("PRAGMA journal_mode = DELETE")
    problems = [row[0] for row in conn.execute("PRAGMA integrity_check(5)")]
    if problems != ["ok"]:
        raise BackupError(f"{label} fails SQLite's integrity_check ({'; '.join(problems)})")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = _tables(conn)
    check_schema(label, version, tables)
    counts = {
        table: conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        for table in COUNTED
        if table in tables
    }
    return Summary(path, version, counts)


def _tables(conn):
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    return {row[0] for row in rows}


class _idle:
    """Refuse unless the database at `path` is missing, damaged, or ours and
    open nowhere else; then hold it exclusively until the block ends."""

    def __init__(self, path):
        self.path = path
        self.conn = None

    def __enter__(self):
        path = self.path
        if not path.exists() or path.stat().st_size == 0:
            return self
        with open(path, "rb") as f:
            if f.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
                raise BackupError(f"{path} is not an SQLite database; it is left alone")
        conn = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            if not conn.execute("PRAGMA user_version").fetchone()[0] and _tables(conn):
                raise BackupError(
                    f"{path} holds tables that are not this service's; it is left alone"
                )
            conn.execute("PRAGMA journal_mode = DELETE")  # only when no one else has it open
            conn.execute("BEGIN EXCLUSIVE")
        except sqlite3.Error as e:
            conn.close()
            name = getattr(e, "sqlite_errorname", "")
            if name in ("SQLITE_BUSY", "SQLITE_LOCKED"):
                raise BackupError(HELD.format(path=path)) from None
            if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
                return self  # no service can be using a database it cannot read
            raise BackupError(f"cannot open {path} ({e})") from None
        except BaseException:
            conn.close()
            raise
        self.conn = conn
        return self

    def __exit__(self, *exc):
        if self.conn is not None:
            self.conn.close()  # the old file's lock; the new file is in place


def _same_owner(copy, database):
    """The restored file gets the mode and owner of the one it replaces, so a
    restore run as root leaves a file the service can still write."""
    try:
        st = database.stat()
    except FileNotFoundError:
        return
    os.chmod(copy, stat.S_IMODE(st.st_mode))
    with contextlib.suppress(PermissionError):
        os.chown(copy, st.st_uid, st.st_gid)
