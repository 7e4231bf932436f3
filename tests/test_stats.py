"""Stats snapshots: what a collector posts, each item kept or refused on
its own, idempotent on (post_id, taken_at), read back oldest first, the
latest on every post record, and the posts list sorted by them."""

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from content_publishing import errors
from content_publishing.store import search
from harness import Client, create_key
from harness.api import CALLBACK, ITEM, POSTS, STATS
from tests.analytics_support import figures, publish_at, snapshot
from tests.conftest import assert_error, live_server

DAY = timedelta(days=1)


def days_ago(n, hour=9):
    moment = datetime.now(UTC) - timedelta(days=n)
    return moment.replace(hour=hour, minute=10, second=0, microsecond=0)


@pytest.fixture
def post(api, clock):
    """A post of alice's published ten days ago."""
    return publish_at(api, clock, [days_ago(10)])[0]


def stats_of(api, post_id):
    r = api.get(f"{STATS}/{post_id}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def record(api, *snapshots):
    r = api.post(STATS, json={"data": list(snapshots)})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


# --- kept and read back ----------------------------------------------------------


def test_snapshots_are_read_back_oldest_first_with_the_latest_on_the_post(api, post):
    later = snapshot(post, 7 * DAY, **figures(2000, 100))
    first = snapshot(post, timedelta(hours=1), **figures(100, 9))
    middle = snapshot(post, DAY, **figures(900, 45))
    answer = record(api, later, first, middle)
    assert [i["result"] for i in answer["data"]] == ["created"] * 3
    assert (answer["created"], answer["replaced"], answer["refused"]) == (3, 0, 0)
    assert [i["item"] for i in answer["data"]] == [1, 2, 3]

    read = stats_of(api, post["id"])
    assert read["post_id"] == post["id"]
    assert [s["impressions"] for s in read["data"]] == [100, 900, 2000]
    assert read["latest"] == read["data"][-1]
    assert read["latest"]["taken_at"].endswith("Z")
    assert read["latest"]["engagement"] == pytest.approx(100 / 2000)
    assert read["latest"]["members_reached"] == 1500

    stored = api.get(ITEM + post["id"]).get_json()
    assert stored["stats"] == read["latest"]
    assert stored["version"] == post["version"]  # figures are not an edit of the post
    listed = api.get(POSTS).get_json()["data"]
    assert [p["stats"] for p in listed] == [read["latest"]]


def test_engagement_counts_missing_figures_as_zero_and_needs_impressions(api, clock):
    a, b, c = publish_at(api, clock, [days_ago(4), days_ago(3), days_ago(2)])
    record(
        api,
        snapshot(a, impressions=200, reactions=10),  # the rest not known
        snapshot(b, impressions=0, reactions=3, comments=1),
        snapshot(c, reactions=5),
    )
    assert stats_of(api, a["id"])["latest"]["engagement"] == pytest.approx(0.05)
    assert stats_of(api, a["id"])["latest"]["comments"] is None
    assert stats_of(api, b["id"])["latest"]["engagement"] is None
    assert stats_of(api, c["id"])["latest"]["engagement"] is None


def test_the_same_post_and_taken_at_again_replaces_the_figures(api, post):
    first = snapshot(post, DAY, **figures(1000, 40))
    assert record(api, first)["data"][0]["result"] == "created"
    again = record(api, first)  # a collector's retry: nothing more is stored
    assert (again["created"], again["replaced"]) == (0, 1)
    assert len(stats_of(api, post["id"])["data"]) == 1

    # The same instant in another offset is the same snapshot; figures are replaced
    # whole (a figure left out is no longer known).
    moment = datetime.fromisoformat(first["taken_at"]).astimezone(
        datetime.now().astimezone().tzinfo
    )
    other = {"post_id": post["id"], "taken_at": moment.isoformat(), "impressions": 1200}
    assert record(api, other)["data"][0]["result"] == "replaced"
    read = stats_of(api, post["id"])
    assert len(read["data"]) == 1
    assert read["latest"]["impressions"] == 1200 and read["latest"]["reactions"] is None
    assert api.get(ITEM + post["id"]).get_json()["stats"]["impressions"] == 1200


def test_figures_entered_by_hand_keep_what_was_not_entered_unknown(api, post):
    """What the dashboard's form sends for a channel nobody collects figures
    for: one snapshot of the figures typed in, to the minute; a figure out of
    range is refused naming it and keeps nothing; entered again for the same
    minute, corrected, it replaces them."""
    minute = datetime.now(UTC).replace(second=0, microsecond=0).isoformat()
    typed = {"post_id": post["id"], "taken_at": minute, "impressions": 1200, "reactions": 30}
    refused = record(api, {**typed, "impressions": -5})
    assert refused["refused"] == 1 and refused["data"][0]["error"]["code"] == "validation_error"
    assert "impressions" in refused["data"][0]["error"]["details"]
    assert stats_of(api, post["id"])["latest"] is None
    assert record(api, typed)["created"] == 1
    latest = stats_of(api, post["id"])["latest"]
    assert (latest["impressions"], latest["reactions"]) == (1200, 30)
    assert latest["comments"] is None and latest["clicks"] is None
    assert record(api, {**typed, "reactions": 31})["replaced"] == 1
    read = stats_of(api, post["id"])
    assert len(read["data"]) == 1 and read["latest"]["reactions"] == 31


def test_a_pair_twice_in_one_batch_keeps_the_last(api, post):
    one = snapshot(post, DAY, impressions=10)
    two = snapshot(post, DAY, impressions=20)
    answer = record(api, one, two)
    assert [i["result"] for i in answer["data"]] == ["created", "replaced"]
    assert [s["impressions"] for s in stats_of(api, post["id"])["data"]] == [20]
    assert api.get(ITEM + post["id"]).get_json()["stats"]["impressions"] == 20


def test_an_older_snapshot_sent_later_leaves_the_latest(api, post):
    record(api, snapshot(post, 7 * DAY, impressions=700))
    record(api, snapshot(post, DAY, impressions=100))
    assert api.get(ITEM + post["id"]).get_json()["stats"]["impressions"] == 700
    assert [s["impressions"] for s in stats_of(api, post["id"])["data"]] == [100, 700]


def test_a_post_without_snapshots_has_none(api, post):
    draft = api.post(POSTS, json={"type": "personal", "content": "not yet"}).get_json()
    assert draft["stats"] is None
    assert stats_of(api, post["id"]) == {"post_id": post["id"], "data": [], "latest": None}
    assert stats_of(api, draft["id"])["latest"] is None
    assert api.get(ITEM + post["id"]).get_json()["stats"] is None


# --- refused items ------------------------------------------------------------------


BAD_ITEMS = [
    ({"impressions": -1}, "impressions"),
    ({"impressions": 1.5}, "impressions"),
    ({"impressions": 2.0}, "impressions"),
    ({"reactions": True}, "reactions"),
    ({"comments": "12"}, "comments"),
    ({"clicks": 500_000_001}, "clicks"),
    ({"reshares": [1]}, "reshares"),
    ({"members_reached": {}}, "members_reached"),
    ({"taken_at": "2026-01-01T09:00:00"}, "taken_at"),  # no offset
    ({"taken_at": "yesterday"}, "taken_at"),
    ({"taken_at": None}, "taken_at"),
    ({"post_id": "not-a-uuid"}, "post_id"),
    ({"post_id": None}, "post_id"),
    ({"likes": 3}, "likes"),  # a misspelt figure is named, never silently dropped
]


@pytest.mark.parametrize("change, field", BAD_ITEMS)
def test_a_bad_item_is_refused_alone_naming_its_field(api, post, change, field):
    good = snapshot(post, DAY, impressions=50)
    bad = {**snapshot(post, 2 * DAY, impressions=60), **change}
    answer = record(api, good, bad)
    assert answer["data"][0]["result"] == "created"
    refused = answer["data"][1]
    assert refused["result"] == "refused" and refused["item"] == 2
    assert refused["error"]["code"] == "validation_error"
    assert field in refused["error"]["details"], refused
    assert field in refused["error"]["message"]
    assert (answer["created"], answer["refused"]) == (1, 1)
    assert [s["impressions"] for s in stats_of(api, post["id"])["data"]] == [50]


@pytest.mark.parametrize("leave_out", ["post_id", "taken_at"])
def test_an_item_without_its_post_or_time_is_refused(api, post, leave_out):
    item = snapshot(post, DAY, impressions=5)
    del item[leave_out]
    refused = record(api, item)["data"][0]
    assert refused["result"] == "refused" and leave_out in refused["error"]["details"]
    assert stats_of(api, post["id"])["data"] == []


@pytest.mark.parametrize("item", [[], "x", 3, None])
def test_an_item_that_is_not_an_object_is_refused(api, post, item):
    answer = record(api, item, snapshot(post, DAY, impressions=5))
    assert answer["data"][0]["result"] == "refused"
    assert answer["data"][0]["error"]["code"] == "validation_error"
    assert answer["data"][1]["result"] == "created"


def test_taken_at_in_the_future_is_refused(api, post, clock):
    ahead = (datetime.now(UTC) + timedelta(minutes=5)).isoformat()
    answer = record(api, {"post_id": post["id"], "taken_at": ahead, "impressions": 9})
    refused = answer["data"][0]
    assert refused["result"] == "refused" and refused["error"]["code"] == "validation_error"
    assert refused["error"]["details"] == {"taken_at": ["Must not be in the future."]}
    assert refused["taken_at"] == ahead  # as sent
    assert stats_of(api, post["id"])["data"] == []
    clock.advance(600)  # once that time has come, the same snapshot is kept
    assert record(api, {"post_id": post["id"], "taken_at": ahead})["created"] == 1


def test_posts_that_are_not_published_are_refused(api, post, clock):
    draft = api.post(POSTS, json={"type": "personal", "content": "a draft"}).get_json()
    at = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    scheduled = api.post(POSTS, json={"type": "personal", "content": "soon"}).get_json()
    scheduled = api.patch(
        ITEM + scheduled["id"], json={"status": "Scheduled", "scheduled_at": at}
    ).get_json()
    taken = datetime.now(UTC).isoformat()
    answer = record(
        api,
        {"post_id": draft["id"], "taken_at": taken, "impressions": 1},
        {"post_id": scheduled["id"], "taken_at": taken, "impressions": 1},
        snapshot(post, DAY, impressions=1),
    )
    codes = [(i["result"], i["error"] and i["error"]["code"]) for i in answer["data"]]
    assert codes == [("refused", "not_published"), ("refused", "not_published"), ("created", None)]
    assert "Draft" in answer["data"][0]["error"]["message"]
    assert answer["data"][0]["error"]["details"]["post_id"]
    for other in (draft, scheduled):
        assert stats_of(api, other["id"])["data"] == []
        assert api.get(ITEM + other["id"]).get_json()["stats"] is None


def test_unknown_posts_and_another_users_are_the_same_not_found(api, post, caller):
    bob = caller("bob")
    unknown = "5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01"
    taken = datetime.now(UTC).isoformat()
    answer = record(
        bob,
        {"post_id": post["id"], "taken_at": taken, "impressions": 99},
        {"post_id": unknown, "taken_at": taken, "impressions": 99},
    )
    errors = [i["error"] for i in answer["data"]]
    assert [e["code"] for e in errors] == ["not_found", "not_found"]
    assert errors[0]["message"] == errors[1]["message"]  # nothing says the first exists
    assert stats_of(api, post["id"])["data"] == []
    # Nor can bob read alice's figures once she has some.
    record(api, snapshot(post, DAY, impressions=5))
    assert_error(bob.get(f"{STATS}/{post['id']}"), 404, "not_found")
    assert bob.get(POSTS).get_json()["data"] == []
    assert stats_of(api, post["id"])["latest"]["impressions"] == 5


BAD_BODIES = [
    ({}, "data"),
    ({"data": []}, "data"),
    ({"data": "x"}, "data"),
    ({"data": None}, "data"),
    ({"data": [{}] * 501}, "data"),
    ({"data": [{}], "more": 1}, "more"),
    ([], "_schema"),
    ("x", "_schema"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_BODIES)
def test_a_bad_envelope_is_a_400_and_keeps_nothing(api, body, field):
    error = assert_error(api.post(STATS, json=body), 400, "validation_error")
    assert field in error["details"], error


def test_a_bad_envelope_keeps_the_good_snapshots_out_too(api, post):
    body = {"data": [snapshot(post, DAY, impressions=5)], "extra": True}
    assert_error(api.post(STATS, json=body), 400, "validation_error")
    assert stats_of(api, post["id"])["data"] == []


def test_500_snapshots_in_one_batch(api, post):
    start = datetime.fromisoformat(post["published_at"])
    batch = [
        {"post_id": post["id"], "taken_at": (start + timedelta(minutes=n)).isoformat(), "clicks": n}
        for n in range(500)
    ]
    assert record(api, *batch)["created"] == 500
    read = stats_of(api, post["id"])
    assert len(read["data"]) == 500 and read["latest"]["clicks"] == 499


@pytest.mark.parametrize(
    "headers, status",
    [({"Content-Type": "text/csv"}, 415), ({"Content-Type": "application/json"}, 400)],
)
@pytest.mark.backend_independent
def test_a_body_that_is_not_json_is_refused(client, key, headers, status):
    r = client.post(STATS, data=b"post_id,taken_at\n", headers={"X-API-Key": key, **headers})
    assert r.status_code == status


def test_recording_needs_posts_publish_and_reading_posts_read(caller, api, post):
    reader = caller("alice", scopes=["posts:read"])
    writer = caller("alice", scopes=["posts:read", "posts:write"])
    body = {"data": [snapshot(post, DAY, impressions=5)]}
    for key in (reader, writer):
        error = assert_error(key.post(STATS, json=body), 403, "insufficient_scope")
        assert error["details"] == {"required_scope": "posts:publish"}
    assert stats_of(reader, post["id"])["data"] == []
    publisher = caller("alice", scopes=["posts:publish"])
    assert publisher.post(STATS, json=body).status_code == 200
    assert_error(publisher.get(f"{STATS}/{post['id']}"), 403, "insufficient_scope")


@pytest.mark.parametrize("post_id", ["5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01", "nope"])
def test_the_stats_of_an_unknown_post_are_a_404(api, post_id):
    assert_error(api.get(f"{STATS}/{post_id}"), 404, "not_found")


# --- the posts list by figures ------------------------------------------------------------


@pytest.mark.parametrize(
    "order, expected",
    [
        # without figures: newest first (the draft was written after the others)
        ("-impressions", ["viral", "steady", "niche", "draft", "unseen"]),
        ("-engagement", ["niche", "steady", "viral", "draft", "unseen"]),
    ],
)
def test_the_list_sorts_by_the_latest_figures_posts_without_them_last(api, clock, order, expected):
    names = ["viral", "steady", "niche", "unseen"]
    made = publish_at(
        api,
        clock,
        [days_ago(6 - n) for n in range(4)],
        content=lambda n, _: names[n],
    )
    api.post(POSTS, json={"type": "personal", "content": "draft"})
    viral, steady, niche, _ = made
    record(
        api,
        snapshot(viral, **figures(50_000, 500)),  # 1 %
        snapshot(steady, **figures(4_000, 200)),  # 5 %
        snapshot(niche, **figures(300, 60)),  # 20 %
        snapshot(niche, timedelta(hours=1), **figures(10, 9)),  # older: not the latest
    )
    page = api.get(f"{POSTS}?order={order}").get_json()
    assert [p["content"] for p in page["data"]] == expected
    # Pages follow each other by offset, and add up to the whole order.
    first = api.get(f"{POSTS}?order={order}&limit=2").get_json()
    assert "offset=2" in first["next"] and "cursor" not in first["next"]
    rest = api.get(f"{POSTS}?order={order}&limit=2&offset=2").get_json()
    assert [p["content"] for p in first["data"] + rest["data"]] == expected[:4]
    assert first["total"] == 5
    published = api.get(f"{POSTS}?order={order}&status=Published").get_json()["data"]
    assert [p["content"] for p in published] == [c for c in expected if c != "draft"]


@pytest.mark.backend_independent
def test_the_list_refuses_other_orders_and_a_cursor_with_these(api):
    assert (
        "order"
        in assert_error(api.get(f"{POSTS}?order=-clicks"), 400, "validation_error")["details"]
    )
    error = assert_error(
        api.get(f"{POSTS}?order=-impressions&cursor=WyIyMDI2LTAxLTAxVDAwOjAwOjAwWiIsImEiXQ"),
        400,
        "validation_error",
    )
    assert "cursor" in error["details"]


# --- kept as long as the post ---------------------------------------------------------------


def test_snapshots_go_with_their_post_and_a_published_post_keeps_them(
    api, post, backend, database, count_rows
):
    record(api, snapshot(post, DAY, impressions=5), snapshot(post, 2 * DAY, impressions=7))
    assert_error(
        api.client.delete(ITEM + post["id"], headers={"X-API-Key": api.key}), 409, "conflict"
    )
    assert count_rows("post_stats") == 2 and count_rows("post_metrics") == 1
    # The database itself deletes them with the post, however it goes.
    if backend == "postgresql":
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("DELETE FROM post_history WHERE post_id = %s", (post["id"],))
            conn.execute("DELETE FROM posts WHERE id = %s", (post["id"],))
    else:
        with sqlite3.connect(database) as conn:
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("DELETE FROM posts WHERE id = ?", (post["id"],))
    assert count_rows("post_stats") == 0 and count_rows("post_metrics") == 0


# --- at most one snapshot per post and time, under concurrent requests ---------------------------


RACERS = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "1"}
    with live_server(tmp_path_factory, live_backend, "stats", workers=4, env=env) as server:
        yield server


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_concurrent_batches_keep_one_snapshot_per_post_and_time(server):
    key = create_key(server.database, user="collector")
    client = Client(server.url, key)
    made = []
    for n in range(3):
        post = client.post(POSTS, {"type": "personal", "content": f"Launch note {n}"}).json
        at = (datetime.now(UTC) + timedelta(seconds=5)).isoformat()
        assert client.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": at}).ok
        r = client.post(CALLBACK, {"post_id": post["id"], "linkedin_post_id": f"urn:li:share:{n}"})
        assert r.status == 200, r
        made.append(r.json)
    taken = datetime.now(UTC).isoformat()
    batch = {"data": [{"post_id": p["id"], "taken_at": taken, **figures(1000, 50)} for p in made]}
    barrier = threading.Barrier(RACERS, timeout=60)

    def send(_):
        racer = Client(server.url, key, timeout=30)
        barrier.wait()
        return racer.post(STATS, batch)

    with ThreadPoolExecutor(RACERS) as pool:
        answers = list(pool.map(send, range(RACERS)))
    assert [a.status for a in answers] == [200] * RACERS, answers
    for item in range(3):
        results = sorted(a.json["data"][item]["result"] for a in answers)
        assert results == ["created"] + ["replaced"] * (RACERS - 1), results
    for post in made:
        read = client.get(f"{STATS}/{post['id']}").json
        assert len(read["data"]) == 1 and read["latest"]["impressions"] == 1000


@pytest.mark.backend_independent
def test_the_item_codes_are_in_the_error_table_and_the_document(client):
    spec = client.get("/functions/v1/openapi.json").get_json()
    item_error = spec["components"]["schemas"]["ItemError"]["properties"]["code"]
    assert set(item_error["enum"]) == set(errors.ITEM_CODES)
    for code in errors.ITEM_CODES:
        assert f"{code}:" in item_error["description"] or f"{code} " in item_error["description"]
    described = spec["paths"]["/functions/v1/api-v2-posts-stats"]["post"]["description"]
    assert "not_found" in described and "not_published" in described


@pytest.mark.parametrize("cap", [None, 1])
def test_a_search_sorts_by_figures_too(api, clock, monkeypatch, cap):
    """Led by the text index, or (past CAP matches) walking the posts in the
    order asked for and testing each."""
    if cap:
        monkeypatch.setattr(search, "CAP", cap)
    texts = ["launch day notes", "launch recap", "hiring news", "launch checklist"]
    made = publish_at(
        api, clock, [days_ago(6 - n) for n in range(4)], content=lambda n, _: texts[n]
    )
    record(
        api,
        snapshot(made[0], **figures(1000, 10)),  # 1 %
        snapshot(made[1], **figures(500, 50)),  # 10 %
        snapshot(made[2], **figures(9000, 900)),  # not a launch
    )
    for order, expected in (
        ("-engagement", ["launch recap", "launch day notes", "launch checklist"]),
        ("-impressions", ["launch day notes", "launch recap", "launch checklist"]),
    ):
        page = api.get(f"{POSTS}?q=launch&order={order}").get_json()
        assert [p["content"] for p in page["data"]] == expected, page
