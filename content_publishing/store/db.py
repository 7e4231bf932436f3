"""Connections, transactions and the schema's version, on either backend.

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
On PostgreSQL, what need not go alone rides with the next statement (see
"what a thread has yet to send" below).
"""

import contextlib
import functools
import os
import threading

import click
from flask import current_app

from content_publishing.store import backend_sqlite, migrate
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
    _forget_unsent()
    store = _store()
    conn = getattr(store.local, "conn", None)
    if conn is not None and store.local.pid == os.getpid():
        with contextlib.suppress(*store.backend.errors):
            if store.backend.usable(conn) and store.backend.in_transaction(conn):
                store.backend.send(conn, [("ROLLBACK", (), False)])


def dispose_db():
    """Close this thread's connection (tests, and the end of a worker)."""
    store = _store()
    conn = getattr(store.local, "conn", None)
    if conn is not None:
        with contextlib.suppress(*store.backend.errors):
            conn.close()
        store.local.conn = None


# --- what a thread has yet to send ------------------------------------------------------
#
# On PostgreSQL every statement is a round trip, so what need not go alone
# waits and rides with the thread's next statement, in one pipeline: the
# BEGIN of a transaction or snapshot (sent with its first statement; one
# that runs none costs nothing), writes whose result nobody reads
# (`execute_many`, `write`: history rows, events, hand-offs; sent with the
# next statement or the COMMIT), and the request's key check. So a create is
# one round trip and its commit. The server runs a pipeline in order, and an
# error in it fails the statement it rides with; the transaction is then
# rolled back as for any error, so what was sent late is never half-kept.
# SQLite pays no round trip, and its BEGIN IMMEDIATE must take the write lock
# before the first read, so there everything goes at once.

KEY_GENERATION_SQL = "SELECT generation FROM key_generation WHERE id = 1"
_GENERATION = (KEY_GENERATION_SQL, (), False)


class _Unsent(threading.local):
    def __init__(self):
        self.key = None  # (expected generation, moved): the request's key check
        self.begin = None  # a BEGIN not sent yet
        self.writes = []  # (sql, params, many) written in the transaction, not sent yet


_unsent = _Unsent()


def check_key_generation(expected, moved):
    """Have the calling thread's next statement also read the key generation
    (store/key_cache.py), in the same round trip on PostgreSQL. If it is not
    `expected`, `moved()` runs before that statement's result is used: it
    looks the key up again and raises if the key may no longer be used."""
    _unsent.key = (expected, moved)


def settle_key_check():
    """Run a pending key check now, alone (a request that ran no statement)."""
    if _unsent.key is not None:
        value(KEY_GENERATION_SQL)


def _forget_unsent():
    _unsent.key, _unsent.begin, _unsent.writes = None, None, []


def _in_transaction(store, conn):
    return _unsent.begin is not None or store.backend.in_transaction(conn)


def _send(store, sql, params=(), many=False, repeatable=False):
    """Send `sql` with what waits to go before it, in one round trip; the
    cursor of `sql`. If the connection turns out to be dead (PostgreSQL
    restarted, or ended it, since this worker's last request), a new one is
    opened and the same statements sent once more, when that is safe: they
    begin a transaction, or `repeatable` says so (a read outside one)."""
    unsent = _unsent
    key = unsent.key
    before = [(unsent.begin, (), False)] if unsent.begin is not None else []
    repeatable = repeatable or bool(before)
    before += unsent.writes
    statement = (sql, params, many)
    at = generation_at = len(before)
    if key is None:
        batch = [*before, statement]
    elif sql.startswith("BEGIN"):  # the key is read inside the transaction it opens
        batch, generation_at = [*before, statement, _GENERATION], at + 1
    else:
        batch, at = [*before, _GENERATION, statement], at + 1
    _forget_unsent()
    _traced(batch, key)
    run = store.backend
    conn = store.connection()
    try:
        cursors = run.send(conn, batch)
    except run.errors:
        if not (repeatable and run.lost(conn)):
            raise
        dispose_db()
        cursors = run.send(store.connection(), batch)
    if key is not None and _first_column(cursors[generation_at]) != key[0]:
        try:
            key[1]()
        except BaseException:
            _end(store, "ROLLBACK")
            raise
    return cursors[at]


def _first_column(cursor):
    """The first column of the cursor's first row, or None (a row is a dict
    on PostgreSQL and a tuple-like sqlite3.Row on SQLite)."""
    row = cursor.fetchone()
    cursor.close()
    return None if row is None else next(iter(row.values())) if isinstance(row, dict) else row[0]


def _traced(batch, key):
    if key is not None:
        callback = getattr(_tracers, "callback", None)
        if callback is not None:
            callback(KEY_GENERATION_SQL)
    counted = getattr(_tracers, "round_trip", None)
    if counted is not None:
        counted([sql for sql, _, _ in batch])


def _begin(store, sql):
    """Open a transaction (`sql` is its BEGIN): on PostgreSQL with the next
    statement, on SQLite at once."""
    if store.backend.defers:
        _unsent.begin = sql
    else:
        _send(store, sql, repeatable=True)


def _end(store, sql):
    """COMMIT or ROLLBACK the thread's transaction; a COMMIT carries the
    writes still unsent. Errors of a ROLLBACK are ignored: it ends a
    transaction that failed, or a read, and close_db ends it otherwise."""
    if _unsent.begin is not None and not (sql == "COMMIT" and _unsent.writes):
        _forget_unsent()  # nothing was sent, or only writes to drop: nothing to end
        return
    if sql == "COMMIT":  # with the BEGIN and the writes that wait, if nothing was read
        _send(store, sql)
        return
    _unsent.writes = []
    with contextlib.suppress(*store.backend.errors):
        if store.backend.in_transaction(store.connection()):
            _send(store, sql)


@contextlib.contextmanager
def transaction(short_locks=False):
    """The unit of work of every write, committed when the block ends.

    On SQLite it takes the write lock before the first read; on PostgreSQL
    rows to be changed are read with lock_* functions (FOR UPDATE). Anything
    raised inside rolls the whole transaction back. Transactions do not nest:
    a store function that opened its own would break its caller's unit of work.

    `short_locks`: for a transaction that others queue behind on one row
    (add to queue, on its channel's row). On PostgreSQL its locks go as soon
    as it commits, before its WAL is on disk, and the block returns only
    once it is: the next one in the queue does not wait for this one's disk
    write, and the writes of all of them go to disk together. A change may
    then be seen by another reader a few milliseconds before it is durable
    (never acted on by the dispatcher, whose own writes go to disk first);
    the caller's 2xx still means durable. Nothing changes on SQLite.
    """
    store = _store()
    if _in_transaction(store, store.connection()):
        raise RuntimeError("transaction() inside a transaction: store functions never begin")
    _begin(store, store.backend.begin_write_sql)
    early = short_locks and store.backend.early_release_sql
    if early:
        _unsent.writes.append((early, (), False))
    try:
        yield
        _end(store, "COMMIT")
    except BaseException:
        _end(store, "ROLLBACK")
        raise
    if early:
        _send_durable(store)


def _send_durable(store):
    """Wait until every commit so far is on disk (after a short_locks one)."""
    statements = [(sql, (), False) for sql in store.backend.durable_sql]
    _traced(statements, None)
    store.backend.send(store.connection(), statements)


@contextlib.contextmanager
def snapshot():
    """Several reads that see one state of the database (a page and its
    total). Inside a transaction it is that transaction."""
    store = _store()
    if _in_transaction(store, store.connection()):
        yield
        return
    _begin(store, store.backend.begin_read_sql)
    try:
        yield
    finally:
        _end(store, "ROLLBACK")  # nothing was written; ends the read transaction


@contextlib.contextmanager
def savepoint():
    """Part of a transaction that can be undone alone: on an exception inside,
    what the block did is rolled back and the exception goes on; the
    transaction around it stays usable."""
    store = _store()
    _send(store, "SAVEPOINT part")
    try:
        yield
        _send(store, "RELEASE SAVEPOINT part")  # with what the block wrote
    except BaseException:
        _unsent.writes = []
        _send(store, "ROLLBACK TO SAVEPOINT part")
        raise


# --- statements ---------------------------------------------------------------------------

_tracers = threading.local()


@contextlib.contextmanager
def trace(callback=None, round_trip=None):
    """Call `callback(sql)` with every statement this thread runs, and
    `round_trip(statements)` with what each round trip sends (tests)."""
    _tracers.callback, _tracers.round_trip = callback, round_trip
    try:
        yield
    finally:
        _tracers.callback = _tracers.round_trip = None


def execute(sql, params=()):
    """Run one statement on the calling thread's connection."""
    callback = getattr(_tracers, "callback", None)
    if callback is not None:
        callback(sql)
    store = _store()
    repeatable = sql.lstrip()[:6].upper() == "SELECT" and not _in_transaction(
        store, store.connection()
    )
    return _send(store, sql, params, repeatable=repeatable)


def write(sql, params=()):
    """Run one statement whose result no one reads (no RETURNING, no row
    count). Inside a transaction on PostgreSQL it is sent with the next one."""
    _write(sql, params, False)


def execute_many(sql, seq_of_params):
    """Run one statement once per parameter tuple (sent like `write`)."""
    _write(sql, list(seq_of_params), True)


def _write(sql, params, many):
    callback = getattr(_tracers, "callback", None)
    if callback is not None:
        callback(sql)
    store = _store()
    if store.backend.defers and _in_transaction(store, store.connection()):
        _unsent.writes.append((sql, params, many))
    else:
        _send(store, sql, params, many)


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
    return _first_column(execute(sql, params))


def database_size():
    """Bytes the database takes (the backend says what counts)."""
    return backend().size(get_db())


class TimedOut(Exception):
    """A read run under time_limit() took longer than it allows."""


@contextlib.contextmanager
def time_limit(milliseconds):
    """Cut the reads inside a transaction or snapshot after `milliseconds`
    (SQLite: in all; PostgreSQL: each, as statement_timeout): TimedOut, so
    that a costly read answers in time instead of holding a worker."""
    store = _store()
    run = store.backend
    try:
        with run.time_limit(store.connection(), milliseconds, write):
            yield
    except run.errors as error:
        if not run.is_timed_out(error):
            raise
        raise TimedOut(f"stopped after {milliseconds} ms") from error


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
    """Bring the database to this code's schema version, creating it whole
    when it is new (store/migrate.py): (version found, [migrations applied])."""
    return backend().init_schema(get_db(), SCHEMA_VERSION)


def pending_migrations(config):
    """(version found, [migrations init_db would apply]) of the database of
    `config`, read without writing or creating anything."""
    chosen = make_backend(config)
    found, present = chosen.schema_state()
    return found, migrate.plan(chosen.name, found, present, SCHEMA_VERSION)


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


def init_app(app):
    app.teardown_appcontext(close_db)
