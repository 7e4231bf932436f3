"""A channel's guards (min_gap_minutes, daily_cap) on every path that sets a
Scheduled post's time: PATCH, the queue (tests/test_queue.py), an import
and a series' next occurrence."""

import pytest

from harness.api import CALLBACK, CHANNELS, IMPORT, ITEM, POSTS
from tests.conftest import assert_error


@pytest.fixture(autouse=True)
def far_ahead(app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400 * 365 * 20  # any time is schedulable


def channel(api, **fields):
    body = {"type": "brand", "brand_id": "acme", "name": "Acme", **fields}
    assert api.post(CHANNELS, json=body).status_code == 201


def scheduled(api, at, brand="acme", **fields):
    post = api.post(
        POSTS,
        json={"type": "brand", "brand_id": brand, "content": "x", "scheduled_at": at, **fields},
    ).get_json()
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_patch_keeps_the_minimum_gap(api):
    channel(api, min_gap_minutes=90)
    first = scheduled(api, "2031-05-05T09:00:00Z")
    post = api.post(
        POSTS,
        json={
            "type": "brand",
            "brand_id": "acme",
            "content": "y",
            "scheduled_at": "2031-05-05T10:00:00Z",
        },
    ).get_json()
    error = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 409, "schedule_conflict"
    )
    assert error["details"] == {
        "channel": "acme",
        "rule": "min_gap_minutes",
        "conflicting_post_ids": [first["id"]],
    }
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Draft"
    # exactly the gap apart is allowed; a reschedule is checked too
    ok = api.patch(
        ITEM + post["id"], json={"status": "Scheduled", "scheduled_at": "2031-05-05T10:30:00Z"}
    )
    assert ok.status_code == 200
    error = assert_error(
        api.patch(ITEM + post["id"], json={"scheduled_at": "2031-05-05T08:00:00Z"}),
        409,
        "schedule_conflict",
    )
    assert error["details"]["conflicting_post_ids"] == [first["id"]]
    assert api.get(ITEM + post["id"]).get_json()["scheduled_at"] == "2031-05-05T10:30:00.000000Z"


def test_patch_keeps_the_daily_cap_in_the_channels_zone(api):
    channel(api, daily_cap=2, timezone="America/New_York")
    a = scheduled(api, "2031-05-05T13:00:00Z")  # 09:00 New York, 5 May
    b = scheduled(api, "2031-05-06T03:30:00Z")  # 23:30 New York, still 5 May
    post = api.post(
        POSTS,
        json={
            "type": "brand",
            "brand_id": "acme",
            "content": "z",
            "scheduled_at": "2031-05-05T05:00:00Z",
        },
    ).get_json()
    error = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 409, "schedule_conflict"
    )
    assert error["details"]["rule"] == "daily_cap"
    assert sorted(error["details"]["conflicting_post_ids"]) == sorted([a["id"], b["id"]])
    assert "2031-05-05" in error["message"]
    # 04:00 UTC on the 6th is 00:00 in New York: the next local day
    assert (
        api.patch(
            ITEM + post["id"], json={"status": "Scheduled", "scheduled_at": "2031-05-06T04:00:00Z"}
        ).status_code
        == 200
    )


def test_a_failed_or_draft_post_does_not_count(api):
    channel(api, daily_cap=1)
    failed = scheduled(api, "2031-05-05T09:00:00Z")
    api.patch(ITEM + failed["id"], json={"status": "Failed", "last_error": "no"})
    assert scheduled(api, "2031-05-05T12:00:00Z")["status"] == "Scheduled"


def test_moving_a_scheduled_post_to_another_channel_checks_that_channel(api):
    channel(api, daily_cap=1)
    scheduled(api, "2031-05-05T09:00:00Z")
    other = scheduled(api, "2031-05-05T12:00:00Z", brand="globex")
    error = assert_error(
        api.patch(ITEM + other["id"], json={"brand_id": "acme"}), 409, "schedule_conflict"
    )
    assert error["details"]["rule"] == "daily_cap"
    assert api.get(ITEM + other["id"]).get_json()["brand_id"] == "globex"


def test_no_post_gets_round_the_personal_channels_guards_as_brand_personal(api):
    """A brand post with brand_id `personal` once took the personal channel's
    lock, slots and author without its guards counting it: four went out in
    one 09:00 slot under daily_cap 1. No create, PATCH or import makes one."""
    body = {"type": "personal", "name": "Me", "daily_cap": 1, "author_urn": "urn:li:person:me"}
    assert api.post(CHANNELS, json=body).status_code == 201
    mine = api.post(
        POSTS, json={"type": "personal", "content": "x", "scheduled_at": "2031-05-05T09:00:00Z"}
    ).get_json()
    assert api.patch(ITEM + mine["id"], json={"status": "Scheduled"}).status_code == 200
    sneaking = {"type": "brand", "brand_id": "personal", "content": "y"}
    at = {"scheduled_at": "2031-05-05T09:00:00Z"}
    assert (
        "brand_id"
        in assert_error(api.post(POSTS, json={**sneaking, **at}), 400, "validation_error")[
            "details"
        ]
    )
    rows = assert_error(
        api.post(IMPORT, json={"posts": [{**sneaking, **at}, {**sneaking, "queue": True}]}),
        400,
        "validation_error",
    )["details"]["rows"]
    assert all("brand_id" in rows[n] for n in ("1", "2"))
    acme = scheduled(api, "2031-05-05T09:00:00Z")
    assert (
        "brand_id"
        in assert_error(
            api.patch(ITEM + acme["id"], json={"brand_id": "personal"}), 400, "validation_error"
        )["details"]
    )
    day = "scheduled_after=2031-05-05T00:00:00Z&scheduled_before=2031-05-06T00:00:00Z"
    planned = api.get(f"{POSTS}?status=Scheduled&type=personal&{day}").get_json()["data"]
    assert [p["id"] for p in planned] == [mine["id"]]


def test_a_channel_not_set_up_has_no_guards(api):
    channel(api, daily_cap=1)
    for hour in (9, 10, 11):
        scheduled(api, f"2031-05-05T{hour:02}:00:00Z", brand="globex")


def test_an_import_reports_every_breach_as_its_rows_error(api):
    channel(api, min_gap_minutes=60, daily_cap=2)
    existing = scheduled(api, "2031-05-05T09:00:00Z")
    rows = [
        {
            "type": "brand",
            "brand_id": "acme",
            "content": "1",
            "scheduled_at": "2031-05-05T09:30:00Z",
        },
        {
            "type": "brand",
            "brand_id": "acme",
            "content": "2",
            "scheduled_at": "2031-05-05T12:00:00Z",
        },
        {
            "type": "brand",
            "brand_id": "acme",
            "content": "3",
            "scheduled_at": "2031-05-05T15:00:00Z",
        },
        {
            "type": "brand",
            "brand_id": "acme",
            "content": "4",
            "scheduled_at": "2031-05-05T12:20:00Z",
        },
    ]
    error = assert_error(api.post(IMPORT, json={"posts": rows}), 400, "validation_error")
    rows_out = error["details"]["rows"]
    assert set(rows_out) == {"1", "3", "4"}  # the gap; the cap (counting row 2); the gap to row 2
    assert "min_gap_minutes" in rows_out["1"]["scheduled_at"][0]
    assert "daily_cap" in rows_out["3"]["scheduled_at"][0]
    assert "min_gap_minutes" in rows_out["4"]["scheduled_at"][0]
    assert (
        api.get(POSTS).get_json()["total"] == 1
        and api.get(POSTS).get_json()["data"][0]["id"] == existing["id"]
    )


FUTURE_6TH = "2031-05-06T15:00:00Z"


def test_a_series_stops_when_its_next_occurrence_breaks_a_guard(api):
    channel(api, daily_cap=1)
    scheduled(api, "2031-05-06T15:00:00Z")  # the 6th is full before the series starts
    post = scheduled(api, "2031-05-05T09:00:00Z", repeat="FREQ=DAILY")
    body = {
        "post_id": post["id"],
        "linkedin_post_id": "urn:li:share:9",
        "live_url": "https://www.linkedin.com/feed/update/urn:li:share:9",
    }
    published = api.post(CALLBACK, json=body).get_json()
    assert published["status"] == "Published"
    assert (
        "The series stopped" in published["last_error"] and "daily_cap" in published["last_error"]
    )
    assert api.get(f"{POSTS}?series_id={post['series_id']}").get_json()["total"] == 1


def test_a_post_is_refused_where_a_series_will_take_the_day_or_the_minute(api):
    channel(api, daily_cap=1)
    series = scheduled(api, "2031-05-05T09:00:00Z", repeat="FREQ=DAILY")
    post = api.post(
        POSTS,
        json={"type": "brand", "brand_id": "acme", "content": "x", "scheduled_at": FUTURE_6TH},
    ).get_json()
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 409, "schedule_conflict"
    )
    assert err["details"]["rule"] == "daily_cap"
    assert err["details"]["conflicting_post_ids"] == [series["id"]]
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Draft"
