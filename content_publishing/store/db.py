"""Connections, transactions and the `init-db` command, on either backend.

FLASK_DATABASE picks the backend: a `postgresql://` URL means PostgreSQL
(store/backend_postgres.py), a path or nothing means SQLite
(store/backend_sqlite.py). The store modules write one SQL text for both,
with `?` placeholders, and take the few fragments that differ (row locks,
SKIP LOCKED, NULL ordering) from `dialect()`. Views know nothing of this.

A gunicorn worker serves one request at a time, so each worker thread keeps
one connection for its whole life instead of opening one per request:
opening costs more than the queries of a typical request. The connection is
opened lazily, on the first request after the fork, and is tied to the
process id, so that a connection is never carried across a fork. A
connection found dead (a PostgreSQL restart) is replaced: at once, with the
statement run again, when that is safe (a BEGIN, or a read outside a
transaction), so that a restart of the database costs no request a 503.
"""

import contextlib
import functools
import os
import threading

import click
from flask import current_app
from flask.cli import with_appcontext

from content_publishing.store import backend_sqlite
from content_publishing.store.key_cache import KeyCache
from content_publishing.store.versions import SCHEMA_VERSION

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(database):
    return str(database).startswith(POSTGRES_SCHEMES)


def make_backend(config):
    if is_postgres(config["DATABASE"]):
        # Imported only here: psycopg costs every process of an SQLite
        # deployment (each worker, each CLI command) a sixth of its start.
        from content_publishing.store import backend_postgres

        return backend_postgres.Backend(config)
    return backend_sqlite.Backend(config)


def describe(config):
    """The database of `config` in words, without a password (for messages)."""
    return make_backend(config).describe()


class _Store:
    """An app's backend and its threads' connections, found with one lookup
    of `current_app` (a context-local proxy, and the store asks for them
    several times per statement)."""

    def __init__(self, backend):
        self.backend = backend
        self.local = threading.local()
        self.keys = KeyCache()  # of this database, shared by the process's threads

    def connection(self):
        """The calling thread's connection, opened on first use in a process."""
        local = self.local
        conn = getattr(local, "conn", None)
        if conn is None or local.pid != os.getpid() or not self.backend.usable(conn):
            conn = self.backend.connect()
            local.conn, local.pid = conn, os.getpid()
        return conn


def _store():
    extensions = current_app.extensions
    found = extensions.get("store")
    if found is None:
        found = extensions.setdefault("store", _Store(make_backend(current_app.config)))
    return found


def backend():
    """The configured backend of the current app."""
    return _store().backend


def dialect():
    """The SQL fragments of the configured backend (store/backend_*.py: Dialect)."""
    return _store().backend.dialect


def key_cache():
    """The keys this process has seen in the configured database (store/key_cache.py)."""
    return _store().keys


def get_db():
    """The calling thread's connection to the configured database."""
    return _store().connection()


def close_db(e=None):
    """End of request: the connection stays open, a transaction never does,
    and no key check is left for the thread's next request."""
    _forget_key_check()
    store = _store()
    conn = getattr(store.local, "conn", None)
    if conn is not None and store.local.pid == os.getpid():
        with contextlib.suppress(*store.backend.errors):
            if store.backend.usable(conn) and store.backend.in_transaction(conn):
                _rollback(conn)


def dispose_db():
    """Close this thread's connection (tests, and the end of a worker)."""
    store = _store()
    conn = getattr(store.local, "conn", None)
    if conn is not None:
        with contextlib.suppress(*store.backend.errors):
            conn.close()
        store.local.conn = None


# --- the key check of a request ---------------------------------------------------------

_key_check = threading.local()
KEY_GENERATION_SQL = "SELECT generation FROM key_generation WHERE id = 1"


def check_key_generation(expected, moved):
    """Have the calling thread's next statement also read the key generation
    (store/key_cache.py), in the same round trip on PostgreSQL. If it is not
    `expected`, `moved()` runs before that statement's result is used: it
    looks the key up again and raises if the key may no longer be used."""
    _key_check.pending = (expected, moved)


def settle_key_check():
    """Run a pending key check now, alone (a request that ran no statement)."""
    if getattr(_key_check, "pending", None) is not None:
        value(KEY_GENERATION_SQL)


def _forget_key_check():
    _key_check.pending = None


def _run(conn, sql, params=(), store=None):
    """The cursor of one statement, with the pending key check beside it if
    there is one (in the same round trip)."""
    run = (store or _store()).backend
    pending = getattr(_key_check, "pending", None)
    if pending is None:
        return run.execute(conn, sql, params)
    callback = getattr(_tracers, "callback", None)
    if callback is not None:
        callback(KEY_GENERATION_SQL)
    generation, result = run.alongside(conn, KEY_GENERATION_SQL, sql, params)
    _key_check.pending = None
    if generation != pending[0]:
        try:
            pending[1]()
        except BaseException:
            if run.in_transaction(conn):
                with contextlib.suppress(*run.errors):
                    _rollback(conn)
            raise
    return result


def _again_if_lost(run):
    """run(conn) on this thread's connection. If that connection turns out
    to be dead (PostgreSQL restarted, or ended it, since this worker's last
    request), open a new one and run it once more. Callers use it only for
    what is safe to repeat: a BEGIN, or a read outside a transaction."""
    store = _store()
    conn = store.connection()
    try:
        return run(conn)
    except store.backend.errors:
        if not store.backend.lost(conn):
            raise
        dispose_db()
        return run(store.connection())


def _begin(sql):
    """Run `sql` (a BEGIN) on this thread's connection, or on a new one if
    it was dead; the connection the transaction is on."""

    def run(conn):
        _run(conn, sql)
        return conn

    return _again_if_lost(run)


def _commit(conn):
    backend().execute(conn, "COMMIT", ())


def _rollback(conn):
    backend().execute(conn, "ROLLBACK", ())


@contextlib.contextmanager
def transaction():
    """The unit of work of every write, committed when the block ends.

    On SQLite it takes the write lock before the first read; on PostgreSQL
    rows to be changed are read with lock_* functions (FOR UPDATE). Anything
    raised inside rolls the whole transaction back. Transactions do not nest:
    a store function that opened its own would break its caller's unit of work.
    """
    if backend().in_transaction(get_db()):
        raise RuntimeError("transaction() inside a transaction: store functions never begin")
    conn = _begin(backend().begin_write_sql)
    try:
        yield
    except BaseException:
        with contextlib.suppress(*backend().errors):
            _rollback(conn)
        raise
    _commit(conn)


@contextlib.contextmanager
def snapshot():
    """Several reads that see one state of the database (a page and its
    total). Inside a transaction it is that transaction."""
    if backend().in_transaction(get_db()):
        yield
        return
    conn = _begin(backend().begin_read_sql)
    try:
        yield
    finally:
        with contextlib.suppress(*backend().errors):
            _rollback(conn)  # nothing was written; ends the read transaction


@contextlib.contextmanager
def savepoint():
    """Part of a transaction that can be undone alone: on an exception inside,
    what the block did is rolled back and the exception goes on; the
    transaction around it stays usable."""
    conn = get_db()
    backend().execute(conn, "SAVEPOINT part", ())
    try:
        yield
    except BaseException:
        backend().execute(conn, "ROLLBACK TO SAVEPOINT part", ())
        raise
    backend().execute(conn, "RELEASE SAVEPOINT part", ())


# --- statements ---------------------------------------------------------------------------

_tracers = threading.local()


@contextlib.contextmanager
def trace(callback):
    """Call `callback(sql)` with every statement this thread runs (tests)."""
    _tracers.callback = callback
    try:
        yield
    finally:
        _tracers.callback = None


def execute(sql, params=()):
    """Run one statement on the calling thread's connection."""
    callback = getattr(_tracers, "callback", None)
    if callback is not None:
        callback(sql)
    store = _store()
    conn = store.connection()
    if store.backend.in_transaction(conn) or sql.lstrip()[:6].upper() != "SELECT":
        return _run(conn, sql, params, store)
    return _again_if_lost(lambda conn: _run(conn, sql, params, store))


def execute_many(sql, seq_of_params):
    """Run one statement once per parameter tuple."""
    callback = getattr(_tracers, "callback", None)
    if callback is not None:
        callback(sql)
    backend().execute_many(get_db(), sql, seq_of_params)


def one(sql, params=()):
    """The first row as a dict, or None."""
    cursor = execute(sql, params)
    row = cursor.fetchone()
    cursor.close()
    return None if row is None else _as_dicts([row])[0]


def rows(sql, params=()):
    """Every row as a dict."""
    return _as_dicts(execute(sql, params).fetchall())


def _as_dicts(found):
    """Rows as dicts: PostgreSQL's are dicts already; SQLite's are zipped with
    their names, which is faster than dict(sqlite3.Row) (that looks each name
    up by name, and a list page holds hundreds)."""
    if not found or isinstance(found[0], dict):
        return found
    names = found[0].keys()
    return [dict(zip(names, row, strict=True)) for row in found]


def value(sql, params=()):
    """The first column of the first row, or None."""
    row = one(sql, params)
    return next(iter(row.values())) if row else None


def database_size():
    """Bytes the database takes (the backend says what counts)."""
    return backend().size(get_db())


# --- errors -------------------------------------------------------------------------------


def is_storage_full(error):
    return backend().is_storage_full(error)


def is_busy(error):
    """Another writer held a lock past the timeout, or the database was not
    reachable: the client should retry shortly."""
    return backend().is_busy(error)


def is_unique_violation(error):
    return backend().is_unique_violation(error)


# --- schema and start-up checks ----------------------------------------------------------


def init_db():
    """Create missing tables and bring an older schema up to date."""
    backend().init_schema(get_db(), SCHEMA_VERSION)


def check_database(config):
    """Refuse to start on a database that cannot work: None when usable, else
    one line saying what is wrong (the start of gunicorn and init-db)."""
    return make_backend(config).check(SCHEMA_VERSION)


def check_initialized(config):
    """check_database, and the database must already hold the schema: for
    commands that read or change data, which must never create an empty
    database beside the one the server uses."""
    return make_backend(config).check(SCHEMA_VERSION, must_exist=True)


def needs_database(command):
    """CLI decorator: one line naming the database and what to do, instead
    of a traceback, when it is missing or unusable."""

    @functools.wraps(command)
    def checked(*args, **kwargs):
        problem = check_initialized(current_app.config)
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
    problem = check_database(current_app.config)
    if problem:
        raise click.ClickException(problem)
    init_db()
    click.echo(f"Database ready: {backend().describe()}")


def init_app(app):
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
