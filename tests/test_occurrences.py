"""GET /api-v2-posts-occurrences: the repeats a recurring series will make
over a range of time, for the calendar: by the rule that will make them,
in the channel's zone, ending with the rule or a guard, never a post that
exists already."""

import contextlib
import sqlite3

import pytest

from harness import Client, create_key, serve
from harness.api import API, CALLBACK, CHANNELS, IMPORT, ITEM, POSTS
from tests.conftest import assert_error

OCCURRENCES = f"{API}/api-v2-posts-occurrences"


@pytest.fixture(autouse=True)
def any_time(app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400 * 365 * 20  # past and future both schedulable


def series_post(api, at, repeat, **fields):
    body = {"type": "personal", "content": "weekly tip", "scheduled_at": at, "repeat": repeat}
    post = api.post(POSTS, json={**body, **fields}).get_json()
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def repeats(api, start, end):
    r = api.get(f"{OCCURRENCES}?from={start}&to={end}")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert set(body) == {"data", "more"}
    return body["data"]


def test_a_weekly_series_shows_its_coming_mondays_in_the_channels_zone(api):
    channel = {"type": "personal", "name": "Me", "timezone": "Europe/Berlin"}
    assert api.post(CHANNELS, json=channel).status_code == 201
    first = series_post(
        api,
        "2031-06-02T07:00:00Z",
        "FREQ=WEEKLY;BYDAY=MO",
        media_urls=["https://cdn.example/a.png"],
    )
    found = repeats(api, "2031-06-01T00:00:00Z", "2031-07-01T00:00:00Z")
    assert [r["scheduled_at"] for r in found] == [
        f"2031-06-{d:02d}T07:00:00.000000Z" for d in (9, 16, 23, 30)
    ]  # 09:00 in Berlin's summer; the first occurrence is a post, not a repeat
    assert [r["occurrence"] for r in found] == [2, 3, 4, 5]
    for repeat in found:
        assert repeat["post_id"] == first["id"] and repeat["series_id"] == first["series_id"]
        assert repeat["content"] == "weekly tip" and repeat["type"] == "personal"
        assert repeat["media_urls"] == ["https://cdn.example/a.png"]
        assert repeat["repeat"] == "FREQ=WEEKLY;BYDAY=MO" and repeat["stops"] is None
    # A range is half-open: from <= scheduled_at < to.
    assert len(repeats(api, "2031-06-09T07:00:00Z", "2031-06-16T07:00:00Z")) == 1


def test_once_an_occurrence_goes_out_the_repeats_start_after_the_next_post(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=WEEKLY;BYDAY=MO;COUNT=4")
    body = {"post_id": first["id"], "linkedin_post_id": "urn:li:share:1"}
    assert api.post(CALLBACK, json=body).status_code == 200
    following = api.get(f"{POSTS}?series_id={first['series_id']}&status=Scheduled").get_json()
    [second] = following["data"]
    assert second["scheduled_at"] == "2031-06-09T09:00:00.000000Z"
    found = repeats(api, "2031-06-01T00:00:00Z", "2031-07-01T00:00:00Z")
    # the 9th is a post now, not a repeat; COUNT=4 ends with the 23rd
    assert [(r["scheduled_at"][:10], r["occurrence"]) for r in found] == [
        ("2031-06-16", 3),
        ("2031-06-23", 4),
    ]
    assert {r["post_id"] for r in found} == {second["id"]}


@pytest.mark.parametrize(
    ("zone", "start", "expected"),
    [
        # New York springs forward on 9 March 2031: 09:00 stays 09:00 local.
        ("America/New_York", "2031-03-07T14:00:00Z", ["03-08T14", "03-09T13", "03-10T13"]),
        # Berlin falls back on 26 October 2031.
        ("Europe/Berlin", "2031-10-24T07:00:00Z", ["10-25T07", "10-26T08", "10-27T08"]),
    ],
)
def test_repeats_keep_the_wall_time_across_daylight_saving(api, zone, start, expected):
    channel = {"type": "personal", "name": "Me", "timezone": zone}
    assert api.post(CHANNELS, json=channel).status_code == 201
    series_post(api, start, "FREQ=DAILY;COUNT=4")
    found = repeats(api, "2031-01-01T00:00:00Z", "2031-04-01T00:00:00Z")
    found += repeats(api, "2031-10-01T00:00:00Z", "2031-12-01T00:00:00Z")
    assert [r["scheduled_at"][5:13] for r in found] == expected


def test_until_ends_the_series_on_that_local_day(api):
    series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY;UNTIL=20310605")
    found = repeats(api, "2031-06-01T00:00:00Z", "2031-07-01T00:00:00Z")
    assert [r["scheduled_at"][:10] for r in found] == ["2031-06-03", "2031-06-04", "2031-06-05"]


def test_a_repeat_that_would_break_a_guard_is_where_the_series_stops(api):
    channel = {"type": "brand", "brand_id": "acme", "name": "Acme", "daily_cap": 1}
    assert api.post(CHANNELS, json=channel).status_code == 201
    other = {  # planned before the series: a post planned after it is refused that day
        "type": "brand",
        "brand_id": "acme",
        "content": "launch",
        "scheduled_at": "2031-06-04T15:00:00Z",
    }
    made = api.post(POSTS, json=other).get_json()
    assert api.patch(ITEM + made["id"], json={"status": "Scheduled"}).status_code == 200
    series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY", type="brand", brand_id="acme")
    found = repeats(api, "2031-06-01T00:00:00Z", "2031-07-01T00:00:00Z")
    assert [r["scheduled_at"][:10] for r in found] == ["2031-06-03", "2031-06-04"]
    assert found[0]["stops"] is None
    assert "daily_cap" in found[1]["stops"] and "stops here" in found[1]["stops"]


def test_a_draft_a_deleted_or_ended_series_has_no_repeats(api):
    draft = api.post(
        POSTS,
        json={
            "type": "personal",
            "content": "d",
            "scheduled_at": "2031-06-02T09:00:00Z",
            "repeat": "FREQ=DAILY",
        },
    ).get_json()
    assert draft["status"] == "Draft"
    deleted = series_post(api, "2031-06-02T10:00:00Z", "FREQ=DAILY")
    assert (
        api.client.delete(ITEM + deleted["id"], headers={"X-API-Key": api.key}).status_code == 204
    )
    ended = series_post(api, "2031-06-02T11:00:00Z", "FREQ=DAILY")
    assert api.patch(ITEM + ended["id"], json={"repeat": None}).status_code == 200
    assert repeats(api, "2031-06-01T00:00:00Z", "2031-07-01T00:00:00Z") == []


def test_more_says_when_the_range_holds_more_than_one_answer(api, monkeypatch):
    from content_publishing.planning import forecast

    monkeypatch.setattr(forecast, "MOST", 5)
    series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY")
    series_post(api, "2031-06-02T08:00:00Z", "FREQ=DAILY")
    body = api.get(f"{OCCURRENCES}?from=2031-06-01T00:00:00Z&to=2031-06-30T00:00:00Z").get_json()
    assert body["more"] is True and len(body["data"]) == 5
    times = [r["scheduled_at"] for r in body["data"]]
    assert times == sorted(times) and times[0] == "2031-06-03T08:00:00.000000Z"
    body = api.get(f"{OCCURRENCES}?from=2031-06-01T00:00:00Z&to=2031-06-04T00:00:00Z").get_json()
    assert body["more"] is False and len(body["data"]) == 2


NEVER = "FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=1MO"  # the 30th is never the first Monday


@pytest.mark.backend_independent
def test_forty_series_that_never_repeat_answer_no_repeats_within_a_request(tmp_path):
    """Against real gunicorn, whose worker timeout (30 s) is the request's
    bound: 40 series stored before such a rule was refused (written here
    straight into the database) are each searched within a bound, and
    answer no repeats while a weekly series beside them answers its
    Mondays. (This request's time is `make bench`'s: bench/planning.py.)"""
    with serve(tmp_path, workers=1) as server:
        client = Client(server.url, create_key(server.database), timeout=60)
        rows = [
            {
                "type": "brand",
                "brand_id": f"acme-{n}",
                "content": f"monthly {n}",
                "scheduled_at": "2031-06-02T09:00:00Z",
                "repeat": "FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=MO",
            }
            for n in range(40)
        ]
        made = client.post(IMPORT, {"posts": rows})
        assert made.status == 201, made
        ids = [p["id"] for p in made.json["data"]]
        with contextlib.closing(sqlite3.connect(server.database)) as db, db:
            db.executemany("UPDATE posts SET repeat = ? WHERE id = ?", [(NEVER, i) for i in ids])
        post = client.post(
            POSTS, {"type": "personal", "content": "tip", "scheduled_at": "2031-06-02T07:00:00Z"}
        ).json
        weekly = client.patch(
            ITEM + post["id"], {"status": "Scheduled", "repeat": "FREQ=WEEKLY;BYDAY=MO"}
        )
        assert weekly.status == 200, weekly
        r = client.get(f"{OCCURRENCES}?from=2031-06-01T00:00:00Z&to=2031-09-01T00:00:00Z")
        assert r.status == 200, r
        found = r.json["data"]
        assert {f["series_id"] for f in found} == {weekly.json["series_id"]}
        assert [f["scheduled_at"][:10] for f in found][:2] == ["2031-06-09", "2031-06-16"]
        assert len(found) == 12 and not r.json["more"]  # the Mondays from 9 June to 25 August
        assert {client.get(ITEM + i).json["repeat"] for i in ids} == {NEVER}


def test_a_rule_that_never_repeats_where_it_is_shows_no_repeats(api):
    """The 30th, every February: valid in itself, never met from this start."""
    series_post(api, "2031-02-10T09:00:00Z", "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30")
    assert repeats(api, "2031-02-01T00:00:00Z", "2031-05-01T00:00:00Z") == []
    assert repeats(api, "2090-02-01T00:00:00Z", "2090-04-01T00:00:00Z") == []


def test_only_the_callers_series(api, caller):
    series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY")
    bob = caller("bob")
    r = bob.get(f"{OCCURRENCES}?from=2031-06-01T00:00:00Z&to=2031-07-01T00:00:00Z")
    assert r.status_code == 200 and r.get_json()["data"] == []


@pytest.mark.backend_independent
def test_it_needs_posts_read(caller):
    writer = caller("carol", scopes=["posts:write"])
    r = writer.get(f"{OCCURRENCES}?from=2031-06-01T00:00:00Z&to=2031-07-01T00:00:00Z")
    error = assert_error(r, 403, "insufficient_scope")
    assert error["details"]["required_scope"] == "posts:read"


BAD_QUERIES = [
    ("to=2031-07-01T00:00:00Z", "from"),
    ("from=2031-06-01T00:00:00Z", "to"),
    ("from=2031-06-01&to=2031-07-01T00:00:00Z", "from"),
    ("from=2031-06-01T00:00:00Z&to=2031-07-01 00:00", "to"),
    ("from=2031-06-01T00:00:00Z&to=2031-06-01T00:00:00Z", "to"),
    ("from=2031-06-02T00:00:00Z&to=2031-06-01T00:00:00Z", "to"),
    ("from=2031-01-01T00:00:00Z&to=2031-04-03T00:00:01Z", "to"),
    ("from=2031-06-01T00:00:00Z&to=2031-07-01T00:00:00Z&limit=5", "limit"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize(("query", "field"), BAD_QUERIES)
def test_bad_ranges_are_400_naming_the_parameter(api, query, field):
    error = assert_error(api.get(f"{OCCURRENCES}?{query}"), 400, "validation_error")
    assert field in error["details"], error
