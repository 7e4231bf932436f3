"""A broad search against real gunicorn on both backends: a word in more
than 10,000 of one user's posts.

The first page is the newest matches, as the plain list orders them, with
`total_is_estimate: true`; paging by `next` goes on exactly. A narrower
search, or one combined with a filter, counts exactly. Another user's
search never sees these posts. A server whose time limit is too short for
the search answers 503 `search_too_broad` at once, and its workers go on
serving. How fast this is goes into `make bench` (bench/search.py).

The posts are written straight into the database (the triggers that keep
the search index and the counts run as for the service's own writes):
10,000 creates through the API would take most of a minute."""

import sqlite3
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from harness import Client, Gunicorn, create_key, init_database
from harness.api import POSTS
from tests.conftest import live_database_for

BROAD = 10_200  # alice's posts holding "launch": past the 10,000 counted exactly
SCHEDULED = 30  # of them, the newest are Scheduled
NARROW = 5  # alice's posts holding "evergreen" (and not "launch"), the oldest
OTHERS = 40  # carol's posts, none with "launch"


def seed(database, workspace_id, contents, scheduled=0, start=0):
    """Posts of `workspace_id`, created a microsecond apart from 2026-01-01 on
    (`start` microseconds in); the last `scheduled` of them Scheduled."""
    rows = []
    for i, content in enumerate(contents):
        at = f"2026-01-01T00:00:{(start + i) // 1_000_000:02d}.{(start + i) % 1_000_000:06d}Z"
        is_scheduled = i >= len(contents) - scheduled
        rows.append(
            (
                str(uuid.uuid4()),
                workspace_id,
                content,
                "Scheduled" if is_scheduled else "Draft",
                "2031-01-01T09:00:00.000000Z" if is_scheduled else None,
                at,
                at,
            )
        )
    sql = (
        "INSERT INTO posts (id, workspace_id, type, channel_id, content, status, scheduled_at,"
        " created_at, updated_at) VALUES (?, ?, 'personal', 'personal', ?, ?, ?, ?, ?)"
    )
    if str(database).startswith("postgres"):
        with psycopg.connect(str(database)) as conn, conn.cursor() as cursor:
            for n in range(0, len(rows), 1000):  # a counts row changed 1,000 times at most
                cursor.executemany(sql.replace("?", "%s"), rows[n : n + 1000])
                conn.commit()
    else:
        with sqlite3.connect(database) as conn:
            conn.executemany(sql, rows)


def workspace_id(database, name):
    query = "SELECT id FROM workspaces WHERE name = ?"
    if str(database).startswith("postgres"):
        with psycopg.connect(str(database)) as conn:
            return conn.execute(query.replace("?", "%s"), (name,)).fetchone()[0]
    with sqlite3.connect(database) as conn:
        return conn.execute(query, (name,)).fetchone()[0]


@pytest.fixture(scope="module")
def stack(tmp_path_factory, live_backend):
    """Alice's broad posts, Bob with none, Carol with others; one server with
    the default time limit and one whose limit (1 ms) no broad search meets."""
    tmp = tmp_path_factory.mktemp("search")
    with live_database_for(live_backend) as url:
        database = init_database(url or tmp / "search.sqlite")
        keys = {name: create_key(database, user=name) for name in ("alice", "bob", "carol")}
        alice = workspace_id(database, "alice")
        seed(database, alice, [f"Evergreen note {i}" for i in range(NARROW)])
        seed(
            database,
            alice,
            [f"Launch notes {i}: how the launch went" for i in range(BROAD)],
            scheduled=SCHEDULED,
            start=NARROW,
        )
        seed(
            database, workspace_id(database, "carol"), [f"Carol's post {i}" for i in range(OTHERS)]
        )
        with (
            Gunicorn(database, workers=2, log=tmp / "server.log") as server,
            Gunicorn(
                database,
                workers=2,
                env={"FLASK_SEARCH_TIMEOUT_MS": "1"},
                log=tmp / "hurried.log",
                name="hurried",
            ) as hurried,
        ):
            yield server, hurried, keys


@pytest.fixture(scope="module")
def alice(stack):
    server, _, keys = stack
    return Client(server.url, keys["alice"], timeout=30)


def search(client, query):
    r = client.get(f"{POSTS}?{query}")
    assert r.status == 200, r
    return r.json


def test_a_broad_search_answers_the_newest_matches_with_an_estimated_total(alice):
    found = search(alice, "q=launch&limit=20")
    assert found["total_is_estimate"] is True
    assert 10_000 < found["total"] <= NARROW + BROAD
    plain = search(alice, "limit=20")  # every post but the 5 oldest holds the word
    assert [p["id"] for p in found["data"]] == [p["id"] for p in plain["data"]]
    assert all("launch" in p["content"].lower().split() for p in found["data"])


def test_paging_a_broad_search_by_next_is_exact(alice):
    seen, plain, page = [], [], search(alice, "q=launch&limit=100")
    listed = search(alice, "limit=100")
    for _ in range(5):
        seen += [p["id"] for p in page["data"]]
        plain += [p["id"] for p in listed["data"]]
        assert page["total_is_estimate"] is True and page["next"]
        page = search(alice, page["next"].split("?", 1)[1])
        listed = search(alice, listed["next"].split("?", 1)[1])
    assert len(seen) == len(set(seen)) == 500 and seen == plain


def test_a_search_by_offset_deep_in_the_matches(alice):
    found = search(alice, "q=launch&limit=10&offset=2000")
    listed = search(alice, "limit=10&offset=2000")
    assert [p["id"] for p in found["data"]] == [p["id"] for p in listed["data"]]


def test_a_search_in_scheduled_order_deep_in_the_matches(alice):
    """Soonest first, unscheduled last by id: the page is the matches of the
    plain list in the same order, one after another."""
    found = search(alice, "q=launch&order=scheduled_at&limit=100&offset=5000")
    ids = [p["id"] for p in found["data"]]
    listed = search(alice, "order=scheduled_at&limit=100&offset=4990")["data"]
    listed += search(alice, "order=scheduled_at&limit=100&offset=5090")["data"]
    matching = [p["id"] for p in listed if "launch" in p["content"].lower().split()]
    assert len(ids) == 100 and ids[0] in matching
    start = matching.index(ids[0])
    assert matching[start : start + 100] == ids


@pytest.mark.parametrize(
    ("query", "total"),
    [
        ("q=evergreen", NARROW),
        ("q=evergreen+note+3", 1),
        ("q=launch&status=Scheduled", SCHEDULED),
        ("q=launch&status=Scheduled&order=scheduled_at", SCHEDULED),
        ("q=launch+evergreen", 0),
        ("q=launch&type=brand", 0),
    ],
)
def test_a_narrower_search_counts_exactly(alice, query, total):
    found = search(alice, f"{query}&limit=100")
    assert found["total"] == total and found["total_is_estimate"] is False
    assert len(found["data"]) == total


@pytest.mark.parametrize("name", ["bob", "carol"])
def test_another_users_search_finds_none_of_them(stack, name):
    server, _, keys = stack
    found = search(Client(server.url, keys[name], timeout=30), "q=launch")
    assert found == {
        "data": [],
        "total": 0,
        "total_is_estimate": False,
        "limit": 20,
        "offset": 0,
        "next": None,
    }


def test_a_search_past_its_time_limit_is_a_503_and_the_workers_go_on(stack):
    _, hurried, keys = stack
    started = time.monotonic()

    def broad(_):  # deep in the matches, in an order no index serves on SQLite: > 1 ms anywhere
        return Client(hurried.url, keys["alice"], timeout=30).get(
            f"{POSTS}?q=launch&order=scheduled_at&offset=5000&limit=100"
        )

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(broad, range(8)))
    assert time.monotonic() - started < 10
    for r in answers:
        assert r.status == 503, r
        error = r.json["error"]
        assert error["code"] == "search_too_broad" and error["details"]["timeout_ms"] == 1
        assert "retry-after" not in r.headers
    listed = Client(hurried.url, keys["alice"], timeout=30).get(f"{POSTS}?limit=1")
    assert listed.status == 200 and listed.json["total"] == NARROW + BROAD
