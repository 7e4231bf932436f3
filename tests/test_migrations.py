"""An older database is brought up to date by init-db, keeping every row."""

import contextlib
import sqlite3
from pathlib import Path

import psycopg

from content_publishing.app import create_app
from content_publishing.auth import display_prefix, generate_key, hash_key
from content_publishing.store.versions import SCHEMA_VERSION
from harness.api import CHANNELS, HISTORY, ITEM, POSTS
from tests.conftest import Caller, assert_error

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


# --- version 8 -> 9: one channel rule ------------------------------------------------

# What version 9 added, taken away again: a database as version 8 left it.
AS_VERSION_8 = {
    "sqlite": [
        "DROP TRIGGER posts_queue_hole_update",
        "DROP TRIGGER posts_queue_hole_delete",
        "DROP TABLE channel_queue_holes",
        "DROP INDEX posts_channel_plan",
        "ALTER TABLE channels DROP COLUMN queue_full_until",
        "CREATE INDEX posts_channel_planned ON posts (user_id, type, brand_id, scheduled_at)"
        " WHERE status IN ('Scheduled', 'Publishing', 'Published')",
        "PRAGMA user_version = 8",
    ],
    "postgresql": [
        "DROP TRIGGER posts_queue_hole_update ON posts",
        "DROP TRIGGER posts_queue_hole_delete ON posts",
        "DROP FUNCTION posts_queue_hole",
        "DROP TABLE channel_queue_holes",
        "DROP INDEX posts_channel_plan",
        "ALTER TABLE channels DROP COLUMN queue_full_until",
        "CREATE INDEX posts_channel_planned ON posts (user_id, type, brand_id, scheduled_at)"
        " WHERE status IN ('Scheduled', 'Publishing', 'Published')",
        "UPDATE schema_version SET version = 8",
    ],
}
LEGACY = [  # brand posts whose brand_id is `personal`, as version 8 accepted them
    ("00000000-0000-4000-8000-00000000000a", "Scheduled", "2031-05-05T09:00:00.000000Z"),
    ("00000000-0000-4000-8000-00000000000b", "Draft", None),
]


def run_sql(backend, database, statements):
    if backend == "postgresql":
        with psycopg.connect(database, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement.replace("?", "%s"))
        return
    conn = sqlite3.connect(database, isolation_level=None)
    for statement in statements:
        conn.execute(statement)
    conn.close()


def test_brand_posts_with_brand_id_personal_become_personal_posts(app, api, backend, database):
    """Version 8 let a brand post take brand_id `personal`: it was queued on
    the personal channel's lock and went out as its author, but the guards
    did not count it. Version 9 makes each such post the personal post it
    behaved as, with a history entry, and the channel's guards count it."""
    channel = {"type": "personal", "name": "Me", "daily_cap": 1, "author_urn": "urn:li:person:me"}
    assert api.post(CHANNELS, json=channel).status_code == 201
    acme = api.post(
        POSTS, json={"type": "brand", "brand_id": "acme", "content": "acme's own"}
    ).get_json()
    run_sql(backend, database, AS_VERSION_8[backend])
    user_id = _user_id(backend, database)
    run_sql(
        backend,
        database,
        [
            "INSERT INTO posts (id, user_id, type, brand_id, content, status, scheduled_at,"
            f" created_at, updated_at, version) VALUES ('{post_id}', {user_id}, 'brand',"
            f" 'personal', 'legacy {status}', '{status}', {repr(at) if at else 'NULL'},"
            f" '{NOW}', '{NOW}', 2)"
            for post_id, status, at in LEGACY
        ],
    )
    assert api.get(f"{POSTS}?type=brand&limit=1").get_json()["total"] == 3

    result = app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output

    for (post_id, status, at), legacy in zip(LEGACY, ("Scheduled", "Draft"), strict=True):
        post = api.get(ITEM + post_id).get_json()
        assert (post["type"], post["brand_id"], post["status"]) == ("personal", None, status)
        assert post["scheduled_at"] == at and post["content"] == f"legacy {legacy}"
        assert post["version"] == 3 and post["updated_at"] > NOW
        history = api.get(HISTORY + post_id).get_json()["data"]
        assert [(h["action"], h["fields"], h["key_prefix"]) for h in history] == [
            ("updated", ["type", "brand_id"], None)
        ]
        assert 'brand_id "personal"' in history[0]["detail"]
    assert api.get(ITEM + acme["id"]).get_json() == acme
    assert api.get(f"{POSTS}?type=brand&limit=1").get_json()["total"] == 1
    assert api.get(f"{POSTS}?type=personal&limit=1").get_json()["total"] == 2

    # The personal channel's daily_cap of 1 now counts the migrated post.
    late = api.post(
        POSTS,
        json={"type": "personal", "content": "late", "scheduled_at": "2031-05-05T18:00:00Z"},
    ).get_json()
    error = assert_error(
        api.patch(ITEM + late["id"], json={"status": "Scheduled"}), 409, "schedule_conflict"
    )
    assert error["details"]["rule"] == "daily_cap"
    assert error["details"]["conflicting_post_ids"] == [LEGACY[0][0]]


def _user_id(backend, database):
    sql = "SELECT id FROM users WHERE name = 'alice'"
    if backend == "postgresql":
        with psycopg.connect(database) as conn:
            return conn.execute(sql).fetchone()[0]
    with contextlib.closing(sqlite3.connect(database)) as conn:
        return conn.execute(sql).fetchone()[0]
