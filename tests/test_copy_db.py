"""`flask copy-db`: an SQLite database with every kind of row, copied into an
empty PostgreSQL database, answers the API exactly as the original does.

The source is filled through the API (and one real dispatcher run, for the
delivery log), then both databases are served side by side and every list
page, filter and item of two users is compared as JSON, with its ETag."""

import sqlite3
import time
import uuid
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from cryptography.fernet import Fernet

from content_publishing.app import create_app
from content_publishing.auth import SCOPES
from content_publishing.store.db import dispose_db, init_db
from harness import Answer, Dispatcher, Receiver, postgres
from harness.api import API, DELIVERIES
from tests.conftest import assert_error
from tests.system import unavailable

POSTS, ITEM = f"{API}/api-v2-posts", f"{API}/api-v2-posts-item/"
CLAIM, CALLBACK = f"{API}/api-v2-posts-claim", f"{API}/make-post-callback"
ARTICLES, ARTICLE = f"{API}/articles-api", f"{API}/articles-api-item/"
HOOKS, HOOK = f"{API}/webhooks", f"{API}/webhooks-item/"
STATS, ANALYTICS = f"{API}/api-v2-posts-stats", f"{API}/analytics"
TODAY = datetime.now(UTC).date()
RANGE = f"from={TODAY - timedelta(days=30)}&to={TODAY + timedelta(days=1)}"

SECRETS_KEY = Fernet.generate_key().decode()
CONFIG = {
    "TESTING": True,
    "SCHEDULE_MIN_LEAD_SECONDS": -(10**9),  # due posts can be scheduled in the past
    "WEBHOOK_ALLOW_PRIVATE": True,
    "SECRETS_KEY": SECRETS_KEY,
}


@pytest.fixture
def target_url():
    problem = postgres.reachable()
    if problem:
        unavailable(f"no PostgreSQL at {postgres.base_url()} ({problem})", "the copy-db tests")
    with postgres.fresh_database(prefix="copy") as url:
        yield url


def make_app(database):
    app = create_app({**CONFIG, "DATABASE": database})
    with app.app_context():
        init_db()
        dispose_db()
    return app


def new_key(app, user, scopes=SCOPES):
    args = ["keys", "create", "--user", user]
    for scope in scopes:
        args += ["--scope", scope]
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


class As:
    """One key's requests through a test client."""

    def __init__(self, app, key):
        self.client, self.key = app.test_client(), key

    def send(self, method, path, body=None, headers=None):
        r = self.client.open(
            path, method=method, json=body, headers={"X-API-Key": self.key, **(headers or {})}
        )
        return r

    def ok(self, method, path, body=None, headers=None, status=(200, 201, 202, 204)):
        r = self.send(method, path, body, headers)
        assert r.status_code in status, r.get_data(as_text=True)
        return r.get_json()


def fill(app, user, receiver):
    """Every kind of row for `user`: (key, a revoked key, the current webhook secret)."""
    key = new_key(app, user)
    revoked = new_key(app, user, ["posts:read"])
    result = app.test_cli_runner().invoke(args=["keys", "revoke", revoked])
    assert result.exit_code == 0, result.output
    me = As(app, key)

    events = ["post.published", "post.failed", "article.published"]
    hook = me.ok("POST", HOOKS, {"url": receiver.url, "events": events})
    rotated = me.ok("PATCH", HOOK + hook["id"], {"rotate_secret": True})
    receiver.secrets += [hook["secret"], rotated["secret"]]
    off = me.ok("POST", HOOKS, {"url": receiver.url, "events": events, "description": "off"})
    me.ok("PATCH", HOOK + off["id"], {"enabled": False})

    def post(content, **fields):
        return me.ok("POST", POSTS, {"type": "personal", "content": content, **fields})

    def schedule(content, minute):
        created = post(content, scheduled_at=f"2026-01-01T00:{minute:02d}:00Z")
        return me.ok("PATCH", ITEM + created["id"], {"status": "Scheduled"})

    post("a draft, with media", media_urls=["https://media-exp1.licdn.com/dms/image/a.jpg"])
    post("a brand draft", type="brand", brand_id="acme-corp")
    me.ok("POST", POSTS, {"type": "personal", "content": "once"}, {"Idempotency-Key": "k-1"})
    me.ok("PATCH", ITEM + post("edited twice")["id"], {"content": "edited once more"})
    me.ok("DELETE", ITEM + post("deleted")["id"])

    for minute in range(4):
        schedule(f"to claim {minute}", minute)
    claimed = me.ok("POST", CLAIM, {"limit": 4, "lease_seconds": 3600})["data"]
    assert [p["content"] for p in claimed] == [f"to claim {m}" for m in range(4)]
    me.ok(  # post.published
        "POST",
        CALLBACK,
        {
            "post_id": claimed[0]["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://www.acme-corp.com/news/launch",
        },
    )
    taken = [datetime.now(UTC) - timedelta(seconds=s) for s in (1, 0)]
    me.ok(  # two snapshots of its figures, and a post that is not Published refused
        "POST",
        STATS,
        {
            "data": [
                {"post_id": claimed[0]["id"], "taken_at": taken[0].isoformat(), "impressions": 90},
                {
                    "post_id": claimed[0]["id"],
                    "taken_at": taken[1].isoformat(),
                    "impressions": 120,
                    "reactions": 6,
                    "clicks": 3,
                },
                {"post_id": claimed[1]["id"], "taken_at": taken[1].isoformat(), "clicks": 1},
            ]
        },
    )
    me.ok("PATCH", ITEM + claimed[1]["id"], {"status": "Failed", "last_error": "token expired"})
    me.ok("PATCH", ITEM + claimed[2]["id"], {"status": "Scheduled"})  # given back, due again
    schedule("its lease runs out", 10)
    (short,) = me.ok("POST", CLAIM, {"limit": 1, "lease_seconds": 1})["data"]
    assert short["id"] == claimed[2]["id"]  # the soonest due post
    me.ok(  # post.published, of a post the lease's expiry would otherwise fail
        "POST",
        CALLBACK,
        {
            "post_id": short["id"],
            "linkedin_post_id": "urn:li:share:2",
            "live_url": "https://cdn.example.com:65535/x",
        },
    )
    (short,) = me.ok("POST", CLAIM, {"limit": 1, "lease_seconds": 1})["data"]
    assert short["content"] == "its lease runs out"  # post.failed when it runs out

    article = me.ok(
        "POST",
        ARTICLES,
        {"title": "Why", "body": "# Notes\n\nbody", "tags": ["a"]},
        {"Idempotency-Key": "art-1"},
    )
    me.ok(  # article.published
        "PATCH",
        ARTICLE + article["id"],
        {"status": "Published", "live_url": "https://bücher.example/why"},
    )
    me.ok("POST", ARTICLES, {"title": "Draft only", "excerpt": "short"})
    schedule("still due", 20)
    return key, revoked, rotated["secret"]


def surface(app, key):
    """Everything the API shows this key: {request: (status, ETag, JSON)}."""
    me = As(app, key)
    seen = {}

    def read(path):
        r = me.send("GET", path)
        seen[path] = (r.status_code, r.headers.get("ETag"), r.get_json())
        return r.get_json()

    for query in (
        "",
        "?limit=2&offset=1",
        "?due=true",
        "?order=scheduled_at",
        "?type=brand",
        "?scheduled_before=2026-06-01T00:00:00Z",
        "?scheduled_after=2026-01-01T00:00:03Z",
        *(f"?status={s}" for s in ("Draft", "Scheduled", "Publishing", "Published", "Failed")),
    ):
        read(f"{POSTS}{query}" + ("&" if query else "?") + "limit=100")
    for query in ("?order=-impressions", "?order=-engagement"):
        read(f"{POSTS}{query}&limit=100")
    for item in read(f"{POSTS}?limit=100")["data"]:
        read(ITEM + item["id"])
        read(f"{STATS}/{item['id']}")
    read(f"{ANALYTICS}?{RANGE}")
    read(f"{ANALYTICS}?{RANGE}&channel=personal")
    for item in read(f"{ARTICLES}?limit=100")["data"]:
        read(ARTICLE + item["id"])
    read(f"{ARTICLES}?status=Published")
    for item in read(f"{HOOKS}?limit=100")["data"]:
        read(HOOK + item["id"])
    for query in ("", "?outcome=delivered", "?outcome=failed", "?event_type=post.published"):
        read(f"{DELIVERIES}{query}")
    return seen


def delivered_count(app, filled):
    """How many deliveries the users' logs show as delivered."""
    return sum(
        len(As(app, key).send("GET", f"{DELIVERIES}?outcome=delivered").get_json()["data"])
        for key, _, _ in filled.values()
    )


def test_a_copy_answers_the_api_exactly_as_the_original(tmp_path, target_url):
    source = str(tmp_path / "source.sqlite")
    original = make_app(source)
    answers = iter([Answer(500, body=b"scenario is off")] + [Answer(200)] * 100)
    with Receiver(script=lambda arrival: next(answers)) as receiver:
        filled = {user: fill(original, user, receiver) for user in ("alice", "bob")}
        env = {
            "FLASK_WEBHOOK_ALLOW_PRIVATE": "1",
            "FLASK_SECRETS_KEY": SECRETS_KEY,
            "FLASK_WEBHOOK_RETRY_SCHEDULE": "0,0.2,0.2",
        }
        with Dispatcher(source, env=env, log=tmp_path / "dispatch.log"):
            # Per user: two post.published, two post.failed (a report, a lease
            # that ran out), one article.published; one of them is retried.
            receiver.wait_for(
                lambda a: len({x.webhook_id for x in a}) == 10, timeout=20, what="every event"
            )
            # The dispatcher records an outcome just after the receiver has
            # answered: stopping it before then would leave one pending.
            deadline = time.monotonic() + 20
            while delivered_count(original, filled) < 10 and time.monotonic() < deadline:
                time.sleep(0.05)
    before = {user: surface(original, key) for user, (key, _, _) in filled.items()}
    delivered = [e for seen in before.values() for e in seen[DELIVERIES][2]["data"]]
    assert len(delivered) == 10 and {e["outcome"] for e in delivered} == {"delivered"}
    assert sorted(len(e["attempts"]) for e in delivered)[-2:] == [1, 2]  # one failed first
    statuses = {p["status"] for p in before["alice"][f"{POSTS}?limit=100"][2]["data"]}
    assert statuses == {"Draft", "Scheduled", "Publishing", "Published", "Failed"}
    totals = before["alice"][f"{ANALYTICS}?{RANGE}"][2]["totals"]
    assert (totals["posts"], totals["measured"], totals["impressions"]) == (2, 1, 120)

    result = original.test_cli_runner().invoke(args=["copy-db", "--to", target_url])
    assert result.exit_code == 0, result.output
    assert "workspaces: 2 rows" in result.output and "webhook_attempts:" in result.output
    with psycopg.connect(target_url, autocommit=True) as conn:  # before init-db recreates them
        off = conn.execute(
            "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'D'"
            " AND tgrelid IN ('posts'::regclass, 'articles'::regclass)"
        ).fetchone()[0]
    assert off == 0  # the counting triggers, off during the copy, are on again

    copy = make_app(target_url)
    for user, (key, revoked, _) in filled.items():
        after = surface(copy, key)
        assert after.keys() == before[user].keys()
        for request, answer in before[user].items():
            assert after[request] == answer, request
        # Keys were copied as hashes: the revoked one stays refused.
        assert_error(As(copy, revoked).send("GET", POSTS), 401, "unauthorized")

    alice, bob = (As(copy, filled[u][0]) for u in ("alice", "bob"))
    # An Idempotency-Key retry finds the copied post; the same key with other fields is a 409.
    first = before["alice"][f"{POSTS}?limit=100"][2]["data"]
    retry = alice.ok(
        "POST", POSTS, {"type": "personal", "content": "once"}, {"Idempotency-Key": "k-1"}
    )
    assert retry["id"] in {p["id"] for p in first}
    assert_error(
        alice.send(
            "POST", POSTS, {"type": "personal", "content": "other"}, {"Idempotency-Key": "k-1"}
        ),
        409,
        "conflict",
    )
    # Isolation holds on the copy, and new rows get ids after the copied ones.
    assert_error(bob.send("GET", ITEM + first[0]["id"]), 404, "not_found")
    carol = new_key(copy, "carol")
    assert As(copy, carol).ok("GET", POSTS)["total"] == 0
    # The totals go on counting on the copy (its triggers are back on).
    drafts = alice.ok("GET", f"{POSTS}?status=Draft&limit=1")["total"]
    alice.ok("POST", POSTS, {"type": "personal", "content": "after the move"})
    assert alice.ok("GET", f"{POSTS}?status=Draft&limit=1")["total"] == drafts + 1
    # The secrets were copied sealed; the same secrets key opens them on the copy.
    hooks = before["alice"][f"{HOOKS}?limit=100"][2]["data"]
    (enabled,) = (h["id"] for h in hooks if h["enabled"])
    with Receiver([filled["alice"][2]]) as receiver:
        alice.ok("PATCH", HOOK + enabled, {"url": receiver.url})
        ping = copy.test_cli_runner().invoke(args=["webhooks", "test", enabled])
        assert ping.exit_code == 0, ping.output
        (arrival,) = receiver.wait_for(lambda a: a)
        assert arrival.type == "ping" and arrival.verified_with == [filled["alice"][2]]


def test_copy_refuses_a_target_that_holds_data(tmp_path, target_url):
    source = make_app(str(tmp_path / "source.sqlite"))
    key = new_key(source, "alice")
    As(source, key).ok("POST", POSTS, {"type": "personal", "content": "mine"})
    target = make_app(target_url)
    theirs = new_key(target, "someone")
    As(target, theirs).ok("POST", POSTS, {"type": "personal", "content": "theirs"})

    result = source.test_cli_runner().invoke(args=["copy-db", "--to", target_url])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "already holds data" in result.output and "Nothing was written" in result.output
    page = As(target, theirs).ok("GET", POSTS)
    assert [p["content"] for p in page["data"]] == ["theirs"]
    assert_error(As(target, key).send("GET", POSTS), 401, "unauthorized")


def test_a_copy_that_fails_halfway_leaves_the_target_as_it_was(tmp_path, target_url):
    """A row PostgreSQL cannot take (text that is not UTF-8, which SQLite
    stores without a word) stops the copy after the users and keys went
    over: the target gets nothing, not even the schema."""
    path = tmp_path / "source.sqlite"
    source = make_app(str(path))
    key = new_key(source, "alice")
    As(source, key).ok("POST", POSTS, {"type": "personal", "content": "fine"})
    with sqlite3.connect(path) as db:
        db.execute("UPDATE posts SET content = CAST(x'c328' AS TEXT)")  # invalid UTF-8
    db.close()

    result = source.test_cli_runner().invoke(args=["copy-db", "--to", target_url])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "the copy failed" in result.output and "Nothing was written" in result.output
    assert "  workspaces: 1 rows" in result.output  # it did get halfway
    with psycopg.connect(target_url, autocommit=True) as conn:
        left = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        ).fetchone()[0]
    assert left == 0


@pytest.mark.parametrize(
    ("to", "message"),
    [
        ("/tmp/elsewhere.sqlite", "must be a postgresql:// URL"),
        ("postgresql://127.0.0.1:1/test", "cannot reach PostgreSQL at 127.0.0.1:1"),
        ("postgresql://127.0.0.1:5432/no_such_database", "'no_such_database' does not exist"),
        ("postgresql://127.0.0.1:5432/test?sslmode=bogus", "not a usable PostgreSQL URL"),
        ("postgresql://[::1/test", "not a usable PostgreSQL URL"),
    ],
)
def test_copy_refuses_a_target_it_cannot_use(tmp_path, to, message):
    source = make_app(str(tmp_path / "source.sqlite"))
    result = source.test_cli_runner().invoke(args=["copy-db", "--to", to])
    assert result.exit_code in (1, 2) and isinstance(result.exception, SystemExit), result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_copy_needs_an_sqlite_source(target_url):
    app = create_app({**CONFIG, "DATABASE": target_url})
    result = app.test_cli_runner().invoke(args=["copy-db", "--to", target_url])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "already a PostgreSQL URL" in result.output


def test_copy_needs_a_source_with_our_tables(tmp_path, target_url):
    app = create_app({**CONFIG, "DATABASE": str(tmp_path / f"{uuid.uuid4().hex}.sqlite")})
    result = app.test_cli_runner().invoke(args=["copy-db", "--to", target_url])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "does not exist" in result.output and "Nothing was written" in result.output


def test_the_copy_and_the_test_harness_name_every_table(tmp_path):
    """A table added by a migration is copied by `flask copy-db` and emptied
    between tests, or said here to be made from the copied rows."""
    from content_publishing.store import copy

    made_from_rows = {"content_counts", "key_generation", "schema_version"}
    database = tmp_path / "tables.db"
    app = create_app({"DATABASE": str(database), "TESTING": True})
    with app.app_context():
        init_db()
        dispose_db()
    with sqlite3.connect(database) as conn:
        found = {
            name
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not name.startswith(("posts_search", "sqlite_"))
        }
    assert found - made_from_rows == set(copy.TABLES)
    assert found - {"key_generation", "schema_version"} == set(postgres.TABLES)


def test_a_person_signs_in_on_the_copy_as_before(tmp_path, target_url):
    """Accounts, sessions and the second-factor rows are copied: a person
    whose account was made on SQLite signs in on the PostgreSQL copy with the
    same password, and the session they had goes on working there."""
    from tests.test_accounts import PASSWORD, account

    original = make_app(str(tmp_path / "source.sqlite"))
    new_key(original, "alice")
    browser = original.test_client()
    signed = account(browser, original.test_cli_runner(), name="carol")
    cookie = browser.get_cookie("cps_session").value
    result = original.test_cli_runner().invoke(args=["copy-db", "--to", target_url])
    assert result.exit_code == 0, result.output
    assert "accounts: 1 rows" in result.output and "sessions: 1 rows" in result.output

    copy = make_app(target_url)
    kept = copy.test_client()
    kept.set_cookie("cps_session", cookie)
    me = kept.get(f"{API}/me")
    assert me.status_code == 200, me.get_json()
    assert me.get_json()["session"]["csrf_token"] == signed["csrf_token"]
    fresh = copy.test_client()
    r = fresh.post(f"{API}/session", json={"email": "carol@example.com", "password": PASSWORD})
    assert r.status_code == 200, r.get_json()
    assert fresh.get(f"{API}/me").get_json()["member"]["name"] == "carol"
    # New sessions get ids after the copied one.
    assert fresh.get(f"{API}/sessions").status_code == 200
