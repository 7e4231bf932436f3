"""Status moves through PATCH, and the publish callback."""

from datetime import UTC, datetime, timedelta

import pytest

from harness.api import CALLBACK, ITEM, POSTS
from tests.conftest import assert_error

WRITER = ["posts:read", "posts:write"]  # no posts:publish


def future(seconds=3600):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def callback_body(post_id, n=1, **over):
    return {
        "post_id": post_id,
        "linkedin_post_id": f"urn:li:share:{n}",
        "live_url": f"https://www.linkedin.com/feed/update/urn:li:share:{n}",
        **over,
    }


@pytest.fixture
def make_post(api):
    """Create a post and bring it to `status` with alice's all-scope key."""

    def make(status="Draft", **fields):
        body = {"type": "personal", "content": "Hello", "scheduled_at": future(), **fields}
        post = api.post(POSTS, json=body).get_json()
        path = {
            "Draft": [],
            "Scheduled": [{"status": "Scheduled"}],
            "Failed": [{"status": "Scheduled"}, {"status": "Failed", "last_error": "rate limit"}],
        }.get(status)
        if status == "Published":
            api.patch(ITEM + post["id"], json={"status": "Scheduled"})
            r = api.post(CALLBACK, json=callback_body(post["id"]))
            assert r.status_code == 200
            return r.get_json()
        for step in path:
            r = api.patch(ITEM + post["id"], json=step)
            assert r.status_code == 200, r.get_json()
            post = r.get_json()
        assert post["status"] == status
        return post

    return make


@pytest.fixture
def writer(caller):
    """alice's second key, without posts:publish."""
    return caller("alice", scopes=WRITER)


ALLOWED = [
    ("Draft", {"status": "Scheduled"}),
    ("Scheduled", {"status": "Draft"}),
    ("Scheduled", {"status": "Failed", "last_error": "token expired"}),
    ("Failed", {"status": "Draft"}),
    ("Failed", {"status": "Scheduled"}),
]


@pytest.mark.parametrize("start, body", ALLOWED)
def test_allowed_moves_with_publish_scope(api, make_post, start, body):
    post = make_post(start)
    r = api.patch(ITEM + post["id"], json=body)
    assert r.status_code == 200, r.get_json()
    moved = r.get_json()
    assert moved["status"] == body["status"]
    assert moved["version"] == post["version"] + 1
    if start == "Failed":
        assert moved["last_error"] is None  # a retry clears the old error


@pytest.mark.parametrize("start, body", ALLOWED)
def test_allowed_moves_need_publish_scope(api, writer, make_post, start, body):
    post = make_post(start)
    err = assert_error(writer.patch(ITEM + post["id"], json=body), 403, "insufficient_scope")
    assert err["details"]["required_scope"] == "posts:publish"
    assert api.get(ITEM + post["id"]).get_json() == post


REFUSED = [
    ("Draft", "Failed"),
    ("Draft", "Published"),
    ("Scheduled", "Published"),
    ("Failed", "Published"),
    ("Published", "Draft"),
    ("Published", "Scheduled"),
    ("Published", "Failed"),
]


@pytest.mark.parametrize("start, target", REFUSED)
@pytest.mark.parametrize("who", ["api", "writer"])
def test_refused_moves_are_409_and_change_nothing(request, make_post, api, start, target, who):
    client = request.getfixturevalue(who)
    post = make_post(start)
    body = {"status": target, "last_error": "x"} if target == "Failed" else {"status": target}
    err = assert_error(client.patch(ITEM + post["id"], json=body), 409, "conflict")
    if target == "Published" and start != "Published":
        assert CALLBACK in err["message"]
    elif start != "Published":
        assert "allowed" in err["details"] and err["message"].count("allowed")
    assert api.get(ITEM + post["id"]).get_json() == post


@pytest.mark.parametrize("body", [{"content": "edit"}, {"media_urls": []}, {"last_error": None}])
def test_published_post_cannot_change(api, make_post, body):
    post = make_post("Published")
    assert_error(api.patch(ITEM + post["id"], json=body), 409, "conflict")
    assert api.get(ITEM + post["id"]).get_json() == post


def test_schedule_needs_a_scheduled_at(api, make_post):
    post = make_post(scheduled_at=None)
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 400, "validation_error"
    )
    assert "scheduled_at" in err["details"]


@pytest.mark.parametrize("seconds", [-3600, 0, 30])
def test_schedule_needs_lead_time(api, make_post, seconds):
    post = make_post(scheduled_at=None)
    body = {"status": "Scheduled", "scheduled_at": future(seconds)}
    err = assert_error(api.patch(ITEM + post["id"], json=body), 400, "validation_error")
    assert "60 seconds" in err["details"]["scheduled_at"][0]
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Draft"


def test_schedule_with_time_in_same_request(api, make_post):
    post = make_post(scheduled_at=None)
    when = future(600)
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled", "scheduled_at": when})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled"


def test_lead_time_is_a_setting(app, api, make_post):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 7200
    post = make_post()  # scheduled an hour ahead
    assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 400, "validation_error"
    )


def test_failed_needs_last_error(api, make_post):
    post = make_post("Scheduled")
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Failed"}), 400, "validation_error"
    )
    assert "last_error" in err["details"]


def test_reschedule_needs_publish_scope(api, writer, make_post):
    post = make_post("Scheduled")
    new_time = future(7200)
    err = assert_error(
        writer.patch(ITEM + post["id"], json={"scheduled_at": new_time}), 403, "insufficient_scope"
    )
    assert err["details"]["required_scope"] == "posts:publish"
    r = api.patch(ITEM + post["id"], json={"scheduled_at": new_time})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled"


def test_reschedule_checks_lead_time_and_null(api, make_post):
    post = make_post("Scheduled")
    for when in (future(-10), None):
        r = api.patch(ITEM + post["id"], json={"scheduled_at": when})
        assert "scheduled_at" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(ITEM + post["id"]).get_json() == post


def test_writer_may_edit_content_and_draft_schedule(writer, make_post):
    draft = make_post()
    r = writer.patch(ITEM + draft["id"], json={"content": "new", "scheduled_at": future(99)})
    assert r.status_code == 200
    scheduled = make_post("Scheduled")
    r = writer.patch(ITEM + scheduled["id"], json={"content": "fixed typo"})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled"


# --- callback ----------------------------------------------------------------


@pytest.mark.parametrize("start", ["Scheduled", "Failed"])
def test_callback_publishes(api, make_post, start):
    post = make_post(start)
    body = callback_body(post["id"], 7001)
    r = api.post(CALLBACK, json=body)
    assert r.status_code == 200
    published = r.get_json()
    assert published["status"] == "Published"
    assert published["linkedin_post_id"] == body["linkedin_post_id"]
    assert published["live_url"] == body["live_url"]
    assert published["published_at"].endswith("Z")
    assert published["last_error"] is None
    assert published["version"] == post["version"] + 1
    assert api.get(ITEM + post["id"]).get_json() == published


def test_callback_retry_returns_the_unchanged_record(api, make_post):
    post = make_post("Scheduled")
    first = api.post(CALLBACK, json=callback_body(post["id"])).get_json()
    again = api.post(CALLBACK, json=callback_body(post["id"]))
    assert again.status_code == 200 and again.get_json() == first


@pytest.mark.parametrize(
    "over",
    [
        {"linkedin_post_id": "urn:li:share:999"},
        {"live_url": "https://www.linkedin.com/feed/update/urn:li:share:999"},
    ],
)
def test_callback_with_different_values_is_409(api, make_post, over):
    post = make_post("Published")
    r = api.post(CALLBACK, json=callback_body(post["id"], **over))
    assert_error(r, 409, "conflict")
    assert api.get(ITEM + post["id"]).get_json() == post


def test_callback_on_draft_is_409(api, make_post):
    post = make_post("Draft")
    assert_error(api.post(CALLBACK, json=callback_body(post["id"])), 409, "conflict")
    assert api.get(ITEM + post["id"]).get_json() == post


def test_callback_on_unknown_post_is_404(api):
    body = callback_body("00000000-0000-4000-8000-000000000000")
    assert_error(api.post(CALLBACK, json=body), 404, "not_found")


def test_callback_needs_publish_scope(writer, make_post):
    post = make_post("Scheduled")
    err = assert_error(
        writer.post(CALLBACK, json=callback_body(post["id"])), 403, "insufficient_scope"
    )
    assert err["details"]["required_scope"] == "posts:publish"


BAD_CALLBACKS = [
    ({"post_id": None}, "post_id"),
    ({"post_id": "not-a-uuid"}, "post_id"),
    ({"post_id": 12}, "post_id"),
    ({"linkedin_post_id": None}, "linkedin_post_id"),
    ({"linkedin_post_id": ""}, "linkedin_post_id"),
    ({"linkedin_post_id": "share:1"}, "linkedin_post_id"),
    ({"linkedin_post_id": "urn:fb:post:1"}, "linkedin_post_id"),
    ({"linkedin_post_id": "urn:li:share:"}, "linkedin_post_id"),
    ({"linkedin_post_id": "urn:li:share:1 2"}, "linkedin_post_id"),
    ({"live_url": "www.linkedin.com/feed"}, "live_url"),
    ({"live_url": "ftp://linkedin.com/x"}, "live_url"),
    ({"live_url": "/feed/update/1"}, "live_url"),
    ({"live_url": "javascript:alert(1)"}, "live_url"),
    ({"extra": 1}, "extra"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("over, field", BAD_CALLBACKS)
def test_callback_rejects_bad_bodies(api, make_post, over, field):
    post = make_post("Scheduled")
    body = {**callback_body(post["id"]), **over}
    err = assert_error(api.post(CALLBACK, json=body), 400, "validation_error")
    assert field in err["details"]
    assert api.get(ITEM + post["id"]).get_json() == post


@pytest.mark.parametrize("missing", ["post_id", "linkedin_post_id"])
def test_callback_names_missing_fields(api, make_post, missing):
    post = make_post("Scheduled")
    body = callback_body(post["id"])
    del body[missing]
    err = assert_error(api.post(CALLBACK, json=body), 400, "validation_error")
    assert list(err["details"]) == [missing]


@pytest.mark.parametrize(
    "urn", ["urn:li:share:7012345678901234567", "urn:li:ugcPost:7012", "urn:li:activity:7012"]
)
def test_callback_without_live_url_stores_the_posts_linkedin_address(api, make_post, urn):
    post = make_post("Scheduled")
    body = {"post_id": post["id"], "linkedin_post_id": urn}
    published = api.post(CALLBACK, json={**body, "live_url": None}).get_json()  # null: the same
    assert published["status"] == "Published" and published["linkedin_post_id"] == urn
    assert published["live_url"] == f"https://www.linkedin.com/feed/update/{urn}/"
    again = api.post(CALLBACK, json=body)  # the retry repeats what is stored
    assert again.status_code == 200 and again.get_json() == published


def test_callback_accepts_uppercase_post_id(api, make_post):
    post = make_post("Scheduled")
    r = api.post(CALLBACK, json=callback_body(post["id"].upper()))
    assert r.status_code == 200 and r.get_json()["id"] == post["id"]
