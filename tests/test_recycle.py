"""Recycling: POST /api-v2-posts-recycle/{id} queues a copy of a Published
post on its channel, `recycled_from` naming the original, no sooner than the
channel's recycle_after_days after the original went out."""

import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from harness.api import CALLBACK, CHANNEL, HISTORY, MEDIA, POSTS, RECYCLE
from harness.clock import ahead
from tests.analytics_support import channel, publish_at
from tests.conftest import Caller, assert_error

ZONE = ZoneInfo("Europe/Berlin")  # tests/analytics_support.channel's zone
EVERY_DAY = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]


def published(api, clock, days_ago, channel_id="personal"):
    moment = datetime.now(UTC).replace(microsecond=0) - timedelta(days=days_ago)
    [post] = publish_at(api, clock, [moment], channel_id, content=lambda n, m: "Evergreen tip")
    assert post["status"] == "Published"
    return post


def count(api):
    return api.get(POSTS, query_string={"limit": 100}).get_json()["total"]


def test_a_published_post_is_copied_into_its_channels_queue(api, clock):
    channel(api, "personal", slots=EVERY_DAY)
    original = published(api, clock, days_ago=10)
    r = api.post(RECYCLE + original["id"])
    assert r.status_code == 201, r.get_json()
    copy = r.get_json()
    assert copy["id"] != original["id"] and copy["recycled_from"] == original["id"]
    assert copy["status"] == "Scheduled" and copy["content"] == "Evergreen tip"
    assert copy["type"] == "personal" and copy["published_at"] is None
    assert copy["author"] is not None and copy["author"] == original["author"]  # who recycled it
    assert r.headers["Location"].endswith(f"/api-v2-posts-item/{copy['id']}")
    assert r.headers["ETag"] == f'"{copy["version"]}"'
    # The next free slot: 09:00 in Berlin, after now plus the lead time.
    at = datetime.fromisoformat(copy["scheduled_at"])
    assert at > datetime.now(UTC) and at.astimezone(ZONE).strftime("%H:%M") == "09:00"
    assert api.get(f"{POSTS}-item/{copy['id']}").get_json()["recycled_from"] == original["id"]
    again = api.get(f"{POSTS}-item/{original['id']}").get_json()
    assert again == original | {"stats": again["stats"]}  # the original is unchanged
    assert again["recycled_from"] is None
    [entry] = api.get(HISTORY + copy["id"]).get_json()["data"]
    assert entry["action"] == "recycled" and original["id"] in entry["detail"]
    assert copy["scheduled_at"] in entry["detail"]
    # Recycled again, the next copy takes the next slot.
    second = api.post(RECYCLE + original["id"]).get_json()
    assert second["scheduled_at"] > copy["scheduled_at"]


def test_sooner_than_recycle_after_days_is_too_soon(api, clock):
    channel(api, "personal", slots=EVERY_DAY, recycle_after_days=30)
    original = published(api, clock, days_ago=10)
    before = count(api)
    error = assert_error(api.post(RECYCLE + original["id"]), 409, "too_soon")
    details = error["details"]
    went_out = datetime.fromisoformat(original["published_at"])
    assert details["earliest_at"] == (went_out + timedelta(days=30)).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )
    assert (
        details["recycle_after_days"] == 30 and details["published_at"] == original["published_at"]
    )
    assert details["next_slot"] < details["earliest_at"]
    local = (went_out + timedelta(days=30)).astimezone(ZONE).strftime("%Y-%m-%d %H:%M")
    assert f"from {local} (Europe/Berlin)" in error["message"]
    assert count(api) == before  # nothing made
    # With the wait shortened to what has passed, it goes.
    assert api.patch(CHANNEL + "personal", json={"recycle_after_days": 7}).status_code == 200
    r = api.post(RECYCLE + original["id"])
    assert r.status_code == 201, r.get_json()
    assert count(api) == before + 1


def test_a_request_within_the_wait_whose_slot_is_past_it_goes_in(api, clock):
    # Published 10 days ago, a wait of 11: the wait ends in a day, and the
    # channel's one weekly slot is 2 to 4 days away.
    day = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[
        (datetime.now(ZONE) + timedelta(days=3)).weekday()
    ]
    channel(api, "personal", slots=[{"day": day, "time": "09:00"}], recycle_after_days=11)
    original = published(api, clock, days_ago=10)
    r = api.post(RECYCLE + original["id"])
    assert r.status_code == 201, r.get_json()
    earliest = datetime.fromisoformat(original["published_at"]) + timedelta(days=11)
    assert datetime.fromisoformat(r.get_json()["scheduled_at"]) >= earliest + timedelta(hours=12)


@pytest.mark.parametrize("status", ["Draft", "Scheduled"])
def test_only_a_published_post_is_recycled(api, app, status):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 0
    channel(api, "personal", slots=EVERY_DAY)
    post = api.post(POSTS, json={"type": "personal", "content": "Not yet"}).get_json()
    if status == "Scheduled":
        r = api.patch(
            f"{POSTS}-item/{post['id']}",
            json={"status": "Scheduled", "scheduled_at": "2031-01-01T08:00:00Z"},
        )
        assert r.status_code == 200, r.get_json()
    error = assert_error(api.post(RECYCLE + post["id"]), 409, "not_published")
    assert error["details"] == {"status": status} and status in error["message"]
    assert count(api) == 1


def test_a_channel_not_set_up_has_no_slot(api, clock):
    original = published(api, clock, days_ago=3)
    error = assert_error(api.post(RECYCLE + original["id"]), 409, "no_free_slot")
    assert error["details"]["channel"] == "personal"
    assert count(api) == 1


def test_unknown_and_other_users_posts_are_404(api, caller, clock):
    original = published(api, clock, days_ago=3)
    assert_error(api.post(RECYCLE + "00000000-0000-4000-8000-000000000000"), 404, "not_found")
    assert_error(api.post(RECYCLE + "not-a-uuid"), 404, "not_found")
    assert_error(caller("bob").post(RECYCLE + original["id"]), 404, "not_found")
    assert count(api) == 1


def test_recycling_needs_posts_write(api, caller, clock):
    channel(api, "personal", slots=EVERY_DAY)
    original = published(api, clock, days_ago=3)
    reader = caller("alice", scopes=["posts:read"])
    error = assert_error(reader.post(RECYCLE + original["id"]), 403, "insufficient_scope")
    assert error["details"]["required_scope"] == "posts:write"
    writer = caller("alice", scopes=["posts:read", "posts:write"])
    assert writer.post(RECYCLE + original["id"]).status_code == 201


def test_the_same_idempotency_key_answers_the_first_copy(api, clock):
    channel(api, "personal", slots=EVERY_DAY)
    original = published(api, clock, days_ago=3)
    headers = {"Idempotency-Key": "recycle-once-1"}
    first = api.post(RECYCLE + original["id"], headers=headers)
    again = api.post(RECYCLE + original["id"], headers=headers)
    assert first.status_code == 201 and again.status_code == 201
    assert again.get_json()["id"] == first.get_json()["id"]
    assert count(api) == 2


BAD_RECYCLE_AFTER_DAYS = [0, 366, -1, "7", 1.5, True]


@pytest.mark.backend_independent
@pytest.mark.parametrize("value", BAD_RECYCLE_AFTER_DAYS)
def test_bad_recycle_after_days_is_400(api, value):
    made = channel(api, "personal", recycle_after_days=5)
    for r in (
        api.patch(CHANNEL + "personal", json={"recycle_after_days": value}),
        api.post(
            "/functions/v1/channels",
            json={"type": "brand", "brand_id": "b", "name": "B", "recycle_after_days": value},
        ),
    ):
        error = assert_error(r, 400, "validation_error")
        assert "recycle_after_days" in error["details"]
    assert api.get(CHANNEL + "personal").get_json() == made
    assert (
        api.patch(CHANNEL + "personal", json={"recycle_after_days": None}).get_json()[
            "recycle_after_days"
        ]
        is None
    )


def test_the_copy_carries_the_originals_media_alt_text_and_first_comment(api, app):
    channel(api, "personal", slots=EVERY_DAY)
    picture = io.BytesIO()
    Image.new("RGB", (30, 20), "red").save(picture, "PNG")
    r = api.post(MEDIA, data=picture.getvalue(), headers={"Content-Type": "image/png"})
    assert r.status_code == 201, r.get_json()
    fields = {
        "type": "personal",
        "content": "A red square",
        "media_urls": [r.get_json()["url"]],
        "media_alt": ["Red, square"],
        "first_comment": "More at https://example.com",
        "repeat": "FREQ=WEEKLY;COUNT=2",
    }
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    post = api.post(POSTS, json={**fields, "scheduled_at": ahead(-60)}).get_json()
    assert api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Scheduled"}).status_code == 200
    r = api.post(CALLBACK, json={"post_id": post["id"], "linkedin_post_id": "urn:li:share:9"})
    assert r.status_code == 200, r.get_json()
    original = r.get_json()
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 60
    r = api.post(RECYCLE + original["id"])
    assert r.status_code == 201, r.get_json()
    copy = r.get_json()
    for name in ("content", "media_urls", "media_alt", "first_comment"):
        assert copy[name] == original[name], name
    assert copy["repeat"] is None and copy["series_id"] is None  # a copy is one post
    assert copy["linkedin_post_id"] is None and copy["stats"] is None


def test_a_contributor_may_not_recycle(api, runner, clock):
    """A recycled copy is Scheduled, and nothing a contributor does is."""
    channel(api, "personal", slots=EVERY_DAY)
    original = published(api, clock, days_ago=3)
    args = ["members", "add", "--workspace", "alice", "--name", "cora", "--role", "contributor"]
    result = runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    cora = Caller(api.client, result.output.strip().splitlines()[-1])
    error = assert_error(cora.post(RECYCLE + original["id"]), 403, "forbidden")
    assert error["details"] == {"role": "contributor"}
    assert count(api) == 1


def test_where_approvals_are_required_a_copy_needs_the_originals_approval(api, clock):
    channel(api, "personal", slots=EVERY_DAY)
    original = published(api, clock, days_ago=3)  # went out before approvals were required
    r = api.patch("/functions/v1/workspace", json={"approvals": "required"})
    assert r.status_code == 200, r.get_json()
    error = assert_error(api.post(RECYCLE + original["id"]), 409, "approval_required")
    assert error["details"]["status"] == "Published"
    assert count(api) == 1
