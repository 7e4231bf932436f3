"""Add to queue: a Draft or Failed post to its channel's first free slot,
with daylight saving, the guards, and concurrent requests on real gunicorn."""

import threading
from datetime import UTC, datetime

import pytest

from harness import Client, create_key
from harness.api import CHANNEL, CHANNELS, ITEM, POSTS, QUEUE
from tests.conftest import assert_error, live_server

# The PostgreSQL half of the live tests runs in make test too: concurrent adds to the queue take distinct slots, in each store.
pytestmark = pytest.mark.both_backends

EVERY_DAY = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def lead_until(app, moment):
    """Make the scheduling lead time end at `moment`: the queue then looks
    from there, which puts a daylight-saving change at a known place."""
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = int((moment - datetime.now(UTC)).total_seconds())


def channel(api, **fields):
    body = {"type": "personal", "name": "Me", **fields}
    r = api.post(CHANNELS, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def draft(api, **fields):
    r = api.post(POSTS, json={"type": "personal", "content": "queued", **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def queue(api, post, **headers):
    return api.post(QUEUE, json={"post_id": post["id"]}, headers=headers or None)


def queued_at(api, post):
    r = queue(api, post)
    assert r.status_code == 200, r.get_json()
    assert (
        r.get_json()["status"] == "Scheduled"
        and r.headers["ETag"] == f'"{r.get_json()["version"]}"'
    )
    return r.get_json()["scheduled_at"]


def test_posts_take_the_free_slots_in_order(api, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))  # a Monday
    channel(api, slots=[{"day": "mon", "time": "09:00"}, {"day": "wed", "time": "12:30"}])
    times = [queued_at(api, draft(api)) for _ in range(3)]
    assert times == [
        "2031-03-03T09:00:00.000000Z",
        "2031-03-05T12:30:00.000000Z",
        "2031-03-10T09:00:00.000000Z",
    ]


def test_a_slot_held_by_a_scheduled_or_published_post_is_taken(api, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}])
    manual = draft(api, scheduled_at="2031-03-03T09:00:00Z")
    api.patch(ITEM + manual["id"], json={"status": "Scheduled"})
    elsewhere = draft(api, type="brand", brand_id="acme", scheduled_at="2031-03-10T09:00:00Z")
    api.patch(ITEM + elsewhere["id"], json={"status": "Scheduled"})  # another channel: no matter
    assert queued_at(api, draft(api)) == "2031-03-10T09:00:00.000000Z"


def test_a_failed_post_is_queued_again_and_its_error_cleared(api, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "tue", "time": "10:00"}])
    post = draft(api, scheduled_at="2031-03-11T10:00:00Z")
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    failed = api.patch(
        ITEM + post["id"], json={"status": "Failed", "last_error": "expired"}
    ).get_json()
    assert failed["status"] == "Failed"
    again = queue(api, failed).get_json()
    assert again["scheduled_at"] == "2031-03-04T10:00:00.000000Z" and again["last_error"] is None


DST = [
    # zone, slot, lead from (UTC), expected first instant: a slot in the spring
    # gap is skipped that day; an ambiguous one is taken at its first occurrence.
    (
        "America/New_York",
        ("sun", "02:30"),
        datetime(2027, 3, 13, tzinfo=UTC),
        "2027-03-21T06:30:00.000000Z",
    ),
    (
        "America/New_York",
        ("sun", "01:30"),
        datetime(2027, 11, 6, tzinfo=UTC),
        "2027-11-07T05:30:00.000000Z",
    ),
    (
        "Europe/Berlin",
        ("sun", "02:30"),
        datetime(2027, 3, 27, tzinfo=UTC),
        "2027-04-04T00:30:00.000000Z",
    ),
    (
        "Europe/Berlin",
        ("sun", "02:30"),
        datetime(2027, 10, 30, tzinfo=UTC),
        "2027-10-31T00:30:00.000000Z",
    ),
    (
        "Europe/Berlin",
        ("mon", "09:00"),
        datetime(2027, 3, 28, tzinfo=UTC),
        "2027-03-29T07:00:00.000000Z",
    ),
    (
        "Europe/Berlin",
        ("mon", "09:00"),
        datetime(2027, 10, 31, tzinfo=UTC),
        "2027-11-01T08:00:00.000000Z",
    ),
]


@pytest.mark.parametrize(
    "zone, slot, start, expected", DST, ids=[f"{z}-{s[0]}-{s[1]}-{t:%b}" for z, s, t, _ in DST]
)
def test_daylight_saving(api, app, zone, slot, start, expected):
    lead_until(app, start)
    channel(api, timezone=zone, slots=[{"day": slot[0], "time": slot[1]}])
    first = queued_at(api, draft(api))
    assert first == expected
    if zone == "America/New_York" and slot == ("sun", "01:30"):  # taken once, not twice
        assert queued_at(api, draft(api)) == "2027-11-14T06:30:00.000000Z"


def test_the_guards_move_a_post_to_a_later_slot(api, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    slots = [{"day": "mon", "time": t} for t in ("09:00", "09:30", "12:00", "18:00")]
    channel(api, slots=slots, min_gap_minutes=60, daily_cap=2)
    times = [queued_at(api, draft(api)) for _ in range(3)]
    # 09:30 is within an hour of 09:00; the day's cap of 2 sends the third a week on
    assert times == [
        "2031-03-03T09:00:00.000000Z",
        "2031-03-03T12:00:00.000000Z",
        "2031-03-10T09:00:00.000000Z",
    ]


def test_no_slots_or_no_channel_is_409_no_free_slot(api):
    post = draft(api)
    error = assert_error(queue(api, post), 409, "no_free_slot")
    assert (
        error["details"] == {"channel": "personal"}
        and "POST /functions/v1/channels" in error["message"]
    )
    channel(api)
    error = assert_error(queue(api, post), 409, "no_free_slot")
    assert "no posting slots" in error["message"]
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Draft"


def test_the_queue_goes_on_past_90_days(api, app):
    """The queue has no depth limit: its posts may go on for years (a
    channel with 10,000 queued is in `make bench`)."""
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}], daily_cap=1)
    times = [queued_at(api, draft(api)) for _ in range(14)]
    assert times[12:] == ["2031-05-26T09:00:00.000000Z", "2031-06-02T09:00:00.000000Z"]


# --- a slot freed inside the queue ---------------------------------------------------

MONDAYS = [f"2031-03-{d:02d}T09:00:00.000000Z" for d in (3, 10, 17, 24, 31)]
LEAVES = {  # ways a planned post leaves its place: each frees its slot
    "unscheduled": lambda api, post: api.patch(ITEM + post["id"], json={"status": "Draft"}),
    "failed": lambda api, post: api.patch(
        ITEM + post["id"], json={"status": "Failed", "last_error": "gave up"}
    ),
    "rescheduled": lambda api, post: api.patch(
        ITEM + post["id"], json={"scheduled_at": "2031-09-01T10:00:00Z"}
    ),
    "moved": lambda api, post: api.patch(
        ITEM + post["id"], json={"type": "brand", "brand_id": "acme"}
    ),
    "deleted": lambda api, post: api.client.delete(
        ITEM + post["id"], headers={"X-API-Key": api.key}
    ),
}


def queued(api):
    r = queue(api, draft(api))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


@pytest.mark.parametrize("how", LEAVES)
def test_a_slot_freed_inside_the_queue_is_taken_again(api, app, how):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}])
    posts = [queued(api) for _ in MONDAYS]
    assert [p["scheduled_at"] for p in posts] == MONDAYS
    assert LEAVES[how](api, posts[1]).status_code in (200, 204)
    assert queued_at(api, draft(api)) == MONDAYS[1]
    assert queued_at(api, draft(api)) == "2031-04-07T09:00:00.000000Z"


def test_a_post_leaving_frees_the_slots_its_guards_barred(api, app):
    """A post planned between slots bars those within min_gap_minutes of it
    and counts against its day's daily_cap; once it leaves, the queue finds
    them free again, though it had passed them as taken."""
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    slots = [{"day": "mon", "time": t} for t in ("09:00", "09:30", "12:00")]
    channel(api, slots=slots, min_gap_minutes=60, daily_cap=2)
    between = draft(api, scheduled_at="2031-03-03T09:15:00Z")
    assert api.patch(ITEM + between["id"], json={"status": "Scheduled"}).status_code == 200
    assert [queued_at(api, draft(api)) for _ in range(2)] == [
        "2031-03-03T12:00:00.000000Z",  # 09:00 and 09:30 are within an hour of 09:15
        "2031-03-10T09:00:00.000000Z",  # the 3rd has its cap of 2
    ]
    assert api.patch(ITEM + between["id"], json={"status": "Draft"}).status_code == 200
    assert queued_at(api, draft(api)) == "2031-03-03T09:00:00.000000Z"
    assert queued_at(api, draft(api)) == "2031-03-10T12:00:00.000000Z"


def test_a_slot_taken_past_the_queues_end_is_skipped(api, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}])
    assert [queued_at(api, draft(api)) for _ in range(2)] == MONDAYS[:2]
    manual = draft(api, scheduled_at=MONDAYS[2])
    assert api.patch(ITEM + manual["id"], json={"status": "Scheduled"}).status_code == 200
    assert queued_at(api, draft(api)) == MONDAYS[3]


CAPPED = {"min_gap_minutes": 60, "daily_cap": 1}  # Mondays at 09:00 fill first
GAPPED = {"min_gap_minutes": 60}  # 09:00 and 12:00 fill first, 09:30 is too near 09:00
FILLED = {
    "CAPPED": MONDAYS[:3],
    "GAPPED": [MONDAYS[0], "2031-03-03T12:00:00.000000Z", MONDAYS[1]],
}
CHANGES = [  # a change of the channel's slots, zone or guards, and the slot it frees
    (
        "CAPPED",
        {"slots": [{"day": "mon", "time": "09:00"}, {"day": "wed", "time": "09:00"}]},
        "2031-03-05T09:00",
    ),
    ("CAPPED", {"daily_cap": 2}, "2031-03-03T12:00"),
    ("GAPPED", {"min_gap_minutes": 0}, "2031-03-03T09:30"),
    ("GAPPED", {"timezone": "Europe/Berlin"}, "2031-03-03T08:00"),  # 09:00 CET
]


@pytest.mark.parametrize("base, change, freed", CHANGES, ids=[next(iter(c)) for _, c, _ in CHANGES])
def test_a_change_of_slots_zone_or_guards_makes_the_queue_look_again(api, app, base, change, freed):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    slots = [{"day": "mon", "time": t} for t in ("09:00", "09:30", "12:00")]
    channel(api, slots=slots, **{"CAPPED": CAPPED, "GAPPED": GAPPED}[base])
    assert [queued_at(api, draft(api)) for _ in range(3)] == FILLED[base]
    assert api.patch(CHANNEL + "personal", json=change).status_code == 200
    assert queued_at(api, draft(api)) == f"{freed}:00.000000Z"


def test_a_change_of_name_or_author_keeps_the_queue(api, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}])
    assert [queued_at(api, draft(api)) for _ in range(2)] == MONDAYS[:2]
    body = {"name": "Renamed", "author_urn": "urn:li:person:abc"}
    assert api.patch(CHANNEL + "personal", json=body).status_code == 200
    assert queued_at(api, draft(api)) == MONDAYS[2]


@pytest.mark.parametrize("status", ["Scheduled", "Published"])
def test_only_a_draft_or_failed_post_is_queued(api, app, status):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    channel(api, slots=[{"day": d, "time": "09:00"} for d in EVERY_DAY])
    post = draft(api, scheduled_at="2031-01-01T00:00:00Z")
    post = api.patch(ITEM + post["id"], json={"status": "Scheduled"}).get_json()
    if status == "Published":
        body = {
            "post_id": post["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://www.linkedin.com/feed/update/urn:li:share:1",
        }
        post = api.post("/functions/v1/make-post-callback", json=body).get_json()
    assert_error(queue(api, post), 409, "conflict")
    assert api.get(ITEM + post["id"]).get_json() == post


def test_queue_honours_if_match_and_needs_publish_scope(api, caller, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}])
    post = draft(api)
    assert_error(queue(api, post, **{"If-Match": '"5"'}), 412, "precondition_failed")
    writer = caller("alice", scopes=["posts:read", "posts:write"])
    error = assert_error(queue(writer, post), 403, "insufficient_scope")
    assert error["details"]["required_scope"] == "posts:publish"
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Draft"
    assert queue(api, post, **{"If-Match": '"1"'}).status_code == 200


BAD_QUEUE = [
    ({}, "post_id"),
    ({"post_id": "nope"}, "post_id"),
    ({"post_id": None}, "post_id"),
    ({"post_id": "00000000-0000-4000-8000-000000000000", "at": 1}, "at"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_QUEUE)
def test_bad_queue_bodies(api, body, field):
    assert field in assert_error(api.post(QUEUE, json=body), 400, "validation_error")["details"]


def test_another_users_post_is_404(api, caller, app):
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))
    channel(api, slots=[{"day": "mon", "time": "09:00"}])
    theirs = draft(caller("bob"))
    assert_error(queue(api, theirs), 404, "not_found")


# --- twelve at once, on real gunicorn ----------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "queue", workers=6) as server:
        yield server


def test_concurrent_queue_requests_never_share_a_slot(server):
    key = create_key(server.database, user="racer")
    client = Client(server.url, key)
    slots = [{"day": d, "time": f"{h:02}:00"} for d in EVERY_DAY for h in (9, 13, 17)]
    assert client.post(CHANNELS, {"type": "personal", "name": "Me", "slots": slots}).status == 201
    ids = [
        client.post(POSTS, {"type": "personal", "content": f"r{n}"}).json["id"] for n in range(12)
    ]
    barrier = threading.Barrier(len(ids), timeout=60)
    answers = [None] * len(ids)

    def send(i):
        mine = Client(server.url, key, timeout=30)
        barrier.wait()
        answers[i] = mine.post(QUEUE, {"post_id": ids[i]})

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(ids))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status for a in answers] == [200] * 12, [a.json for a in answers]
    times = [a.json["scheduled_at"] for a in answers]
    assert len(set(times)) == 12
    listed = client.get(POSTS + "?status=Scheduled&order=scheduled_at&limit=100").json["data"]
    assert sorted(p["scheduled_at"] for p in listed) == sorted(times)


def test_concurrent_queue_requests_share_no_slot_beside_a_queue_and_its_holes(server):
    """Twelve at once into a channel that holds a queue with two holes in
    it: the holes and the slots past the queue are each taken once."""
    key = create_key(server.database, user="filler")
    client = Client(server.url, key)
    slots = [{"day": d, "time": "09:00"} for d in EVERY_DAY]
    assert client.post(CHANNELS, {"type": "personal", "name": "Me", "slots": slots}).status == 201
    queued = []
    for n in range(8):
        post = client.post(POSTS, {"type": "personal", "content": f"q{n}"}).json
        r = client.post(QUEUE, {"post_id": post["id"]})
        assert r.status == 200, r.json
        queued.append(r.json)
    freed = [queued[2], queued[5]]
    for post in freed:
        assert client.patch(ITEM + post["id"], {"status": "Draft"}).status == 200
    ids = [
        client.post(POSTS, {"type": "personal", "content": f"r{n}"}).json["id"] for n in range(12)
    ]
    barrier = threading.Barrier(len(ids), timeout=60)
    answers = [None] * len(ids)

    def send(i):
        mine = Client(server.url, key, timeout=30)
        barrier.wait()
        answers[i] = mine.post(QUEUE, {"post_id": ids[i]})

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(ids))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status for a in answers] == [200] * 12, [a.json for a in answers]
    times = sorted(a.json["scheduled_at"] for a in answers)
    assert {p["scheduled_at"] for p in freed} <= set(times)  # the holes, taken again
    planned = client.get(POSTS + "?status=Scheduled&order=scheduled_at&limit=100").json["data"]
    assert len(planned) == 6 + 12
    assert len({p["scheduled_at"] for p in planned}) == len(planned)  # one post a slot


def test_a_weekly_series_takes_its_coming_mondays_from_the_queue_and_the_guards(api, app):
    """ "Next free slot" once put a post on a Monday the weekly series also
    takes: every planned occurrence of a series is taken."""
    lead_until(app, datetime(2031, 3, 3, 0, tzinfo=UTC))  # a Monday
    channel(api, slots=[{"day": "mon", "time": "08:30"}, {"day": "tue", "time": "08:30"}])
    series = draft(api, scheduled_at="2031-03-03T08:30:00Z", repeat="FREQ=WEEKLY")
    assert api.patch(ITEM + series["id"], json={"status": "Scheduled"}).status_code == 200
    times = [queued_at(api, draft(api)) for _ in range(4)]
    assert times == [
        "2031-03-04T08:30:00.000000Z",
        "2031-03-11T08:30:00.000000Z",
        "2031-03-18T08:30:00.000000Z",
        "2031-03-25T08:30:00.000000Z",
    ]
    monday = draft(api, scheduled_at="2031-03-17T08:30:40Z")  # the same minute, not instant
    err = assert_error(
        api.patch(ITEM + monday["id"], json={"status": "Scheduled"}), 409, "schedule_conflict"
    )
    assert err["details"]["rule"] == "same_minute"
    assert err["details"]["conflicting_post_ids"] == [series["id"]]
    assert api.get(ITEM + monday["id"]).get_json()["status"] == "Draft"
    # moving the series' own post is not in its own way
    moved = api.patch(ITEM + series["id"], json={"scheduled_at": "2031-03-03T08:31:00Z"})
    assert moved.status_code == 200, moved.get_json()
