"""SQLite connections, transactions and the `init-db` command.

A gunicorn worker serves one request at a time, so each worker thread keeps
one connection for its whole life instead of opening one per request: opening
costs more than the queries of a typical request. The connection is opened
lazily, on the first request after the fork, and is tied to the process id so
that a connection can never be carried across a fork.
"""

import contextlib
import functools
import os
import sqlite3
import threading
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from store.migrations import MIGRATIONS

SCHEMA_VERSION = 3


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
    """The unit of work of every write: BEGIN IMMEDIATE ... COMMIT.

    The write lock is taken before the first read, so a read-then-write can
    never be overtaken by another writer. Anything raised inside rolls the
    whole transaction back. Transactions do not nest: a store function that
    opened its own would break its caller's unit of work.
    """
    conn = get_db()
    if conn.in_transaction:
        raise RuntimeError("transaction() inside a transaction: store functions never begin")
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.rollback()
        raise
    conn.commit()


@contextlib.contextmanager
def snapshot():
    """Several reads that see one state of the database (a page and its
    total). Inside a transaction it is that transaction."""
    conn = get_db()
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.rollback()  # nothing was written; ends the read transaction


def execute(sql, params=()):
    """Run one statement on the calling thread's connection."""
    return get_db().execute(sql, params)


def execute_many(sql, seq_of_params):
    """Run one statement once per parameter tuple."""
    get_db().executemany(sql, seq_of_params)


def one(sql, params=()):
    """The first row as a dict, or None."""
    cursor = get_db().execute(sql, params)
    row = cursor.fetchone()
    cursor.close()
    return dict(row) if row is not None else None


def rows(sql, params=()):
    """Every row as a dict."""
    return [dict(row) for row in get_db().execute(sql, params)]


def value(sql, params=()):
    """The first column of the first row, or None."""
    cursor = get_db().execute(sql, params)
    row = cursor.fetchone()
    cursor.close()
    return row[0] if row is not None else None


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
    """Create missing tables and bring an older schema up to date.

    Every worker runs this when it starts, so the version is read under the
    write lock: the first one migrates, the others find the work done.
    """
    db = get_db()
    db.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction, so first
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise DatabaseUnavailable(
                f"database schema version {version} is newer than this code ({SCHEMA_VERSION})"
            )
        while 0 < version < SCHEMA_VERSION:
            for statement in MIGRATIONS[version]:
                db.execute(statement)
            version += 1
        with current_app.open_resource("schema.sql") as f:
            for statement in _statements(f.read().decode("utf8")):
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        broken = db.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise DatabaseUnavailable(f"the migration left {len(broken)} broken foreign keys")
    except BaseException:
        db.rollback()
        db.execute("PRAGMA foreign_keys = ON")
        raise
    db.commit()
    db.execute("PRAGMA foreign_keys = ON")


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
        problem, _ = _probe(p)
        return problem
    return None


def _probe(path):
    """Read the schema of an existing file through a short read-only
    connection, closed before anything forks: a valid header can still hide
    a damaged file, or a schema newer than this code. Returns (problem, version)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        return f"database file {path} is not a usable SQLite database ({e})", None
    if version > SCHEMA_VERSION:
        return (
            f"database schema version {version} is newer than this code ({SCHEMA_VERSION})",
            version,
        )
    return None, version


def check_initialized(path):
    """check_database, and the database must already hold the schema: for
    commands that read or change data, which must never create an empty
    database beside the one the server uses."""
    problem = check_database(path)
    if problem or path == ":memory:":
        return problem
    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return f"database {p.resolve()} does not exist"
    if _probe(p)[1] == 0:
        return f"database {p.resolve()} has no tables"
    return None


def needs_database(command):
    """CLI decorator: one line naming the database and what to do, instead
    of a traceback, when it is missing or unusable."""

    @functools.wraps(command)
    def checked(*args, **kwargs):
        problem = check_initialized(current_app.config["DATABASE"])
        if problem:
            raise click.ClickException(
                f"{problem}. Set FLASK_DATABASE to the database the server uses, "
                "or create this one with `flask --app app init-db`."
            )
        return command(*args, **kwargs)

    return checked


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
