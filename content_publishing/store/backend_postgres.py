"""PostgreSQL, for deployments that outgrow one machine (psycopg 3).

What differs from SQLite lives here and only here:

- placeholders: the store writes `?`; they become `%s` (and a literal `%`
  becomes `%%`) once per statement text;
- locking: a write transaction is READ COMMITTED, and a row read in order to
  be changed is read with FOR UPDATE; claims and leases add SKIP LOCKED, so
  that concurrent claimers take different rows instead of waiting; a read of
  several statements is one REPEATABLE READ READ ONLY snapshot;
- errors: a lock not granted within FLASK_SQLITE_BUSY_TIMEOUT_MS (as
  lock_timeout), a serialization failure, a deadlock or a lost connection is
  `busy` (503 with Retry-After), a full disk is `storage_full`;
- the schema: the migrations of store/migrations/postgresql/, applied under
  an advisory lock so that workers and hosts starting together apply them
  once, with the version in a schema_version table.

Timestamps stay fixed-width UTC text, as in SQLite, so every comparison and
every answer is the same on both backends.
"""

import contextlib

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row

from content_publishing.store import migrate as migrations
from content_publishing.store.versions import MigrationError

INIT_LOCK = 727_001  # first pg_advisory_xact_lock key of init-db; the second is the schema's
# The lock of one schema's init-db (and copy-db, restore): per schema, so that
# a long copy into one schema does not hold up the start of another's service.
INIT_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s, hashtext(%s))"
CONNECT_TIMEOUT = 5
# Every connection of the service names itself `content-publishing:<schema>`,
# so that `restore` sees in pg_stat_activity that the service is running.
APPLICATION_NAME = "content-publishing"


# What the GIN index posts_search_owned holds for a post: its words, each
# with its owner in front ('42:launch'; the function posts_search_vector),
# so that each owner's words are keys of their own: a
# search looks up the caller's keys alone and never reads another workspace's
# matches. The query's words go through the same function
# (posts_search_query), so they are read as the content is ('simple'
# configuration: lower case, no stemming), quoted, the prefix as
# '42:webin':*, a range of the caller's keys. Words the configuration reads
# as nothing ('²') leave no key: the query is then NULL, which matches
# nothing.
OWNED_TERMS = "posts_search_vector(workspace_id, content) @@ posts_search_query(?, ?, ?)"


def _query_values(workspace_id, terms):
    """The parameters of posts_search_query for store/search.Terms."""
    return [workspace_id, " ".join(terms.whole), terms.prefix]


def _owned_query(workspace_id, terms):
    """(fragment, parameters): the owner's posts holding every word."""
    return OWNED_TERMS, _query_values(workspace_id, terms)


class Dialect:
    for_update = " FOR UPDATE"
    for_share = " FOR SHARE"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    # ASC puts NULLs last in PostgreSQL, so the index order serves this.
    scheduled_order = "scheduled_at, id"
    # The owner's clause beside a search led by the text index: with plain
    # `workspace_id = ?` the planner walked the owner's posts newest first and
    # computed to_tsvector for each (1.2 s for a word in 20 of 100,000
    # posts; 0.23 ms led by the GIN index). The unary + keeps the owner's
    # index out; the owner in each key keeps the text index to the owner.
    search_owner = "+workspace_id = ?"

    @staticmethod
    def count_matches(workspace_id, terms, filters, params, cap):
        """(SQL, parameters) counting the owner's posts that hold every word
        and pass `filters`, up to `cap`, led by the GIN index."""
        fragment, found = _owned_query(workspace_id, terms)
        where = " AND ".join(["+workspace_id = ?", fragment, *filters])
        return (
            f"SELECT count(*) FROM (SELECT 1 FROM posts WHERE {where} LIMIT ?) found",
            [workspace_id, *found, *params, cap],
        )

    @staticmethod
    def matched(workspace_id, terms):
        """(WHERE fragment, parameters): the owner's posts that hold every
        word, through the GIN index."""
        return _owned_query(workspace_id, terms)

    @staticmethod
    def walk(columns, condition, order, workspace_id, terms):
        """(SQL, parameters) of a walk (store/search.py): the first `?`
        rows of posts matching `condition` in `order`, numbered (n), and of
        them the `?` after the first `?` that hold every word, tested as
        the index reads a post's content, row by row as the outer query
        takes them. Parameters: the condition's, the rows to read, these,
        the limit and offset.

        The levels between the read and the test keep the planner from
        pushing the test down into the read (a LIMIT and a window function
        stop it), where it would plan around a text match it cannot
        estimate and read every row."""
        return (
            f"SELECT {columns}, n FROM (SELECT ordered.*, row_number() OVER (ORDER BY {order})"
            f" AS n FROM (SELECT {columns} FROM posts WHERE {condition} ORDER BY {order}"
            " LIMIT ?) ordered) walked, (SELECT posts_search_query(?, ?, ?) AS q) query"
            " WHERE posts_search_vector(?, walked.content) @@ query.q LIMIT ? OFFSET ?",
            [*_query_values(workspace_id, terms), workspace_id],
        )


class Backend:
    name = "postgresql"
    dialect = Dialect()
    errors = (psycopg.Error,)

    def __init__(self, config):
        self.config = config  # read at each connect: tests change settings on a live app
        self.url = config["DATABASE"]
        self._translated = {}

    def connect(self):
        conn = psycopg.connect(
            self.url, autocommit=True, row_factory=dict_row, connect_timeout=CONNECT_TIMEOUT
        )
        conn.execute(f"SET lock_timeout = {int(self.config['SQLITE_BUSY_TIMEOUT_MS'])}")
        conn.execute(
            "SELECT set_config('application_name',"
            " left(%s || ':' || coalesce(current_schema(), ''), 63), false)",
            (APPLICATION_NAME,),
        )
        if str(self.config["SQLITE_SYNCHRONOUS"]).upper() == "OFF":
            conn.execute("SET synchronous_commit = off")  # a seed, thrown away if it dies
        return conn

    def lost(self, conn):
        """The connection is dead: the server ended it or went away."""
        return conn.closed or conn.broken

    def usable(self, conn):
        return not conn.closed and not conn.broken

    # --- transactions ------------------------------------------------------------------

    def in_transaction(self, conn):
        return conn.info.transaction_status != TransactionStatus.IDLE

    begin_write_sql = "BEGIN"
    begin_read_sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    def _sql(self, sql):
        translated = self._translated.get(sql)
        if translated is None:
            translated = self._translated[sql] = sql.replace("%", "%%").replace("?", "%s")
        return translated

    defers = True  # a BEGIN and unread writes ride with the next statement (store/db.py)

    # A transaction whose row locks others queue behind (store/db.py,
    # transaction(short_locks=True)) commits without waiting for its WAL to
    # reach the disk, so that its locks go at once; then a transaction of one
    # statement that takes an id commits the usual way, and its flush carries
    # every commit before it, this one's included, to the disk. Concurrent
    # such flushes are one write of the WAL (PostgreSQL's group commit).
    early_release_sql = "SET LOCAL synchronous_commit = off"
    durable_sql = (
        "BEGIN",
        "SELECT pg_logical_emit_message(true, 'content-publishing', 'flush')",
        "COMMIT",
    )

    def send(self, conn, batch):
        """Run `batch`, a list of (sql, params, many), in one round trip: one
        statement alone, several in psycopg's pipeline mode, which keeps
        prepared statements (one query string would have the server plan
        each statement every time). The cursor of each (None for a many)."""
        if len(batch) == 1:
            return [self._run(conn, *batch[0])]
        with conn.pipeline():
            return [self._run(conn, *statement) for statement in batch]

    def _run(self, conn, sql, params, many):
        if not many:
            return conn.execute(self._sql(sql), params)
        with conn.cursor() as cursor:
            cursor.executemany(self._sql(sql), params)
        return None

    def size(self, conn):
        """The service's tables in its schema (the first on the search_path),
        with their indexes and TOAST: pg_database_size would count whatever
        else shares the database."""
        row = conn.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS size FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
        ).fetchone()
        return int(row["size"])

    @contextlib.contextmanager
    def time_limit(self, conn, milliseconds, send_later):
        """Cut each statement sent inside after `milliseconds`: the
        transaction's statement_timeout, set with its next statement and
        back to the connection's own when the block ends (is_timed_out)."""
        send_later("SELECT set_config('statement_timeout', ?, true)", (f"{int(milliseconds)}ms",))
        yield
        send_later("SET LOCAL statement_timeout TO DEFAULT", ())

    # --- errors ---------------------------------------------------------------------

    def is_timed_out(self, error):
        return isinstance(error, pg_errors.QueryCanceled)

    def is_storage_full(self, error):
        return isinstance(error, pg_errors.DiskFull)

    def is_busy(self, error):
        """Waited too long for a lock, lost a serialization race or the
        connection: retrying shortly is the cure."""
        return isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)) and not (
            self.is_storage_full(error)
        )

    def is_unique_violation(self, error):
        return isinstance(error, pg_errors.UniqueViolation)

    # --- schema ------------------------------------------------------------------------

    def init_schema(self, conn, version):
        """Bring the database to schema `version`: (version found, [migrations
        applied]). Every worker runs this when it starts: on a current
        database it costs one read of the version, outside any transaction
        and lock."""
        found = _current_version(conn)
        if found == version:
            return found, []
        conn.execute("BEGIN")
        try:
            done = migrate(conn, version)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return done

    @staticmethod
    def version_sql(version):
        """The statements that record `version`, in the migration's transaction."""
        return [_version_sql(version)]

    def schema_state(self):
        """(version, the service's tables present), read without writing
        anything (`flask migrate --dry-run`)."""
        with psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
            return _version(conn), _present(conn)

    def check(self, version, must_exist=False):
        """One line saying why this URL cannot serve, or None."""
        try:
            params = conninfo_to_dict(self.url)
        except psycopg.ProgrammingError as e:
            return f"FLASK_DATABASE is not a usable PostgreSQL URL ({first_line(e)})"
        where = f"{params.get('host', 'localhost')}:{params.get('port', 5432)}"
        name = params.get("dbname", "")
        try:
            with psycopg.connect(
                self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
            ) as conn:
                found = _version(conn)
                present = _present(conn) if found == 0 else []
        except psycopg.OperationalError as e:
            text = first_line(e)
            if f'database "{name}" does not exist' in text:
                return f"PostgreSQL database {name!r} does not exist on {where} ({text})"
            if "connection is bad: invalid" in text:  # libpq refused a value in the URL
                return f"FLASK_DATABASE is not a usable PostgreSQL URL ({text})"
            return f"cannot reach PostgreSQL at {where} ({text})"
        except psycopg.Error as e:
            return f"PostgreSQL at {where} refused the schema check ({first_line(e)})"
        try:
            migrations.plan(self.name, found, present, version)
        except MigrationError as e:
            return str(e)
        if must_exist and found == 0:
            return f"PostgreSQL database {name!r} on {where} has no tables"
        return None

    def describe(self):
        try:
            params = conninfo_to_dict(self.url)
        except psycopg.ProgrammingError:
            return "postgresql://(a URL that does not parse)"
        params.pop("password", None)
        return f"postgresql://{params.get('host', '')}:{params.get('port', 5432)}/{params.get('dbname', '')}"


def migrate(conn, version):
    """Bring the schema to `version` inside the caller's transaction
    (init-db's own, or copy-db's, which must leave a target it refuses as it
    found it), under the advisory lock of init-db: (version found,
    [migrations applied]). Each migration is followed by its version, in the
    same transaction."""
    conn.execute(INIT_LOCK_SQL, (INIT_LOCK, current_schema(conn)))
    found = _version(conn)
    steps = migrations.plan(Backend.name, found, _present(conn) if found == 0 else [], version)
    for step in steps:
        conn.execute(step.sql)
        conn.execute(_version_sql(step.version))
    return found, steps


def _version_sql(version):
    return (
        f"DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES ({int(version)});"
    )


def _current_version(conn):
    """The schema version in one statement, outside a transaction. A new
    database has no schema_version table yet: that one error (in the
    server's log, once per worker of a first start) is cheaper than asking
    the catalog first on every start."""
    try:
        row = conn.execute("SELECT max(version) AS version FROM schema_version").fetchone()
    except pg_errors.UndefinedTable:
        return 0
    value = row["version"] if isinstance(row, dict) else row[0]
    return value or 0


def _present(conn):
    """The service's tables in the connection's schema."""
    rows = conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
        " AND c.relname = ANY(%s) ORDER BY 1",
        (sorted(migrations.tables(Backend.name)),),
    ).fetchall()
    return [row["relname"] if isinstance(row, dict) else row[0] for row in rows]


def current_schema(conn):
    """The schema the connection's tables go to (the first on its search_path)."""
    row = conn.execute("SELECT coalesce(current_schema(), '') AS name").fetchone()
    return row["name"] if isinstance(row, dict) else row[0]


def _version(conn):
    """The schema version, 0 when the database has none of our tables."""
    row = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL AS known").fetchone()
    known = row["known"] if isinstance(row, dict) else row[0]
    if not known:
        return 0
    row = conn.execute("SELECT max(version) AS version FROM schema_version").fetchone()
    value = row["version"] if isinstance(row, dict) else row[0]
    return value or 0


def first_line(error):
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
