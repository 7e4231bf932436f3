"""Recurring posts: a series' next occurrence when one finishes, daylight
saving, missed instants skipped, the ways a series ends, and a restart."""

from datetime import UTC, datetime, timedelta

import pytest

from harness.api import CALLBACK, CHANNELS, CLAIM, ITEM, POSTS
from tests.conftest import assert_error


@pytest.fixture(autouse=True)
def any_time(app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400 * 365 * 20  # past and future both schedulable


def series_post(api, at, repeat, **fields):
    body = {
        "type": "personal",
        "content": "weekly tip",
        "media_urls": ["https://cdn.example.com/t.png"],
        "scheduled_at": at,
        "repeat": repeat,
        **fields,
    }
    post = api.post(POSTS, json=body).get_json()
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def publish(api, post, n=1):
    body = {
        "post_id": post["id"],
        "linkedin_post_id": f"urn:li:share:{n}",
        "live_url": f"https://www.linkedin.com/feed/update/urn:li:share:{n}",
    }
    r = api.post(CALLBACK, json=body)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def series(api, post):
    page = api.get(f"{POSTS}?series_id={post['series_id']}&order=scheduled_at").get_json()
    return page["data"]


def test_publishing_an_occurrence_makes_the_next(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=WEEKLY;BYDAY=MO")
    assert (
        first["series_id"]
        and first["occurrence"] == 1
        and first["repeat"] == "FREQ=WEEKLY;BYDAY=MO"
    )
    publish(api, first)
    done, following = series(api, first)
    assert done["id"] == first["id"] and done["status"] == "Published"
    assert following["status"] == "Scheduled" and following["occurrence"] == 2
    assert following["scheduled_at"] == "2031-06-09T09:00:00.000000Z"
    for field in ("type", "brand_id", "content", "media_urls", "repeat", "series_id"):
        assert following[field] == first[field], field
    publish(api, done)  # the callback again: nothing more
    assert len(series(api, first)) == 2


def test_a_failed_occurrence_makes_the_next_once(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY")
    api.patch(ITEM + first["id"], json={"status": "Failed", "last_error": "token expired"})
    assert [p["occurrence"] for p in series(api, first)] == [1, 2]
    api.patch(ITEM + first["id"], json={"status": "Scheduled"})  # retried...
    publish(api, first)  # ... and published: the series has moved on already
    assert [p["occurrence"] for p in series(api, first)] == [1, 2]


def test_a_lease_that_runs_out_makes_the_next(api, clock):
    first = series_post(api, "2020-06-02T09:00:00Z", "FREQ=DAILY")
    claimed = api.post(CLAIM, json={"lease_seconds": 1}).get_json()["data"]
    assert [p["id"] for p in claimed] == [first["id"]]
    clock.advance(1.2)
    failed, following = series(api, first)  # the list settles the lease first
    assert failed["status"] == "Failed" and "expired" in failed["last_error"]
    assert following["status"] == "Scheduled" and following["occurrence"] == 2


def test_missed_instants_are_skipped_never_fired_late(api, app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 60
    long_ago = (datetime.now(UTC) - timedelta(days=30)).replace(microsecond=0)
    api_post = api.post(
        POSTS,
        json={
            "type": "personal",
            "content": "daily",
            "scheduled_at": long_ago.isoformat(),
            "repeat": "FREQ=DAILY",
        },
    ).get_json()
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400 * 60
    api.patch(ITEM + api_post["id"], json={"status": "Scheduled"})
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 60
    publish(api, api_post)
    made = series(api, api_post)
    assert len(made) == 2  # one next occurrence, not thirty
    next_at = datetime.fromisoformat(made[1]["scheduled_at"])
    assert timedelta(seconds=60) < next_at - datetime.now(UTC) <= timedelta(days=1, seconds=60)
    assert next_at.time() == long_ago.time()  # the same wall time (UTC)


DST = [
    # zone, first (UTC), rule, the next occurrence (UTC)
    (
        "America/New_York",
        "2027-03-13T07:30:00Z",
        "FREQ=DAILY",
        "2027-03-15T06:30:00.000000Z",
    ),  # 02:30 does not exist on the 14th
    (
        "America/New_York",
        "2027-11-06T05:30:00Z",
        "FREQ=DAILY",
        "2027-11-07T05:30:00.000000Z",
    ),  # 01:30 twice: the first
    (
        "America/New_York",
        "2027-03-12T14:00:00Z",
        "FREQ=WEEKLY",
        "2027-03-19T13:00:00.000000Z",
    ),  # 09:00 stays 09:00
    (
        "Europe/Berlin",
        "2027-03-27T01:30:00Z",
        "FREQ=DAILY",
        "2027-03-29T00:30:00.000000Z",
    ),  # 02:30 does not exist on the 28th
    (
        "Europe/Berlin",
        "2027-10-30T00:30:00Z",
        "FREQ=DAILY",
        "2027-10-31T00:30:00.000000Z",
    ),  # 02:30 twice: the first
    (
        "Europe/Berlin",
        "2027-10-25T08:00:00Z",
        "FREQ=WEEKLY;BYDAY=MO",
        "2027-11-01T09:00:00.000000Z",
    ),
]


@pytest.mark.parametrize(
    "zone, first, rule, expected", DST, ids=[f"{z}-{f[:10]}" for z, f, _, _ in DST]
)
def test_daylight_saving_keeps_the_wall_time(api, zone, first, rule, expected):
    assert (
        api.post(CHANNELS, json={"type": "personal", "name": "Me", "timezone": zone}).status_code
        == 201
    )
    post = series_post(api, first, rule)
    publish(api, post)
    assert series(api, post)[1]["scheduled_at"] == expected


def test_count_ends_the_series(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY;COUNT=2")
    publish(api, first)
    second = series(api, first)[1]
    publish(api, second, 2)
    assert [p["status"] for p in series(api, first)] == ["Published", "Published"]


def test_until_ends_the_series(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=WEEKLY;UNTIL=20310609")
    publish(api, first)
    second = series(api, first)[1]
    assert second["scheduled_at"] == "2031-06-09T09:00:00.000000Z"  # UNTIL is a whole (local) day
    publish(api, second, 2)
    assert len(series(api, first)) == 2


def test_deleting_the_scheduled_occurrence_ends_the_series(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY")
    publish(api, first)
    second = series(api, first)[1]
    assert api.client.delete(ITEM + second["id"], headers={"X-API-Key": api.key}).status_code == 204
    assert [p["id"] for p in series(api, first)] == [first["id"]]
    publish(api, first)  # a repeated callback makes nothing either
    assert len(series(api, first)) == 1


def test_repeat_null_ends_the_series(api):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY")
    publish(api, first)
    second = series(api, first)[1]
    changed = api.patch(ITEM + second["id"], json={"repeat": None}).get_json()
    assert changed["repeat"] is None and changed["series_id"] == first["series_id"]
    publish(api, second, 2)
    assert len(series(api, first)) == 2


def test_repeat_is_set_by_patch_only_on_a_draft_or_scheduled_post(api):
    post = api.post(
        POSTS, json={"type": "personal", "content": "x", "scheduled_at": "2031-06-02T09:00:00Z"}
    ).get_json()
    made = api.patch(ITEM + post["id"], json={"repeat": "freq=monthly;bymonthday=-1"}).get_json()
    assert (
        made["repeat"] == "FREQ=MONTHLY;BYMONTHDAY=-1"
        and made["occurrence"] == 1
        and made["series_id"]
    )
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    published = publish(api, api.get(ITEM + post["id"]).get_json())
    error = assert_error(
        api.patch(ITEM + post["id"], json={"repeat": "FREQ=DAILY"}), 409, "conflict"
    )
    assert error["details"]["status"] == "Published"
    assert api.get(ITEM + post["id"]).get_json()["repeat"] == published["repeat"]


BAD_REPEAT = [
    "FREQ=HOURLY",
    "FREQ=YEARLY",
    "BYDAY=MO",
    "FREQ=DAILY;COUNT=2;UNTIL=20300101",
    "FREQ=DAILY;INTERVAL=0",
    "FREQ=DAILY;INTERVAL=x",
    "FREQ=DAILY;BYHOUR=3",
    "FREQ=DAILY;BYSETPOS=1",
    "FREQ=WEEKLY;BYMONTHDAY=1",
    "FREQ=WEEKLY;BYDAY=1MO",
    "FREQ=WEEKLY;BYDAY=XX",
    "FREQ=WEEKLY;BYDAY=MO,MO",
    "FREQ=MONTHLY;BYMONTHDAY=32",
    "FREQ=MONTHLY;BYDAY=0MO",
    "FREQ=DAILY;FREQ=WEEKLY",
    "FREQ=DAILY;COUNT=0",
    "FREQ=DAILY;UNTIL=20301301",
    "FREQ=DAILY;UNTIL=20300101T000000",
    "FREQ=DAILY;",
    "",
    "FREQ=DAILY\nRRULE:FREQ=WEEKLY",
    42,
    # the 30th is never the first Monday, nor the 1st the last Friday: no month has such a day
    "FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=1MO",
    "FREQ=MONTHLY;BYMONTHDAY=1,2;BYDAY=-1FR,-2SA",
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("repeat", BAD_REPEAT)
def test_bad_rules_are_400_naming_repeat(api, repeat):
    body = {"type": "personal", "content": "x", "repeat": repeat}
    error = assert_error(api.post(POSTS, json=body), 400, "validation_error")
    assert "repeat" in error["details"], error
    assert api.get(POSTS).get_json()["total"] == 0


def test_a_rule_that_never_meets_is_refused_naming_why(api):
    body = {"type": "personal", "content": "x", "repeat": "FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=1MO"}
    error = assert_error(api.post(POSTS, json=body), 400, "validation_error")
    assert error["details"]["repeat"] == [
        "BYMONTHDAY=30 and BYDAY=1MO never meet: no month has such a day, so the series "
        "would never repeat."
    ]
    post = api.post(POSTS, json={**body, "repeat": None}).get_json()
    r = api.patch(ITEM + post["id"], json={"repeat": body["repeat"]})
    assert "repeat" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(ITEM + post["id"]).get_json()["repeat"] is None
    # the 30th that is a Monday, or the 1st that is the first Monday, do meet
    for repeat in ("FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=MO", "FREQ=MONTHLY;BYMONTHDAY=1;BYDAY=1MO"):
        assert api.patch(ITEM + post["id"], json={"repeat": repeat}).status_code == 200


def test_a_rule_that_names_no_date_within_the_bound_stops_the_series_saying_so(api):
    """Every February, the 30th: a rule that meets in some months, just never
    in the one it repeats in. Its next occurrence is searched for 1,000 months
    at most; the series stops, and the finished post says why."""
    first = series_post(api, "2031-02-10T09:00:00Z", "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30")
    publish(api, first)
    [done] = series(api, first)
    assert done["status"] == "Published"
    assert done["last_error"] == (
        "The series stopped: looking for its next occurrence after 2031-02-10T09:00:00.000000Z, "
        "its rule names no date in the 1,000 months searched."
    )


def test_byday_is_a_union_of_its_days(api):
    """MO,1FR: every Monday and the first Friday (RFC 5545), not the days that are both."""
    first = series_post(api, "2031-08-01T09:00:00Z", "FREQ=MONTHLY;BYDAY=MO,1FR;COUNT=4")
    publish(api, first)
    _, second = series(api, first)
    assert second["scheduled_at"] == "2031-08-04T09:00:00.000000Z"  # 1 Aug 2031 is a Friday


def test_a_series_is_the_callers_own(api, caller):
    first = series_post(api, "2031-06-02T09:00:00Z", "FREQ=DAILY")
    assert caller("bob").get(f"{POSTS}?series_id={first['series_id']}").get_json()["total"] == 0
