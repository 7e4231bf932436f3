"""Copying an SQLite database into an empty PostgreSQL one (`flask copy-db`).

This is the one piece of the store that holds two connections at once, one
to each backend, so it opens and ends its own transactions on them instead
of using `transaction()`: the source is read in one snapshot (a read
transaction on SQLite; WAL lets the service go on meanwhile), and the whole
target is written in one PostgreSQL transaction that commits only after the
row counts of every table, and the totals of every workspace's lists, agree with
the source. The target's schema is created inside that transaction too, so a
copy that is refused or fails halfway leaves the target exactly as it was.

Rows go over with PostgreSQL's COPY, table by table, parents first. The
per-owner counts behind list totals are not copied but counted again from
the copied rows, then compared with the source's.
"""

import contextlib
import sqlite3

import psycopg

from content_publishing.store import backend_postgres, backend_sqlite
from content_publishing.store.versions import SCHEMA_VERSION, MigrationError

# Every table of the service, parents before the rows that refer to them.
# content_counts is left out: it is counted from the copied rows (_count).
TABLES = (
    "workspaces",
    "accounts",
    "members",
    "member_invites",
    "api_keys",
    "posts",
    "idempotency_keys",
    "articles",
    "article_idempotency_keys",
    "webhook_endpoints",
    "webhook_events",
    "webhook_deliveries",
    "webhook_attempts",
    "channels",
    "linkedin_connections",
    "linkedin_states",
    "import_idempotency_keys",
    "media",
    "media_renditions",
    "post_history",
    "post_comments",
    "post_stats",
    "post_metrics",
    "stats_collections",
    "channel_queue_holes",
    "hashtag_sets",
    "notifications",
    "sessions",
    "sign_in_links",
    "sign_in_failures",
    "recovery_codes",
)
IDENTITY_TABLES = (
    "workspaces",
    "accounts",
    "members",
    "api_keys",
    "webhook_attempts",
    "post_history",
    "post_comments",
    "notifications",
    "sessions",
    "sign_in_failures",
)  # ids the target must go on from
COUNTS = "SELECT workspace_id, kind, status, {total} AS n FROM content_counts GROUP BY workspace_id, kind, status"


COUNTED = ("posts", "articles")  # the tables whose triggers keep content_counts


class CopyRefused(Exception):
    """The copy cannot start or did not check out; nothing was written."""


def copy_database(source_config, target_config, progress=None, starting=None):
    """Copy every row of the SQLite database of `source_config` into the
    PostgreSQL database of `target_config`, which must hold none of ours.

    starting() is called once both databases passed their checks, and
    progress(table, rows) after each table. Returns {table: rows}.
    Raises CopyRefused with one line saying why when it cannot or did not
    work; the target is then unchanged.
    """
    progress = progress or (lambda table, rows: None)
    source = backend_sqlite.Backend(source_config)
    target = backend_postgres.Backend(target_config)
    problem = source.check(SCHEMA_VERSION, must_exist=True) or target.check(SCHEMA_VERSION)
    if problem:
        raise CopyRefused(problem)
    (starting or (lambda: None))()
    src, dst = source.connect(), target.connect()
    try:
        found = src.execute("PRAGMA user_version").fetchone()[0]
        if found != SCHEMA_VERSION:
            raise CopyRefused(
                f"the source database has schema version {found}, this code writes "
                f"{SCHEMA_VERSION}: run `flask --app app init-db` on it first"
            )
        src.execute("BEGIN")  # one snapshot of the source, from its first read on
        dst.execute("BEGIN")
        try:
            dst.execute(
                backend_postgres.INIT_LOCK_SQL,
                (backend_postgres.INIT_LOCK, backend_postgres.current_schema(dst)),
            )
            _refuse_if_not_empty(dst)
            backend_postgres.migrate(dst, SCHEMA_VERSION)  # rolled back with the rest
            for table in COUNTED:
                dst.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")  # see _count
            copied = {}
            for table in TABLES:
                copied[table] = _copy_table(src, dst, table)
                progress(table, copied[table])
            _count(dst)
            for table in COUNTED:
                dst.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
            _restart_identities(dst)
            _check(src, dst, copied)
            dst.execute("ANALYZE")  # statistics for the service's first plans, with the rows
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                dst.execute("ROLLBACK")
            raise
        dst.execute("COMMIT")
        return copied
    except (psycopg.Error, sqlite3.Error) as e:
        raise CopyRefused(f"the copy failed: {backend_postgres.first_line(e)}") from e
    except MigrationError as e:  # made newer by someone else since the check above
        raise CopyRefused(str(e)) from e
    finally:
        src.close()
        dst.close()


def _refuse_if_not_empty(dst):
    """Before anything is created: any of our tables that exists must be empty."""
    for table in (*TABLES, "content_counts"):
        if dst.execute("SELECT to_regclass(%s) IS NULL AS missing", (table,)).fetchone()["missing"]:
            continue
        if dst.execute(f"SELECT EXISTS (SELECT 1 FROM {table}) AS found").fetchone()["found"]:
            raise CopyRefused(
                f"the target already holds data (table {table} is not empty); "
                "copy-db only fills an empty database"
            )


def _columns(src, dst, table):
    """The table's columns, which must be the same on both sides."""
    mine = [row[1] for row in src.execute(f"PRAGMA table_info({table})")]
    theirs = [
        row["column_name"]
        for row in dst.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = %s ORDER BY ordinal_position",
            (table,),
        )
    ]
    if sorted(mine) != sorted(theirs):
        raise CopyRefused(
            f"table {table} has columns {sorted(mine)} in SQLite but {sorted(theirs)} in PostgreSQL"
        )
    return mine


def _copy_table(src, dst, table):
    columns = ", ".join(_columns(src, dst, table))
    rows = 0
    with dst.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in src.execute(f"SELECT {columns} FROM {table}"):
                copy.write_row(tuple(_storable(value) for value in row))
                rows += 1
    return rows


def _storable(value):
    """PostgreSQL's text cannot hold NUL, which SQLite's can; the service never
    stores one in a field it validates, only in a receiver's logged answer."""
    if isinstance(value, str) and "\x00" in value:
        return value.replace("\x00", "\ufffd")
    return value


def _count(dst):
    """content_counts from the copied rows, in one statement each.

    The triggers that keep it are off during the copy: inside one transaction
    every change of a counts row leaves a version that the next change of it
    has to step over, so counting row by row costs time in the square of the
    rows (hours for a million posts). The kinds are the triggers' own
    ('post:' || type, 'article'); _check then compares every total with the
    counts SQLite's triggers kept in the source."""
    dst.execute(
        "INSERT INTO content_counts (workspace_id, kind, status, stripe, n)"
        " SELECT workspace_id, 'post:' || type, status, 0, count(*) FROM posts GROUP BY 1, 2, 3"
    )
    dst.execute(
        "INSERT INTO content_counts (workspace_id, kind, status, stripe, n)"
        " SELECT workspace_id, 'article', status, 0, count(*) FROM articles GROUP BY 1, 2, 3"
    )


def _restart_identities(dst):
    """New workspaces, members, keys and attempts get ids after the copied ones."""
    for table in IDENTITY_TABLES:
        dst.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
            f" coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
        )


def _check(src, dst, copied):
    """Every table has as many rows as the source, and every owner's list
    totals (the counts the triggers built) are the source's."""
    for table, rows in copied.items():
        there = dst.execute(f"SELECT count(*) AS n FROM {table}").fetchone()["n"]
        here = src.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if not here == rows == there:
            raise CopyRefused(
                f"table {table}: {here} rows in the source, {rows} read, {there} in the target"
            )
    mine = {
        tuple(row[:3]): row[3] for row in src.execute(COUNTS.format(total="sum(n)")) if row[3] != 0
    }
    theirs = {
        (row["workspace_id"], row["kind"], row["status"]): row["n"]
        for row in dst.execute(COUNTS.format(total="sum(n)"))
        if row["n"] != 0
    }
    if mine != theirs:
        differ = sorted(set(mine.items()) ^ set(theirs.items()))[:3]
        raise CopyRefused(f"the list totals differ after the copy: {differ}")
