"""An older database is brought up to date by init-db, keeping every row."""

import sqlite3
from pathlib import Path

import psycopg

from content_publishing.app import create_app
from content_publishing.auth import display_prefix, generate_key, hash_key
from content_publishing.store.versions import SCHEMA_VERSION
from harness.api import POSTS
from tests.conftest import Caller

V1_SCHEMA = Path(__file__).parent / "data" / "schema_v1.sql"
NOW = "2026-01-01T00:00:00.000000Z"


def make_v1_database(path, key):
    """A database as the version-1 code left it: each post status, an idempotency key."""
    conn = sqlite3.connect(path)
    conn.executescript(V1_SCHEMA.read_text())
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO users (id, name, created_at) VALUES (1, 'alice', ?)", (NOW,))
    conn.execute(
        "INSERT INTO api_keys (user_id, key_hash, prefix, scopes, created_at) VALUES (1, ?, ?, ?, ?)",
        (hash_key(key), display_prefix(key), "posts:read posts:write posts:publish", NOW),
    )
    rows = [
        ("00000000-0000-4000-8000-000000000001", "Draft", None, None, None),
        (
            "00000000-0000-4000-8000-000000000002",
            "Scheduled",
            "2026-01-02T00:00:00.000000Z",
            None,
            None,
        ),
        (
            "00000000-0000-4000-8000-000000000003",
            "Failed",
            "2026-01-02T00:00:00.000000Z",
            None,
            "boom",
        ),
        (
            "00000000-0000-4000-8000-000000000004",
            "Published",
            "2026-01-02T00:00:00.000000Z",
            "urn:li:share:4",
            None,
        ),
    ]
    for post_id, status, scheduled, urn, error in rows:
        conn.execute(
            "INSERT INTO posts (id, user_id, type, content, status, scheduled_at, linkedin_post_id,"
            " live_url, last_error, created_at, updated_at, version)"
            " VALUES (?, 1, 'personal', ?, ?, ?, ?, ?, ?, ?, ?, 3)",
            (
                post_id,
                f"{status} post",
                status,
                scheduled,
                urn,
                "https://x.example/p" if urn else None,
                error,
                NOW,
                NOW,
            ),
        )
    conn.execute(
        "INSERT INTO idempotency_keys VALUES (1, 'old-key', 'hash', ?, ?)", (rows[0][0], NOW)
    )
    conn.commit()
    conn.close()
    return [r[0] for r in rows]


def test_init_db_migrates_a_version_1_database(tmp_path):
    path, key = tmp_path / "old.sqlite", generate_key()
    ids = make_v1_database(path, key)
    app = create_app({"DATABASE": str(path)})
    for _ in range(2):  # idempotent
        result = app.test_cli_runner().invoke(args=["init-db"])
        assert result.exit_code == 0, result.output
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"posts_user_created", "posts_handoff_expiry"} <= indexes
    assert "posts_count_update" in triggers
    conn.close()

    api = Caller(app.test_client(), key)
    for post_id, status in zip(ids, ["Draft", "Scheduled", "Failed", "Published"], strict=True):
        post = api.get(f"/functions/v1/api-v2-posts-item/{post_id}").get_json()
        assert (
            post["status"] == status
            and post["version"] == 3
            and post["content"] == f"{status} post"
        )
        assert (post["handoff_id"], post["handoff_count"]) == (None, 0)
    assert api.get("/functions/v1/api-v2-posts?limit=1&offset=1").get_json()["total"] == 4
    claimed = api.post("/functions/v1/api-v2-posts-claim", json={}).get_json()["data"]
    assert [p["id"] for p in claimed] == [ids[1]]  # the Scheduled post was due
    assert (
        api.get("/functions/v1/api-v2-posts?status=Publishing&limit=1&offset=1").get_json()["total"]
        == 1
    )
    # The old idempotency key still names its post, and the post can be deleted with it.
    r = api.client.delete(f"/functions/v1/api-v2-posts-item/{ids[0]}", headers={"X-API-Key": key})
    assert r.status_code == 204


# The search index as versions 7 to 9 made it: the words of every user's
# posts in one index (store/search.py says why version 10 keys it by owner).
SEARCH_V8 = {
    "sqlite": [
        "DROP TRIGGER posts_search_insert",
        "DROP TRIGGER posts_search_update",
        "DROP TRIGGER posts_search_delete",
        "DROP TABLE posts_search",
        "CREATE VIRTUAL TABLE posts_search USING fts5(content, content = 'posts',"
        " content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 0')",
        "CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN"
        " INSERT INTO posts_search (rowid, content) VALUES (new.rowid, new.content); END",
        "CREATE TRIGGER posts_search_update AFTER UPDATE OF content ON posts BEGIN"
        " INSERT INTO posts_search (posts_search, rowid, content)"
        " VALUES ('delete', old.rowid, old.content);"
        " INSERT INTO posts_search (rowid, content) VALUES (new.rowid, new.content); END",
        "CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN"
        " INSERT INTO posts_search (posts_search, rowid, content)"
        " VALUES ('delete', old.rowid, old.content); END",
        "INSERT INTO posts_search (posts_search) VALUES ('rebuild')",
        "PRAGMA user_version = 8",
    ],
    "postgresql": [
        "DROP INDEX posts_search_owned",
        "DROP FUNCTION posts_search_terms",
        "CREATE INDEX posts_search ON posts USING GIN (to_tsvector('simple', content))"
        " WITH (fastupdate = off)",
        "UPDATE schema_version SET version = 8",
    ],
}


def as_version_8(backend, database):
    if backend == "postgresql":
        with psycopg.connect(database, autocommit=True) as conn:
            for statement in SEARCH_V8[backend]:
                conn.execute(statement)
        return
    with sqlite3.connect(database, isolation_level=None) as conn:
        for statement in SEARCH_V8[backend]:
            conn.execute(statement)


def search_index(backend, database):
    """(schema version, the search index's definition)."""
    if backend == "postgresql":
        with psycopg.connect(database) as conn:
            version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            found = conn.execute(
                "SELECT string_agg(indexdef, '; ') FROM pg_indexes"
                " WHERE schemaname = current_schema() AND indexname LIKE 'posts_search%'"
            ).fetchone()[0]
            return version, found
    with sqlite3.connect(database) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        found = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'posts_search'"
        ).fetchone()[0]
        return version, found


def test_init_db_rebuilds_the_search_index_of_a_version_8_database(
    backend, database, app, api, caller, runner
):
    """The posts there are found after the upgrade, each by its owner only,
    and the new index is kept as posts are added, changed and deleted."""
    bob = caller("bob")
    mine = {
        text: api.post(POSTS, json={"type": "personal", "content": text}).get_json()["id"]
        for text in ("Spring launch notes", "Autumn launch", "Nothing to see")
    }
    bob.post(POSTS, json={"type": "personal", "content": "Bob's launch"})
    as_version_8(backend, database)
    assert search_index(backend, database)[0] == 8
    for _ in range(2):  # idempotent
        result = runner.invoke(args=["init-db"])
        assert result.exit_code == 0, result.output
    version, index = search_index(backend, database)
    assert version == SCHEMA_VERSION
    assert "posts_search_terms(user_id, content)" in index or "content = ''" in index, index

    def found(client, words):
        page = client.get(POSTS, query_string={"q": words}).get_json()
        assert page["total"] == len(page["data"]) and page["total_is_estimate"] is False
        return {p["content"] for p in page["data"]}

    assert found(api, "launch") == {"Spring launch notes", "Autumn launch"}
    assert found(bob, "launch") == {"Bob's launch"}
    assert found(api, "bob") == set()
    api.post(POSTS, json={"type": "personal", "content": "Winter launch"})
    api.patch(f"{POSTS}-item/{mine['Autumn launch']}", json={"content": "Autumn release"})
    api.client.delete(f"{POSTS}-item/{mine['Spring launch notes']}", headers={"X-API-Key": api.key})
    assert found(api, "launch") == {"Winter launch"}
    assert found(api, "autumn release") == {"Autumn release"}
    assert api.get(POSTS).get_json()["total"] == 3
