"""Schema changes are numbered migrations: an old database, with rows of
every kind, is brought forward by `flask migrate` to exactly what a new
database is, on both backends, keeping every row.

Each release's schema is a fixture (tests/migration_support.py): SQLite's
versions 1 to the newest, PostgreSQL's from 3, where that backend began. The
comparison reads both databases' catalogs (tables, columns, CHECK and other
constraints, foreign keys, indexes with their conditions and options,
triggers, functions) and every row.
"""

import contextlib
import hashlib
import re
import sqlite3
import threading
from pathlib import Path

import psycopg
import pytest

from content_publishing.app import create_app
from content_publishing.store import migrate
from content_publishing.store.db import backend as backend_of
from content_publishing.store.db import dispose_db, get_db, init_db
from content_publishing.store.versions import SCHEMA_VERSION
from harness import postgres
from harness.api import POSTS
from tests.conftest import BACKENDS, Caller, assert_error, together
from tests.migration_support import (
    ACCOUNTS,
    ALICES_MEDIA,
    ALICES_WEBP,
    DERIVED,
    DISABLED_WHEN_UPGRADING,
    DUPLICATE_ENDPOINT,
    FILLED,
    FUTURE,
    KEY,
    POST,
    RENAMED_TABLES,
    T0,
    URLS_BEFORE_10,
    database,
    fixture_version,
    old_database,
    released,
    rows_for,
)
from tests.system import unavailable


def _cases():
    """Each backend's first and newest released schema in `make test`; the
    releases between them, which take the same steps from further back,
    under `make test-slow`."""
    for backend in BACKENDS:
        names = released(backend)
        for name in names:
            ends = name in (names[0], names[-1])
            marks = () if ends else (pytest.mark.slow,)
            yield pytest.param(backend, name, marks=marks, id=f"{backend}-{name}")


CASES = list(_cases())


def needs(backend):
    """Skip (or fail, under CI) a PostgreSQL case without a server."""
    problem = backend == "postgresql" and postgres.reachable()
    if problem:
        unavailable(f"no PostgreSQL at {postgres.base_url()} ({problem})", "the PostgreSQL tests")


@contextlib.contextmanager
def service(database_url):
    """The app on a database: flask(ARGS) runs `flask --app app ARGS` on it
    (its output; RuntimeError if it fails), api() is alice's HTTP client."""
    app = create_app({"TESTING": True, "DATABASE": database_url})

    def flask(*args):
        result = app.test_cli_runner().invoke(args=list(args))
        if result.exit_code != 0:
            raise RuntimeError(f"flask {' '.join(args)} failed: {result.output}")
        return result.output

    try:
        yield flask, Caller(app.test_client(), KEY)
    finally:
        with app.app_context():
            dispose_db()


def fill(db, version):
    """Put the rows a database of `version` holds; [(table, columns, values
    after migrating)] of each row, columns None for one a migration adds."""
    rows = rows_for(version)
    held = [(table, before, after) for table, before, after in rows if before is not None]
    put = db.put([(table, before, None) for table, before, _ in held])
    put = iter(put)
    found = []  # in the order of ROWS, so that a new database takes parents first
    for table, before, after in rows:
        if before is None:
            found.append((table, None, after))
            continue
        _, columns = next(put)
        if columns is not None:
            filled = [c for c in FILLED.get(table, ()) if c not in columns]
            found.append((table, columns + filled, after))
    return found


def differences(found, expected):
    """The parts of two schema descriptions that differ: {part: (found, expected)}."""
    return {
        key: (found.get(key), expected.get(key))
        for key in sorted(found.keys() | expected.keys())
        if found.get(key) != expected.get(key)
    }


@pytest.mark.parametrize(("backend", "name"), CASES)
def test_each_release_migrates_to_what_a_new_database_is(backend, name, tmp_path):
    needs(backend)
    version = fixture_version(name)
    with (
        database(backend, tmp_path, "old") as (old_url, old),
        database(backend, tmp_path, "new") as (new_url, new),
    ):
        old_database(old, backend, name)
        put = fill(old, version)
        tables_before = old.tables()

        with service(old_url) as (flask, api):
            out = flask("migrate")
            if version < SCHEMA_VERSION:
                assert f"migrated from schema version {version} to {SCHEMA_VERSION}" in out
            else:
                assert f"is at schema version {SCHEMA_VERSION}, this code's: nothing to do" in out
            assert "nothing to do" in flask("migrate")  # a second run finds it done
            same_as_new(old, new_url, new, put, tables_before)
            if backend == "sqlite":
                # rank 1: the index is checked against the posts too, not only in itself
                old.script(
                    "INSERT INTO posts_search (posts_search, rank) VALUES ('integrity-check', 1)"
                )
            answers_as_before(api, version)


def same_as_new(old, new_url, new, put, tables_before):
    """The migrated database `old` and a new one given the same rows have
    the same schema and the same rows; every row put is kept."""
    with service(new_url) as (flask, _):
        flask("init-db")
    new.put([(table, after, columns) for table, columns, after in put])

    assert old.version() == new.version() == SCHEMA_VERSION
    assert differences(old.describe(), new.describe()) == {}
    renamed = {old_name: new_name for new_name, old_name in RENAMED_TABLES.items()}
    assert old.tables() >= {renamed.get(table, table) for table in tables_before}
    for table in sorted(new.tables() - DERIVED):
        assert old.rows(table) == new.rows(table), table
    kept = {}
    for table, columns, after in put:  # every row kept, with what it held
        if columns is None:  # added by a migration: compared with the new database's above
            continue
        if (table, tuple(columns)) not in kept:
            kept[table, tuple(columns)] = old.rows(table, columns)
        assert tuple(after[c] for c in columns) in kept[table, tuple(columns)], (table, after)
    assert old.totals() == new.totals()
    assert old.all("SELECT id FROM key_generation") == [(1,)]


def answers_as_before(api, version):
    """The migrated database serves: alice's key reads her posts (none of
    bob's: nothing moved between workspaces), a search finds the words of
    one, she is her workspace's owner and her posts' author, and the duplicate post.due endpoint an older
    release allowed is the one left disabled."""
    listed = api.get("/functions/v1/api-v2-posts?limit=100")
    assert listed.status_code == 200, listed.get_json()
    mine = [
        after["id"]
        for table, _, after in rows_for(version)
        if table == "posts" and after["workspace_id"] == 1
    ]
    assert sorted(p["id"] for p in listed.get_json()["data"]) == sorted(mine)
    assert listed.get_json()["total"] == len(mine)
    found = api.get("/functions/v1/api-v2-posts?q=evergreen").get_json()["data"]
    assert [p["id"] for p in found] == [POST(1)]
    # alice is a workspace of her id and name now, its owner, and her posts' author
    me = api.get("/functions/v1/me").get_json()
    assert me["workspace"] == {"id": 1, "name": "alice", "created_at": T0}
    assert me["member"] == {"id": 1, "name": "alice", "email": None, "role": "owner"}
    assert {p["author"]["name"] for p in listed.get_json()["data"]} == {"alice"}
    if version >= 3:
        hooks = api.get("/functions/v1/webhooks").get_json()["data"]
        second = next(h for h in hooks if h["id"] == DUPLICATE_ENDPOINT)
        assert (second["enabled"], second["disabled_reason"]) == (False, DISABLED_WHEN_UPGRADING)


# --- what `flask migrate` and `init-db` promise besides -------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_dry_run_prints_each_migration_with_its_sql_and_changes_nothing(backend, tmp_path):
    needs(backend)
    with database(backend, tmp_path, "old") as (url, db):
        old_database(db, backend, "v5")
        fill(db, 5)
        before = (db.describe(), {table: db.rows(table) for table in db.tables()})
        file_before = (
            hashlib.sha256(Path(url).read_bytes()).hexdigest() if backend == "sqlite" else None
        )

        with service(url) as (flask, _):
            out = flask("migrate", "--dry-run")

        assert f"is at schema version 5; this code's is {SCHEMA_VERSION}" in out
        versions = [
            int(v) for v in re.findall(r"^-- \d{4}_\w+\.sql: schema version (\d+)$", out, re.M)
        ]
        assert versions == list(range(6, SCHEMA_VERSION + 1))
        assert "ALTER TABLE webhook_endpoints ADD COLUMN auth_header_name TEXT;" in out
        for version in versions:
            assert (
                f"PRAGMA user_version = {version};"
                if backend == "sqlite"
                else f"INSERT INTO schema_version (version) VALUES ({version});"
            ) in out
        assert "0005_planning.sql" not in out and "0008_baseline.sql" not in out
        assert out.rstrip().endswith("Nothing was changed (--dry-run).")
        assert db.version() == 5
        assert (db.describe(), {table: db.rows(table) for table in db.tables()}) == before
        if backend == "sqlite":
            assert hashlib.sha256(Path(url).read_bytes()).hexdigest() == file_before


def test_dry_run_on_a_new_sqlite_file_shows_the_baseline_and_creates_nothing(tmp_path):
    path = tmp_path / "new.sqlite"
    with service(str(path)) as (flask, _):
        out = flask("migrate", "--dry-run")
    assert f"is at schema version 0; this code's is {SCHEMA_VERSION}" in out
    assert "-- 0008_baseline.sql: schema version 8" in out
    assert "CREATE TABLE posts (" in out
    assert not path.exists()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_database_is_created_whole_then_has_nothing_to_migrate(backend, tmp_path):
    needs(backend)
    with database(backend, tmp_path, "new") as (url, db), service(url) as (flask, _):
        assert f"created at schema version {SCHEMA_VERSION} (0008_baseline.sql" in flask("init-db")
        out = flask("migrate", "--dry-run")
        assert f"is at schema version {SCHEMA_VERSION}, this code's: nothing to do." in out
        assert "Database ready" in flask("init-db") and db.version() == SCHEMA_VERSION


def test_a_migration_that_fails_on_sqlite_leaves_the_database_as_it_was(tmp_path):
    """A version-1 file whose idempotency key names a post that is gone (made
    with foreign keys off): the rebuild of posts would keep a broken key, so
    nothing of the seven steps is kept, and the old release still works."""
    with database("sqlite", tmp_path, "old") as (url, db):
        old_database(db, "sqlite", "v1")
        fill(db, 1)
        db.conn.execute("PRAGMA foreign_keys = OFF")
        db.conn.execute(
            "INSERT INTO idempotency_keys VALUES (1, 'lost', 'h', 'no-such-post', ?)", (POST(1),)
        )
        before = (db.describe(), {table: db.rows(table) for table in db.tables()})
        with service(url) as (flask, _), pytest.raises(RuntimeError) as failed:
            flask("migrate")
        assert "the migration would leave 1 broken foreign keys (the first in table" in str(
            failed.value
        )
        assert "Nothing was changed" in str(failed.value)
        assert db.version() == 1
        assert (db.describe(), {table: db.rows(table) for table in db.tables()}) == before


def test_a_migration_that_fails_on_postgresql_leaves_the_database_as_it_was(tmp_path):
    """A version-3 schema whose posts table another session holds a lock on:
    migration 0005 waits past the lock timeout and fails, and 0004 (which
    disabled a duplicate endpoint and added an index) is not kept either."""
    needs("postgresql")
    with database("postgresql", tmp_path, "old") as (url, db):
        old_database(db, "postgresql", "v3")
        fill(db, 3)
        before = (db.describe(), {table: db.rows(table) for table in db.tables()})
        with psycopg.connect(url) as holder:
            holder.execute("SELECT 1 FROM posts LIMIT 1")  # holds posts until it ends
            app = create_app({"TESTING": True, "DATABASE": url, "SQLITE_BUSY_TIMEOUT_MS": 200})
            result = app.test_cli_runner().invoke(args=["migrate"])
            with app.app_context():
                dispose_db()
        assert result.exit_code == 1
        assert (
            "the migration failed (canceling statement due to lock timeout). Nothing was changed."
            in result.output
        )
        assert db.version() == 3
        assert (db.describe(), {table: db.rows(table) for table in db.tables()}) == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_database_newer_than_the_code_is_refused(backend, tmp_path):
    needs(backend)
    with database(backend, tmp_path, "newer") as (url, db):
        with service(url) as (flask, _):
            flask("init-db")
        db.set_version(SCHEMA_VERSION + 1)
        for args in (["migrate"], ["migrate", "--dry-run"], ["init-db"]):
            with service(url) as (flask, _), pytest.raises(RuntimeError) as refused:
                flask(*args)
            assert (
                f"database schema version {SCHEMA_VERSION + 1} is newer than this code"
                f" ({SCHEMA_VERSION}): run the release that wrote it, or a newer one"
            ) in str(refused.value)
        assert db.version() == SCHEMA_VERSION + 1


def test_tables_without_a_schema_version_are_not_taken_for_a_new_database(tmp_path):
    path = tmp_path / "foreign.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE posts (id TEXT PRIMARY KEY)")
    with service(str(path)) as (flask, _), pytest.raises(RuntimeError) as refused:
        flask("init-db")
    assert "has no schema version but holds tables of this service (posts)" in str(refused.value)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == [
            ("posts",)
        ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_workers_starting_together_on_an_old_database_migrate_it_once(backend, tmp_path):
    """Each gunicorn worker runs init_db as it starts: on an old database the
    first to take the lock migrates and the others find the work done."""
    needs(backend)
    with database(backend, tmp_path, "old") as (url, db):
        oldest = released(backend)[0]
        old_database(db, backend, oldest)
        fill(db, fixture_version(oldest))
        start = threading.Barrier(4, timeout=60)
        # Made first, one by one, as each gunicorn worker makes its own in a
        # process of its own: what the threads race is init_db alone.
        apps = [create_app({"TESTING": True, "DATABASE": url}) for _ in range(4)]

        def worker(i):
            try:
                with apps[i].app_context():
                    start.wait()
                    try:
                        return init_db()
                    finally:
                        dispose_db()
            except BaseException:
                start.abort()  # the others stop waiting for a worker that will never come
                raise

        results = together(worker, 4)
        assert sorted(len(steps) for _, steps in results) == [
            0,
            0,
            0,
            SCHEMA_VERSION - fixture_version(oldest),
        ]
        assert db.version() == SCHEMA_VERSION


def test_each_backend_has_a_migration_to_every_version_from_its_first_release():
    """Adding a schema change means a file for each backend: a version one
    of them lacks would stop every database of that backend at start."""
    for backend in BACKENDS:
        firsts = {fixture_version(name) for name in released(backend)}
        for found in [0, *sorted(firsts)]:
            steps = migrate.plan(backend, found, [])
            assert steps[-1].version == SCHEMA_VERSION if steps else found == SCHEMA_VERSION
        assert [m.version for m in migrate.migrations(backend) if not m.baseline] == list(
            range(min(firsts) + 1, SCHEMA_VERSION + 1)
        )


class Recording:
    """A connection that notes each statement sent through it."""

    def __init__(self, conn):
        self.conn, self.sent = conn, []

    def execute(self, sql, *args):
        self.sent.append(sql)
        return self.conn.execute(sql, *args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_worker_start_on_a_current_database_reads_the_version_and_nothing_else(backend, tmp_path):
    """Every gunicorn worker runs init_db as it starts: on a current database
    that is one read, with no transaction, lock or schema statement."""
    needs(backend)
    with database(backend, tmp_path, "current") as (url, _):
        app = create_app({"TESTING": True, "DATABASE": url})
        with app.app_context():
            assert init_db()[1]  # made it
            recording = Recording(get_db())
            assert backend_of().init_schema(recording, SCHEMA_VERSION) == (SCHEMA_VERSION, [])
            dispose_db()
        assert recording.sent == [
            "PRAGMA user_version"
            if backend == "sqlite"
            else "SELECT max(version) AS version FROM schema_version"
        ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_brand_post_of_brand_id_personal_counts_for_the_personal_channel_after(backend, tmp_path):
    """Version 10 and earlier let a brand post take brand_id `personal`: it was queued on
    the personal channel's lock and went out as its author, but the guards
    did not count it. After the migration to 11 (a personal post now, see
    EARLIER) the personal channel's daily_cap counts it."""
    needs(backend)
    with database(backend, tmp_path, "v8") as (url, db):
        old_database(db, backend, "v8")
        fill(db, 8)
        personal = {
            "workspace_id": 1,
            "id": "personal",
            "type": "personal",
            "name": "Me",
            "author_urn": "urn:li:person:me",
            "timezone": "UTC",
            "slots": "[]",
            "min_gap_minutes": 0,
            "daily_cap": 2,  # POST(6) is planned that day too: the cap holds only with POST(8)
            "created_at": T0,
            "updated_at": T0,
        }
        db.put([("channels", personal, None)])
        with service(url) as (flask, api):
            flask("migrate")
            legacy = api.get(f"/functions/v1/api-v2-posts-item/{POST(8)}").get_json()
            assert (legacy["type"], legacy["brand_id"], legacy["status"]) == (
                "personal",
                None,
                "Scheduled",
            )
            history = api.get(f"/functions/v1/api-v2-posts-history/{POST(8)}").get_json()["data"]
            assert [(h["action"], h["key_prefix"]) for h in history] == [("updated", None)]
            later = FUTURE.replace("T00:00", "T00:05")  # not the minute of POST(8): the day
            body = {"type": "personal", "content": "later that day", "scheduled_at": later}
            late = api.post("/functions/v1/api-v2-posts", json=body).get_json()
            refused = api.patch(
                f"/functions/v1/api-v2-posts-item/{late['id']}", json={"status": "Scheduled"}
            )
            error = assert_error(refused, 409, "schedule_conflict")
            assert error["details"]["rule"] == "daily_cap"
            assert error["details"]["conflicting_post_ids"] == [POST(6), POST(8)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_migrated_search_index_is_kept_by_owner(backend, tmp_path):
    """From version 8 (one index of every user's words) on: a search finds
    the caller's posts alone, and the rebuilt index follows new posts,
    edits and deletes."""
    needs(backend)
    with database(backend, tmp_path, "old") as (url, db):
        old_database(db, backend, "v8")
        fill(db, 8)
        with service(url) as (flask, api):
            flask("migrate")

            def found(words):
                page = api.get(POSTS, query_string={"q": words}).get_json()
                assert page["total"] == len(page["data"]) and page["total_is_estimate"] is False
                return {p["id"] for p in page["data"]}

            posts = [after for table, _, after in rows_for(8) if table == "posts"]
            theirs = {p["id"] for p in posts if p["workspace_id"] != 1 and "post" in p["content"]}
            mine = {p["id"] for p in posts if p["workspace_id"] == 1 and "post" in p["content"]}
            assert theirs and mine and found("post") == mine
            new = api.post(POSTS, json={"type": "personal", "content": "Winter launch"})
            assert found("launch") == {new.get_json()["id"]}
            api.patch(f"{POSTS}-item/{POST(1)}", json={"content": "Autumn release"})
            assert found("evergreen") == set() and found("autumn release") == {POST(1)}
            api.client.delete(f"{POSTS}-item/{new.get_json()['id']}", headers={"X-API-Key": KEY})
            assert found("launch") == set()


@pytest.mark.parametrize("backend", BACKENDS)
def test_posts_saved_with_the_librarys_urls_show_them_at_the_address_in_force(backend, tmp_path):
    """A post saved before version 10 held its library media as absolute
    URLs, built from whatever FLASK_PUBLIC_URL was then (port 8000 by
    default). Migrated, it keeps them by id: they show at the address in
    force, and a media they name cannot be deleted while the post is
    planned, whichever address the URL had."""
    needs(backend)
    with database(backend, tmp_path, "old") as (url, db):
        old_database(db, backend, "v8")
        fill(db, 8)
        app = create_app({"TESTING": True, "DATABASE": url, "PUBLIC_URL": "https://cps.example"})
        app.test_cli_runner().invoke(args=["migrate"])
        api = Caller(app.test_client(), KEY)
        try:
            post = api.get(f"{POSTS}-item/{POST(7)}").get_json()
            assert post["media_urls"] == [
                f"https://cps.example/media/{ALICES_MEDIA}.png",
                URLS_BEFORE_10[1],
                f"https://cps.example/media/{ALICES_WEBP}.webp",
                *URLS_BEFORE_10[3:],  # bob's media, and a URL with a query: as they were
            ]
            assert post["media_alt"] == [None] * 5
            r = api.patch(
                f"{POSTS}-item/{POST(7)}",
                json={"status": "Scheduled", "scheduled_at": "2099-06-01T09:00:00Z"},
            )
            assert r.status_code == 200, r.get_json()
            gone = api.client.delete(
                f"/functions/v1/media-item/{ALICES_WEBP}", headers={"X-API-Key": KEY}
            )
            assert gone.status_code == 409 and gone.get_json()["error"]["details"]["post_ids"] == [
                POST(7)
            ]
        finally:
            with app.app_context():
                dispose_db()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_personal_channel_becomes_the_first_owners_and_every_post_keeps_its_channel(
    backend, tmp_path
):
    """From the release before many personal channels (version 18): its one
    personal channel becomes its first owner's profile, with its slots,
    guards, connection and statistics; every post names the channel the old
    rule found, at the same time, in the same status, with its history; and
    the workspace may now hold a profile for each member."""
    needs(backend)
    with database(backend, tmp_path, "v18") as (url, db):
        old_database(db, backend, "v18")
        fill(db, 18)
        before = {
            post_id: (kind, brand, at, status)
            for post_id, kind, brand, at, status in db.all(
                "SELECT id, type, brand_id, scheduled_at, status FROM posts WHERE workspace_id = 1"
            )
        }
        entries = db.all("SELECT count(*) FROM post_history")[0][0]
        with service(url) as (flask, api):
            flask("migrate")
            after = db.all(
                "SELECT id, channel_id, type, brand_id, scheduled_at, status FROM posts"
                " WHERE workspace_id = 1"
            )
            assert {row[0] for row in after} == set(before)
            for post_id, channel_id, kind, brand, at, status in after:
                assert channel_id == ("personal" if kind == "personal" else brand), post_id
                assert (kind, brand, at, status) == before[post_id]
            assert db.all("SELECT count(*) FROM post_history")[0][0] == entries
            channel = api.get("/functions/v1/channels-item/personal").get_json()
            assert channel["member"] == {"id": 1, "name": "alice", "removed_at": None}
            assert (channel["publisher"], channel["connection"]["status"]) == (
                "linkedin",
                "connected",
            )
            assert channel["connection"]["member_name"] == "Ada Lovelace"
            report = api.get("/functions/v1/analytics?channel=personal&from=2025-12-01").get_json()
            assert report["totals"]["posts"] == 2  # post 3 and the one with media, as before
            carol = api.post(
                "/functions/v1/channels", json={"type": "personal", "name": "Carol", "member_id": 3}
            )
            assert carol.status_code == 201, carol.get_json()
            assert carol.get_json()["id"] != "personal"
            again = api.post(
                "/functions/v1/channels", json={"type": "personal", "name": "Alice again"}
            )
            assert_error(again, 409, "conflict")


@pytest.mark.parametrize("backend", BACKENDS)
def test_after_accounts_a_removed_members_name_is_free_and_every_member_keeps_working(
    backend, tmp_path
):
    """From the release before accounts (version 18) to ACCOUNTS and on:
    every member, key and post stays; a removed member's name may be given
    to a new member, and two members still in may not share one; a member
    with an email signs in by a printed link, which makes their account."""
    needs(backend)
    assert ACCOUNTS <= SCHEMA_VERSION
    with database(backend, tmp_path, "v18") as (url, db):
        old_database(db, backend, "v18")
        fill(db, 18)
        members_before = db.all("SELECT id, name, role FROM members ORDER BY id")
        with service(url) as (flask, api):
            flask("migrate")
            assert db.all("SELECT id, name, role FROM members ORDER BY id") == members_before
            assert db.all("SELECT count(*) FROM accounts") == [(0,)]
            assert api.get("/functions/v1/me").get_json()["member"]["name"] == "alice"
            listed = api.get("/functions/v1/members").get_json()["data"]
            carol = next(m for m in listed if m["name"] == "carol")
            flask("members", "remove", str(carol["id"]))  # alice's key lacks members:manage
            add = ("members", "add", "--workspace", "alice", "--name", "carol", "--role", "viewer")
            flask(*add)
            with pytest.raises(RuntimeError, match="already"):
                flask(*add)  # two members still in never share a name
            names = [m["name"] for m in api.get("/functions/v1/members").get_json()["data"]]
            assert names.count("carol") == 2
            flask(
                "members",
                "add",
                "--workspace",
                "alice",
                "--name",
                "dora",
                "--role",
                "editor",
                "--email",
                "dora@example.com",
            )
            printed = flask("accounts", "link", "dora@example.com")
            token = printed.strip().rsplit("#/link/", 1)[1]
            used = api.client.post("/functions/v1/session-link-use", json={"token": token})
            assert used.status_code == 201, used.get_json()
            assert db.all("SELECT email FROM accounts") == [("dora@example.com",)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_after_version_23_every_channel_follows_the_workspace_and_no_post_has_an_intent(
    backend, tmp_path
):
    """The migration to 23 changes no rule: each channel's approvals follow
    the workspace's, no post waits to be scheduled on its approval, and the
    workspace shows each browser's own time zone and tells its chat of every
    event, as before."""
    needs(backend)
    name = released(backend)[-1]
    with database(backend, tmp_path, name) as (url, db):
        old_database(db, backend, name)
        fill(db, fixture_version(name))
        with service(url) as (flask, api):
            flask("migrate")
            assert {r[0] for r in db.all("SELECT approvals FROM channels")} == {"workspace"}
            assert db.all(
                "SELECT count(*) FROM posts WHERE intended_at IS NOT NULL OR queue_on_approval <> 0"
            ) == [(0,)]
            space = api.get("/functions/v1/workspace").get_json()
            assert (space["timezone"], space["chat_events"]) == (None, None)
            for post in api.get(f"{POSTS}?limit=100").get_json()["data"]:
                assert post["intent"] is None, post["id"]
