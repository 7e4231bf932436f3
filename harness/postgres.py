"""Fresh PostgreSQL databases for runs against the second backend.

Each run gets a schema of its own on the test server (TEST_DATABASE_URL,
default the local server's `test` database), named in the URL's
search_path, so runs never see each other's rows and leave nothing behind.
"""

import contextlib
import os
import subprocess
import uuid
from urllib.parse import quote

import psycopg

DEFAULT_URL = "postgresql://127.0.0.1:5432/test"
TABLES = (  # children first, so that foreign keys never object; the counts after
    # the rows whose triggers keep them
    "sessions",
    "sign_in_links",
    "sign_in_failures",
    "recovery_codes",
    "webhook_attempts",
    "webhook_deliveries",
    "webhook_events",
    "notifications",
    "webhook_endpoints",
    "idempotency_keys",
    "article_idempotency_keys",
    "import_idempotency_keys",
    "linkedin_states",
    "linkedin_connections",
    "hashtag_sets",
    "channels",
    "media_renditions",
    "media",
    "post_history",
    "post_comments",
    "stats_collections",
    "post_stats",
    "post_metrics",
    "channel_queue_holes",
    "posts",
    "articles",
    "content_counts",
    "api_keys",
    "member_invites",
    "members",
    "accounts",
    "workspaces",
)
IDENTITIES = (
    ("workspaces", "id"),
    ("members", "id"),
    ("api_keys", "id"),
    ("webhook_attempts", "id"),
    ("post_history", "id"),
    ("notifications", "id"),
    ("post_comments", "id"),
    ("accounts", "id"),
    ("sessions", "id"),
    ("sign_in_failures", "id"),
)


def base_url():
    return os.environ.get("TEST_DATABASE_URL", DEFAULT_URL)


def reachable(url=None):
    """None when the server answers, else why not (one line)."""
    try:
        with psycopg.connect(url or base_url(), connect_timeout=3):
            return None
    except psycopg.Error as e:
        return str(e).strip().splitlines()[0]


def with_schema(url, schema):
    """`url` whose connections use `schema` (first on their search_path)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


@contextlib.contextmanager
def fresh_database(url=None, prefix="run"):
    """A new empty schema; yields the FLASK_DATABASE URL that uses it, and
    drops it (with everything in it) afterwards."""
    url = url or base_url()
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield with_schema(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def empty(url, connection=None):
    """Delete every row and restart the ids, so a test starts as on a new
    database: one multi-statement string, so one round trip (it runs before
    every PostgreSQL test). On `connection` (autocommit, to `url`'s schema)
    when the caller keeps one: a new connection costs the server more than
    the emptying itself (a process, and catalog caches filled afresh)."""
    statements = [f"DELETE FROM {table}" for table in TABLES] + [
        # setval, not ALTER TABLE ... RESTART: the same next id (1) without
        # an exclusive lock on the table and the catalog change it makes.
        f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), 1, false)"
        for table, column in IDENTITIES
    ]
    sql = "BEGIN; " + "; ".join(statements) + "; COMMIT"
    if connection is not None:
        connection.execute(sql)
        return
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def dump_text(url):
    """Every row of every table as text: to prove what the database does not hold."""
    with psycopg.connect(url, autocommit=True) as conn:
        return "\n".join(
            str(row[0])
            for table in TABLES
            for row in conn.execute(f"SELECT t::text FROM {table} t").fetchall()
        )


def set_schema_version(url, version):
    """Write the schema version (to play a database a newer release has used)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE schema_version SET version = %s", (version,))


def archive(url, path):
    """pg_dump of the URL's schema in custom format, as `flask backup` writes
    one: for archives the service itself would refuse to write (a newer
    schema version)."""
    with psycopg.connect(url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
    subprocess.run(
        ["pg_dump", "--format=custom", f"--schema={schema}", f"--file={path}", f"--dbname={url}"],
        check=True,
        capture_output=True,
    )


def kept_schema(name, url=None):
    """The URL of the schema `name`, created if missing and kept after the
    run: a cache that later runs use again (the bench's growth database)."""
    url = url or base_url()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{name}"')
    return with_schema(url, name)


def drop_schemas(like, keep=None, url=None):
    """Drop the schemas whose names match the LIKE pattern `like`, but `keep`."""
    with psycopg.connect(url or base_url(), autocommit=True) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (like,)
            ).fetchall()
        ]
        for name in names:
            if name != keep:
                conn.execute(f'DROP SCHEMA "{name}" CASCADE')


def post_count(url):
    """Rows in the posts table of the URL's schema (0 if it has none yet)."""
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('posts')").fetchone()[0] is None:
            return 0
        return conn.execute("SELECT COUNT(*) FROM posts").fetchone()[0]


def analyze(url):
    """Fresh planner statistics, as autovacuum would gather them a while
    after a bulk load."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE")
