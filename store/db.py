"""SQLite connections, transactions and the `init-db` command.

A gunicorn worker serves one request at a time, so each worker thread keeps
one connection for its whole life instead of opening one per request: opening
costs more than the queries of a typical request. The connection is opened
lazily, on the first request after the fork, and is tied to the process id so
that a connection can never be carried across a fork.
"""

import contextlib
import os
import sqlite3
import threading
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

SCHEMA_VERSION = 1

# Statements run on a database whose user_version is the key, to bring it to
# key + 1. schema.sql always holds the newest shape for new databases.
MIGRATIONS: dict[int, list[str]] = {}


class DatabaseUnavailable(Exception):
    """The database file cannot be opened or is not a database."""


def connect(path, synchronous="FULL", busy_timeout_ms=5000, max_page_count=None):
    """Open a connection configured the way every part of the service expects.

    Autocommit mode (isolation_level=None) so that transactions are only the
    ones we open explicitly with BEGIN IMMEDIATE.
    """
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=True)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA foreign_keys = ON")
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    if max_page_count:
        conn.execute(f"PRAGMA max_page_count = {int(max_page_count)}")
    return conn


def _local():
    return current_app.extensions.setdefault("sqlite_local", threading.local())


def get_db():
    """The calling thread's connection to the configured database."""
    local = _local()
    conn = getattr(local, "conn", None)
    if conn is None or local.pid != os.getpid():
        cfg = current_app.config
        conn = connect(
            cfg["DATABASE"],
            cfg["SQLITE_SYNCHRONOUS"],
            cfg["SQLITE_BUSY_TIMEOUT_MS"],
            cfg.get("SQLITE_MAX_PAGE_COUNT"),
        )
        local.conn, local.pid = conn, os.getpid()
    return conn


def close_db(e=None):
    """End of request: the connection stays open, a transaction never does."""
    conn = getattr(_local(), "conn", None)
    if conn is not None and conn.in_transaction:
        conn.rollback()


def dispose_db():
    """Close this thread's connection (tests, and the end of a worker)."""
    local = _local()
    conn = getattr(local, "conn", None)
    if conn is not None:
        conn.close()
        local.conn = None


@contextlib.contextmanager
def transaction():
    """BEGIN IMMEDIATE ... COMMIT: the write lock is taken before the first
    read, so a read-then-write can never be overtaken by another writer."""
    conn = get_db()
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.rollback()
        raise
    conn.commit()


def is_storage_full(error):
    return isinstance(error, sqlite3.OperationalError) and (
        getattr(error, "sqlite_errorname", "") == "SQLITE_FULL"
        or "database or disk is full" in str(error)
    )


def is_busy(error):
    """Another writer held the lock for longer than the busy timeout."""
    return isinstance(error, sqlite3.OperationalError) and (
        getattr(error, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")
        or "database is locked" in str(error)
    )


def init_db():
    """Create missing tables and bring an older schema up to date."""
    db = get_db()
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise DatabaseUnavailable(
            f"database schema version {version} is newer than this code ({SCHEMA_VERSION})"
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        while 0 < version < SCHEMA_VERSION:
            for statement in MIGRATIONS[version]:
                db.execute(statement)
            version += 1
        with current_app.open_resource("schema.sql") as f:
            for statement in _statements(f.read().decode("utf8")):
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.rollback()
        raise
    db.commit()


def _statements(script):
    """Split a script at statement ends (triggers hold `;` inside BEGIN...END),
    so that it runs inside our transaction; executescript would commit."""
    buf = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--") and not buf.strip():
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            yield buf
            buf = ""


def check_database(path):
    """Refuse to start on a path that cannot hold our database.

    Returns None when usable, else one line saying what is wrong.
    """
    if path == ":memory:":
        return None
    p = Path(path)
    directory = p.parent
    if not directory.is_dir():
        return f"database directory {directory} does not exist"
    if p.exists():
        if not os.access(p, os.R_OK | os.W_OK):
            return f"database file {p} is not readable and writable"
        with open(p, "rb") as f:
            head = f.read(16)
        if head and head != b"SQLite format 3\x00":
            return f"database file {p} is not an SQLite database"
    if not os.access(directory, os.W_OK | os.X_OK):
        return f"database directory {directory} is not writable (SQLite needs it for the -wal file)"
    if p.exists() and p.stat().st_size > 0:
        return _probe(p)
    return None


def _probe(path):
    """Read the schema of an existing file through a short read-only
    connection, closed before anything forks: a valid header can still hide
    a damaged file, or a schema newer than this code."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        return f"database file {path} is not a usable SQLite database ({e})"
    if version > SCHEMA_VERSION:
        return f"database schema version {version} is newer than this code ({SCHEMA_VERSION})"
    return None


@click.command("init-db")
@with_appcontext
def init_db_command():
    """Create the tables if missing; safe on a database that holds data."""
    problem = check_database(current_app.config["DATABASE"])
    if problem:
        raise click.ClickException(problem)
    init_db()
    click.echo(f"Database ready: {current_app.config['DATABASE']}")


def init_app(app):
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
