"""SQLite, the embedded default: one file, WAL, one writer at a time.

Everything that is SQLite's own lives here: the connection's PRAGMAs, how a
transaction begins, which errors mean busy or full, how migrations are
applied (store/migrate.py chooses them), and the start-up check of the
file. store/db.py picks this backend for a FLASK_DATABASE that is a path.
"""

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from content_publishing.store import migrate
from content_publishing.store.versions import MigrationError, SchemaTooNew

PROGRESS_STEPS = 2000  # virtual machine steps between looks at a time limit's clock


# The FTS5 rowid of a post is its owner's id times OWNER_SPAN plus the
# post's own rowid (the triggers of migrations/sqlite/*_search_by_owner.sql
# write the same), so that each owner's entries are one range of rowids,
# which a search seeks to: another owner's matches are never read. It holds
# while workspace ids stay below 2^23 and rowids below 2^40.
OWNER_SPAN = 1 << 40


def _match(terms):
    """The FTS5 query of every word (store/search.Terms), each a quoted
    token, so that nothing of FTS5's query language is read in it; the
    prefix, if any, a quoted token followed by `*`, FTS5's prefix query."""
    quoted = ['"' + word.replace('"', '""') + '"' for word in terms.whole]
    if terms.prefix:
        quoted.append('"' + terms.prefix.replace('"', '""') + '"*')
    return " ".join(quoted)


def _owned(workspace_id):
    """The first and last FTS5 rowid of the owner's posts."""
    first = int(workspace_id) * OWNER_SPAN
    return first, first + OWNER_SPAN - 1


class Dialect:
    """The SQL fragments that differ from PostgreSQL's."""

    # BEGIN IMMEDIATE holds the database's write lock: a plain read suffices.
    for_update = ""
    for_share = ""
    skip_locked = ""
    # ASC puts NULLs first in SQLite: soonest first, unscheduled last.
    scheduled_order = "scheduled_at IS NULL, scheduled_at, id"

    # The owner's clause beside a search led by the text index: plain
    # `workspace_id = ?` would let SQLite walk all of the owner's posts by their
    # index and test each against the matches. The unary + keeps it out.
    search_owner = "+workspace_id = ?"

    @staticmethod
    def count_matches(workspace_id, terms, filters, params, cap):
        """(SQL, parameters) counting the owner's posts that hold every word
        and pass `filters`, up to `cap`: read from the owner's range of the
        FTS5 index posts_search, each match joined to its post only when
        there are filters, and stopped at `cap`."""
        first, last = _owned(workspace_id)
        if not filters:
            return (
                "SELECT count(*) FROM (SELECT 1 FROM posts_search WHERE posts_search MATCH ?"
                " AND rowid BETWEEN ? AND ? LIMIT ?) found",
                [_match(terms), first, last, cap],
            )
        return (
            "SELECT count(*) FROM (SELECT 1 FROM posts_search CROSS JOIN posts"
            " ON posts.rowid = posts_search.rowid - ? WHERE posts_search MATCH ?"
            f" AND posts_search.rowid BETWEEN ? AND ? AND {' AND '.join(filters)} LIMIT ?) found",
            [first, _match(terms), first, last, *params, cap],
        )

    @staticmethod
    def matched(workspace_id, terms):
        """(WHERE fragment, parameters): the owner's posts that hold every
        word, read from the owner's range of the FTS5 index."""
        first, last = _owned(workspace_id)
        return (
            "rowid IN (SELECT rowid - ? FROM posts_search WHERE posts_search MATCH ?"
            " AND rowid BETWEEN ? AND ?)",
            [first, _match(terms), first, last],
        )

    @staticmethod
    def walk(columns, condition, order, workspace_id, terms):
        """(SQL, parameters) of a walk (store/search.py): the first `?`
        rows of posts matching `condition` in `order`, numbered (n), and of
        them the `?` after the first `?` that hold every word. Parameters:
        the condition's, the rows to read, these, the limit and offset.

        The words are looked up once for the rows read, in the FTS5 range
        from their least to their greatest rowid, rather than row by row: a
        lookup reads every segment of the index, and one per row cost 0.3 ms
        each on an index built by the triggers a thousand posts at a time.
        Rows come in rowid order as they are created, so for the newest
        first the range holds the rows read and little else."""
        first = _owned(workspace_id)[0]
        return (
            f"WITH walked AS MATERIALIZED (SELECT ordered.*, row_number() OVER (ORDER BY {order})"
            f" AS n FROM (SELECT {columns}, rowid AS post_rowid FROM posts WHERE {condition}"
            f" ORDER BY {order} LIMIT ?) ordered) SELECT {columns}, n FROM walked"
            " WHERE post_rowid + ? IN (SELECT rowid FROM posts_search WHERE posts_search MATCH ?"
            " AND rowid BETWEEN ? + (SELECT min(post_rowid) FROM walked)"
            " AND ? + (SELECT max(post_rowid) FROM walked)) ORDER BY n LIMIT ? OFFSET ?",
            [first, _match(terms), first, first],
        )


class Backend:
    name = "sqlite"
    dialect = Dialect()
    errors = (sqlite3.Error,)

    def __init__(self, config):
        self.config = config  # read at each connect: tests change settings on a live app
        self.path = config["DATABASE"]

    def connect(self):
        """A connection configured the way every part of the service expects.

        Autocommit mode (isolation_level=None) so that transactions are only
        the ones we open explicitly."""
        config = self.config
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=True)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(config['SQLITE_BUSY_TIMEOUT_MS'])}")
        conn.execute("PRAGMA foreign_keys = ON")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {config['SQLITE_SYNCHRONOUS']}")
        if config.get("SQLITE_MAX_PAGE_COUNT"):
            conn.execute(f"PRAGMA max_page_count = {int(config['SQLITE_MAX_PAGE_COUNT'])}")
        return conn

    def lost(self, conn):
        return False  # a file does not go away under an open connection

    def usable(self, conn):
        return True

    # --- transactions ------------------------------------------------------------------

    def in_transaction(self, conn):
        return conn.in_transaction

    # The write lock before the first read: a read-then-write can never be
    # overtaken by another writer.
    begin_write_sql = "BEGIN IMMEDIATE"
    begin_read_sql = "BEGIN"  # WAL: one snapshot from the first read on

    defers = False  # no round trips to save; BEGIN IMMEDIATE must lock before the first read
    early_release_sql = None  # a commit is on disk before the write lock goes (synchronous=FULL)

    def send(self, conn, batch):
        """Run `batch`, a list of (sql, params, many), in turn; the cursor of
        each (None for a many)."""
        cursors = []
        for sql, params, many in batch:
            if many:
                conn.executemany(sql, params)
                cursors.append(None)
            else:
                cursors.append(conn.execute(sql, params))
        return cursors

    def size(self, conn):
        """The file and its -wal file, where recent writes wait for a checkpoint."""
        if self.path == ":memory:":
            return 0
        return sum(
            os.path.getsize(path)
            for path in (self.path, f"{self.path}-wal")
            if os.path.exists(path)
        )

    @contextlib.contextmanager
    def time_limit(self, conn, milliseconds, send_later):
        """Interrupt what runs on `conn` inside, in all, after `milliseconds`
        (a progress handler, asked every few thousand steps of SQLite's
        machine); the statement that runs over fails (is_timed_out)."""
        deadline = time.monotonic() + milliseconds / 1000
        conn.set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_STEPS)
        try:
            yield
        finally:
            conn.set_progress_handler(None, 0)

    # --- errors ---------------------------------------------------------------------

    def is_timed_out(self, error):
        return isinstance(error, sqlite3.OperationalError) and str(error) == "interrupted"

    def is_storage_full(self, error):
        return isinstance(error, sqlite3.OperationalError) and (
            getattr(error, "sqlite_errorname", "") == "SQLITE_FULL"
            or "database or disk is full" in str(error)
        )

    def is_busy(self, error):
        """Another writer held the lock for longer than the busy timeout."""
        return isinstance(error, sqlite3.OperationalError) and (
            getattr(error, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")
            or "database is locked" in str(error)
        )

    def is_unique_violation(self, error):
        return isinstance(error, sqlite3.IntegrityError) and "UNIQUE" in str(error)

    # --- schema ------------------------------------------------------------------------

    def init_schema(self, conn, version):
        """Bring the database to schema `version`: (version found, [migrations
        applied]).

        Every worker runs this when it starts: on a current database it costs
        one read of the version. Otherwise the version is read again under the
        write lock, so that the first worker migrates and the others find the
        work done. Migrations run with foreign keys off, as SQLite's procedure
        for changing a table's constraints asks; the keys are checked before
        the commit.
        """
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        if found == version:
            return found, []
        if found > version:
            raise SchemaTooNew(found, version)
        conn.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction, so first
        conn.execute("BEGIN IMMEDIATE")
        try:
            found = conn.execute("PRAGMA user_version").fetchone()[0]
            steps = migrate.plan(self.name, found, _present(conn), version)
            for step in steps:
                for statement in [*_statements(step.sql), *self.version_sql(step.version)]:
                    conn.execute(statement)
            broken = conn.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise MigrationError(
                    f"the migration would leave {len(broken)} broken foreign keys"
                    f" (the first in table {broken[0][0]})"
                )
        except BaseException:
            conn.rollback()
            conn.execute("PRAGMA foreign_keys = ON")
            raise
        conn.commit()
        conn.execute("PRAGMA foreign_keys = ON")
        return found, steps

    @staticmethod
    def version_sql(version):
        """The statements that record `version`, in the migration's transaction."""
        return [f"PRAGMA user_version = {int(version)};"]

    def schema_state(self):
        """(version, the service's tables present), read without writing or
        creating anything (`flask migrate --dry-run`)."""
        p = Path(self.path)
        if self.path == ":memory:" or not p.exists() or p.stat().st_size == 0:
            return 0, []
        conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        try:
            return conn.execute("PRAGMA user_version").fetchone()[0], _present(conn)
        finally:
            conn.close()

    def check(self, version, must_exist=False):
        """One line saying why this path cannot hold our database, or None."""
        if self.path == ":memory:":
            return None
        p = Path(self.path)
        directory = p.parent
        if not directory.is_dir():
            return f"database directory {directory} does not exist"
        if p.is_dir():
            return (
                f"database {p} is a directory, not a file: FLASK_DATABASE names the "
                f"SQLite file itself (such as {p / 'publishing.sqlite'})"
            )
        problem = _unusable_file(p) if p.exists() else None
        if problem:
            return problem
        if not os.access(directory, os.W_OK | os.X_OK):
            return f"database directory {directory} is not writable (SQLite needs it for the -wal file)"
        if not p.exists():
            return f"database {p.resolve()} does not exist" if must_exist else None
        if p.stat().st_size == 0:  # SQLite takes it as a new database: fine to initialise
            return f"database {p.resolve()} is an empty file (0 bytes)" if must_exist else None
        problem, found = _probe(p, version)
        if problem is None and must_exist and found == 0:
            return f"database {p.resolve()} has no tables"
        return problem

    def describe(self):
        return str(self.path)


def _unusable_file(p):
    """Why the existing path `p` is no SQLite file we can use, or None."""
    if not p.is_file():
        return f"database {p} is not a regular file: FLASK_DATABASE names an SQLite file"
    if not os.access(p, os.R_OK | os.W_OK):
        return f"database file {p} is not readable and writable"
    try:
        with open(p, "rb") as f:
            head = f.read(16)
    except OSError as e:
        return f"database file {p} cannot be read ({e.strerror or e})"
    if head and head != b"SQLite format 3\x00":
        return f"database file {p} is not an SQLite database"
    return None


def _probe(path, version):
    """Read the schema of an existing file through a short read-only
    connection, closed before anything forks: a valid header can still hide a
    damaged file, a schema newer than this code, or one no migration knows.
    (problem, version)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            found = conn.execute("PRAGMA user_version").fetchone()[0]
            present = _present(conn) if found == 0 else []
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        return f"database file {path} is not a usable SQLite database ({e})", None
    try:
        migrate.plan(Backend.name, found, present, version)
    except MigrationError as e:
        return str(e), found
    return None, found


def _present(conn):
    """The service's tables that the database holds."""
    names = sorted(migrate.tables("sqlite"))
    marks = ", ".join("?" * len(names))
    rows = conn.execute(
        f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({marks})", names
    )
    return [row[0] for row in rows]


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
