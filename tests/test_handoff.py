"""Handing due posts to the automation: claims, the Publishing state, reports,
lease expiry, and deleting posts and articles."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from harness.api import ARTICLE, ARTICLES, CALLBACK, CLAIM, ITEM, POSTS
from tests.conftest import assert_error

WRITER = ["posts:read", "posts:write"]  # no posts:publish


def at(seconds):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


@pytest.fixture(autouse=True)
def past_schedules(app):
    """Lets a test schedule posts in the past, so that they are due at once."""
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400


@pytest.fixture
def due(api):
    """A due post of `type` in state Scheduled (or `status`), `seconds` from now."""

    def make(seconds=-60, type="personal", content="Hello", status="Scheduled", who=None):
        who = who or api
        body = {"type": type, "content": content, "scheduled_at": at(seconds)}
        if type == "brand":
            body["brand_id"] = "acme"
        post = who.post(POSTS, json=body).get_json()
        if status == "Draft":
            return post
        r = who.patch(ITEM + post["id"], json={"status": "Scheduled"})
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    return make


def claim(who, **body):
    """The claimed posts as records (each also carries its linkedin_request:
    tests/test_linkedin.py)."""
    r = who.post(CLAIM, json=body)
    assert r.status_code == 200, r.get_json()
    posts = r.get_json()["data"]
    for post in posts:
        assert post.pop("linkedin_request")["method"] == "POST"
    return posts


def callback(post_id, n=1):
    return {
        "post_id": post_id,
        "linkedin_post_id": f"urn:li:share:{n}",
        "live_url": f"https://www.linkedin.com/feed/update/urn:li:share:{n}",
    }


# --- claim --------------------------------------------------------------------------------


def test_new_posts_have_no_handoff(api, due):
    post = api.post(POSTS, json={"type": "personal", "content": "x"}).get_json()
    assert (post["handoff_id"], post["handoff_expires_at"], post["handoff_count"]) == (
        None,
        None,
        0,
    )


def test_claim_hands_due_posts_over_soonest_first(api, due):
    later, sooner, future = due(-60), due(-600), due(3600)
    due(-30, status="Draft")  # a Draft is never due
    before = time.time()
    claimed = claim(api, lease_seconds=120)
    assert [p["id"] for p in claimed] == [sooner["id"], later["id"]]
    for post, old in zip(claimed, (sooner, later), strict=True):
        assert post["status"] == "Publishing"
        assert post["version"] == old["version"] + 1 and post["handoff_count"] == 1
        expires = datetime.fromisoformat(post["handoff_expires_at"])
        assert before + 119 <= expires.timestamp() <= time.time() + 121
        assert api.get(ITEM + post["id"]).get_json() == post
    assert len({p["handoff_id"] for p in claimed}) == 2
    assert claim(api) == []  # nothing due any more
    assert api.get(ITEM + future["id"]).get_json()["status"] == "Scheduled"
    assert api.get(f"{POSTS}?due=true").get_json()["total"] == 0


def test_claim_limit_and_type(api, due):
    brands = [due(-100 + i, type="brand") for i in range(3)]
    personals = [due(-50 + i) for i in range(3)]
    got = claim(api, limit=2, type="personal")
    assert [p["id"] for p in got] == [p["id"] for p in personals[:2]]
    got = claim(api, limit=1, type="brand")
    assert [p["id"] for p in got] == [brands[0]["id"]]
    assert [p["id"] for p in claim(api, limit=50)] == [
        brands[1]["id"],
        brands[2]["id"],
        personals[2]["id"],
    ]


def test_claim_defaults_and_an_empty_body(api, due):
    posts = [due(-100 + i) for i in range(12)]
    r = api.client.post(CLAIM, headers={"X-API-Key": api.key})  # no body at all
    assert r.status_code == 200
    data = r.get_json()["data"]
    assert [p["id"] for p in data] == [p["id"] for p in posts[:10]]
    lease = datetime.fromisoformat(data[0]["handoff_expires_at"]) - datetime.now(UTC)
    assert timedelta(seconds=590) < lease <= timedelta(seconds=600)
    assert len(claim(api)) == 2


def test_claim_takes_its_largest_bounds(api, due):
    posts = [due(-100 + i) for i in range(51)]
    data = claim(api, limit=50, lease_seconds=86400)
    assert [p["id"] for p in data] == [p["id"] for p in posts[:50]]
    lease = datetime.fromisoformat(data[0]["handoff_expires_at"]) - datetime.now(UTC)
    assert timedelta(seconds=86390) < lease <= timedelta(seconds=86400)
    assert [p["id"] for p in claim(api, limit=1, lease_seconds=1)] == [posts[50]["id"]]


BAD_CLAIMS = [
    ({"limit": 0}, "limit"),
    ({"limit": 51}, "limit"),
    ({"limit": "5"}, "limit"),
    ({"limit": 2.5}, "limit"),
    ({"limit": True}, "limit"),
    ({"limit": None}, "limit"),
    ({"lease_seconds": 0}, "lease_seconds"),
    ({"lease_seconds": 86401}, "lease_seconds"),
    ({"lease_seconds": "600"}, "lease_seconds"),
    ({"type": "company"}, "type"),
    ({"status": "Scheduled"}, "status"),
    ({"workspace_id": 2}, "workspace_id"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_CLAIMS)
def test_bad_claims_are_400_and_claim_nothing(api, due, body, field):
    post = due()
    err = assert_error(api.post(CLAIM, json=body), 400, "validation_error")
    assert field in err["details"]
    assert api.get(ITEM + post["id"]).get_json() == post


def test_claim_needs_publish_scope(caller, due):
    post = due()
    writer = caller("alice", scopes=WRITER)
    err = assert_error(writer.post(CLAIM, json={}), 403, "insufficient_scope")
    assert err["details"]["required_scope"] == "posts:publish"
    assert writer.get(ITEM + post["id"]).get_json()["status"] == "Scheduled"


def test_a_claim_never_takes_another_users_post(api, caller, due):
    bob = caller("bob")
    mine, theirs = due(-60), due(-600, who=bob)
    assert [p["id"] for p in claim(api)] == [mine["id"]]
    assert bob.get(ITEM + theirs["id"]).get_json()["status"] == "Scheduled"
    assert [p["id"] for p in claim(bob)] == [theirs["id"]]


# --- while Publishing ------------------------------------------------------------------


def test_callback_publishes_a_publishing_post_and_ends_the_handoff(api, due):
    due()
    (post,) = claim(api, limit=1)
    r = api.post(CALLBACK, json=callback(post["id"]))
    assert r.status_code == 200
    published = r.get_json()
    assert published["status"] == "Published" and published["version"] == post["version"] + 1
    assert published["handoff_id"] is None and published["handoff_expires_at"] is None
    assert published["handoff_count"] == 1


@pytest.mark.parametrize(
    "report", [{"status": "Failed", "last_error": "LinkedIn said 429"}, {"status": "Scheduled"}]
)
@pytest.mark.parametrize("if_match", [None, "current"])
def test_the_automation_reports_back(api, due, report, if_match):
    due()
    (post,) = claim(api)
    headers = {"If-Match": f'"{post["version"]}"'} if if_match else None
    r = api.patch(ITEM + post["id"], json=report, headers=headers)
    assert r.status_code == 200, r.get_json()
    done = r.get_json()
    assert done["status"] == report["status"] and done["version"] == post["version"] + 1
    assert done["handoff_id"] is None and done["handoff_expires_at"] is None
    assert done["last_error"] == report.get("last_error")
    assert done["scheduled_at"] == post["scheduled_at"]  # given back as it was
    if report["status"] == "Scheduled":  # a later claim takes it again
        (again,) = claim(api)
        assert again["id"] == post["id"] and again["handoff_count"] == 2
        assert again["handoff_id"] != post["handoff_id"]


def test_a_report_with_a_stale_if_match_is_412(api, due):
    due()
    (post,) = claim(api)
    r = api.patch(
        ITEM + post["id"],
        json={"status": "Scheduled"},
        headers={"If-Match": f'"{post["version"] - 1}"'},
    )
    assert_error(r, 412, "precondition_failed")
    assert api.get(ITEM + post["id"]).get_json() == post


@pytest.mark.parametrize(
    "report", [{"status": "Failed", "last_error": "x"}, {"status": "Scheduled"}]
)
def test_reports_need_publish_scope(api, caller, due, report):
    due()
    (post,) = claim(api)
    writer = caller("alice", scopes=WRITER)
    err = assert_error(writer.patch(ITEM + post["id"], json=report), 403, "insufficient_scope")
    assert err["details"]["required_scope"] == "posts:publish"
    assert api.get(ITEM + post["id"]).get_json() == post


@pytest.mark.parametrize(
    "body",
    [
        {"content": "edited"},
        {"media_urls": ["https://a.example/x.png"]},
        {"scheduled_at": "2099-01-01T00:00:00Z"},
        {"type": "brand", "brand_id": "acme"},
        {"status": "Draft"},
        {"status": "Scheduled", "scheduled_at": "2099-01-01T00:00:00Z"},
        {"status": "Failed", "last_error": "x", "content": "also"},
        {"last_error": "just this"},
    ],
)
def test_any_other_change_to_a_publishing_post_is_409(api, due, body):
    due()
    (post,) = claim(api)
    err = assert_error(api.patch(ITEM + post["id"], json=body), 409, "conflict")
    assert "automation's hands" in err["message"]
    assert err["details"] == {"status": "Publishing", "handoff_id": post["handoff_id"]}
    assert api.get(ITEM + post["id"]).get_json() == post


def test_a_failure_report_needs_last_error(api, due):
    due()
    (post,) = claim(api)
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Failed"}), 400, "validation_error"
    )
    assert "last_error" in err["details"]


@pytest.mark.parametrize("start", ["Draft", "Scheduled", "Failed", "Published"])
def test_publishing_is_reached_only_by_a_claim(api, due, start):
    post = due(status="Draft" if start == "Draft" else "Scheduled")
    if start == "Failed":
        post = api.patch(ITEM + post["id"], json={"status": "Failed", "last_error": "x"}).get_json()
    if start == "Published":
        post = api.post(CALLBACK, json=callback(post["id"])).get_json()
    r = api.patch(ITEM + post["id"], json={"status": "Publishing"})
    assert_error(r, 409, "conflict")
    assert api.get(ITEM + post["id"]).get_json() == post


def test_unchanged_patch_of_a_publishing_post_is_fine(api, due):
    due()
    (post,) = claim(api)
    r = api.patch(ITEM + post["id"], json={"content": post["content"]})
    assert r.status_code == 200 and r.get_json() == post


def test_status_filter_and_totals_know_publishing(api, due):
    for _ in range(3):
        due()
    due(status="Draft")
    claim(api, limit=2)
    assert api.get(f"{POSTS}?status=Publishing").get_json()["total"] == 2
    assert api.get(f"{POSTS}?status=Publishing&limit=1&offset=1").get_json()["total"] == 2
    assert api.get(f"{POSTS}?status=Scheduled&limit=1").get_json()["total"] == 1
    assert api.get(f"{POSTS}?limit=1").get_json()["total"] == 4


# --- lease expiry ------------------------------------------------------------------------


def test_an_expired_lease_reads_as_failed_everywhere(api, due, clock):
    due()
    other = due()
    (post,) = claim(api, limit=1, lease_seconds=1)
    (kept,) = claim(api, limit=1, lease_seconds=3600)
    assert kept["id"] == other["id"]
    clock.wait_past(post["handoff_expires_at"])

    item = api.get(ITEM + post["id"])
    read = item.get_json()
    assert read["status"] == "Failed"
    assert (
        post["handoff_expires_at"] in read["last_error"]
        and "may already be live" in read["last_error"]
    )
    assert read["handoff_id"] is None and read["handoff_expires_at"] is None
    assert read["handoff_count"] == 1 and read["version"] == post["version"] + 1
    assert read["updated_at"] == post["handoff_expires_at"]
    assert item.headers["ETag"] == f'"{read["version"]}"'

    def listed(query):
        page = api.get(f"{POSTS}?{query}").get_json()
        return page["total"], [p for p in page["data"] if p["id"] == post["id"]]

    assert listed("status=Failed") == (1, [read])
    assert listed("status=Failed&limit=1&offset=1")[0] == 1
    assert listed("status=Publishing") == (1, [])
    assert listed("status=Publishing&limit=1&offset=1")[0] == 1
    assert listed("") == (2, [read])
    assert listed("type=personal&limit=1&offset=5")[0] == 2
    assert listed("type=personal") == (2, [read])
    assert listed("order=scheduled_at") == (2, [read])
    before = post["scheduled_at"].replace("Z", "").split(".")[0]
    assert listed(f"scheduled_before=2999-01-01T00:00:00Z&scheduled_after={before}Z") == (2, [read])
    assert listed(f"scheduled_before={post['scheduled_at']}") == (0, [])
    assert listed("due=true") == (0, [])
    assert api.get(ITEM + post["id"]).get_json() == read  # the same after the rewrite
    assert claim(api) == []  # never handed out again by itself


def test_if_match_of_the_version_before_expiry_is_stale(api, due, clock):
    """An expired lease is a change: an If-Match of the Publishing version is 412."""
    due()
    (post,) = claim(api, lease_seconds=1)
    clock.wait_past(post["handoff_expires_at"])
    stale = {"If-Match": f'"{post["version"]}"'}
    for body in ({"status": "Failed", "last_error": "x"}, {"status": "Scheduled"}):
        r = api.patch(ITEM + post["id"], json=body, headers=stale)
        assert_error(r, 412, "precondition_failed")
        assert r.headers["ETag"] == f'"{post["version"] + 1}"'
    r = api.client.delete(ITEM + post["id"], headers={"X-API-Key": api.key, **stale})
    assert_error(r, 412, "precondition_failed")
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Failed"


def test_a_failure_report_with_a_stale_if_match_changes_nothing(api, due):
    due()
    (post,) = claim(api)
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})  # given back: version + 1
    (again,) = claim(api)
    stale = {"If-Match": f'"{post["version"]}"'}
    r = api.patch(ITEM + post["id"], json={"status": "Failed", "last_error": "x"}, headers=stale)
    assert_error(r, 412, "precondition_failed")
    assert api.get(ITEM + post["id"]).get_json() == again


def test_item_read_before_any_rewrite_matches_the_rewrite(api, due, clock):
    due()
    (post,) = claim(api, lease_seconds=1)
    clock.wait_past(post["handoff_expires_at"])
    before = api.get(ITEM + post["id"]).get_json()  # the row still says Publishing
    api.get(POSTS)  # a list read rewrites it
    assert api.get(ITEM + post["id"]).get_json() == before


def test_the_callback_still_accepts_an_expired_handoff(api, due, clock):
    due()
    (post,) = claim(api, lease_seconds=1)
    clock.wait_past(post["handoff_expires_at"])
    r = api.post(CALLBACK, json=callback(post["id"]))
    assert r.status_code == 200
    published = r.get_json()
    assert published["status"] == "Published" and published["last_error"] is None
    assert published["version"] == post["version"] + 2  # expired, then published


def test_an_expired_post_can_be_retried_with_if_match_of_what_was_read(api, due, clock):
    due()
    (post,) = claim(api, lease_seconds=1)
    clock.wait_past(post["handoff_expires_at"])
    read = api.get(ITEM + post["id"])
    r = api.patch(
        ITEM + post["id"], json={"status": "Scheduled"}, headers={"If-Match": read.headers["ETag"]}
    )
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled"
    (again,) = claim(api)
    assert again["handoff_count"] == 2


# --- delete -----------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["Draft", "Scheduled", "Failed"])
def test_delete_a_post(api, due, status):
    post = due(status="Draft" if status == "Draft" else "Scheduled")
    if status == "Failed":
        post = api.patch(ITEM + post["id"], json={"status": "Failed", "last_error": "x"}).get_json()
    r = api.client.delete(
        ITEM + post["id"], headers={"X-API-Key": api.key, "If-Match": f'"{post["version"]}"'}
    )
    assert r.status_code == 204 and r.data == b""
    assert_error(api.get(ITEM + post["id"]), 404, "not_found")
    assert_error(api.patch(ITEM + post["id"], json={"content": "x"}), 404, "not_found")
    assert_error(
        api.client.delete(ITEM + post["id"], headers={"X-API-Key": api.key}), 404, "not_found"
    )
    assert_error(api.post(CALLBACK, json=callback(post["id"])), 404, "not_found")
    assert claim(api) == []  # a deleted Scheduled post is never claimed
    assert api.get(POSTS).get_json()["total"] == 0
    assert api.get(f"{POSTS}?status={status}&limit=1&offset=1").get_json()["total"] == 0


@pytest.mark.parametrize("status", ["Publishing", "Published"])
def test_publishing_and_published_posts_cannot_be_deleted(api, due, status):
    due()
    (post,) = claim(api)
    if status == "Published":
        post = api.post(CALLBACK, json=callback(post["id"])).get_json()
    r = api.client.delete(ITEM + post["id"], headers={"X-API-Key": api.key})
    assert status in assert_error(r, 409, "conflict")["message"]
    assert api.get(ITEM + post["id"]).get_json() == post


def test_an_expired_handoff_can_be_deleted_as_failed(api, due, clock):
    due()
    (post,) = claim(api, lease_seconds=1)
    clock.wait_past(post["handoff_expires_at"])
    r = api.client.delete(
        ITEM + post["id"], headers={"X-API-Key": api.key, "If-Match": f'"{post["version"] + 1}"'}
    )
    assert r.status_code == 204


def test_delete_honours_if_match(api, due):
    post = due(status="Draft")
    for value, status in (('"9"', 412), ('W/"1"', 412), ("nonsense", 400)):
        r = api.client.delete(ITEM + post["id"], headers={"X-API-Key": api.key, "If-Match": value})
        assert r.status_code == status
    assert api.get(ITEM + post["id"]).get_json() == post


def test_delete_needs_write_scope_and_ownership(api, caller, due):
    post = due(status="Draft")
    reader = caller("alice", scopes=["posts:read"])
    bob = caller("bob")
    r = reader.client.delete(ITEM + post["id"], headers={"X-API-Key": reader.key})
    assert assert_error(r, 403, "insufficient_scope")["details"]["required_scope"] == "posts:write"
    assert_error(
        bob.client.delete(ITEM + post["id"], headers={"X-API-Key": bob.key}), 404, "not_found"
    )
    assert api.get(ITEM + post["id"]).get_json() == post


def test_a_deleted_posts_idempotency_key_is_forgotten(api):
    body = {"type": "personal", "content": "once"}
    first = api.post(POSTS, json=body, headers={"Idempotency-Key": "k-1"}).get_json()
    assert api.client.delete(ITEM + first["id"], headers={"X-API-Key": api.key}).status_code == 204
    again = api.post(POSTS, json=body, headers={"Idempotency-Key": "k-1"})
    assert again.status_code == 201 and again.get_json()["id"] != first["id"]


@pytest.mark.parametrize("publish", [False, True])
def test_delete_an_article(api, caller, publish):
    article = api.post(ARTICLES, json={"title": "t"}, headers={"Idempotency-Key": "a-1"}).get_json()
    if publish:
        article = api.patch(ARTICLE + article["id"], json={"status": "Published"}).get_json()
    bob = caller("bob")
    assert_error(
        bob.client.delete(ARTICLE + article["id"], headers={"X-API-Key": bob.key}), 404, "not_found"
    )
    reader = caller("alice", scopes=["articles:read"])
    r = reader.client.delete(ARTICLE + article["id"], headers={"X-API-Key": reader.key})
    assert assert_error(r, 403, "insufficient_scope")["details"]["required_scope"] == (
        "articles:write"
    )
    stale = api.client.delete(
        ARTICLE + article["id"], headers={"X-API-Key": api.key, "If-Match": '"99"'}
    )
    assert_error(stale, 412, "precondition_failed")
    r = api.client.delete(
        ARTICLE + article["id"],
        headers={"X-API-Key": api.key, "If-Match": f'"{article["version"]}"'},
    )
    assert r.status_code == 204
    assert_error(api.get(ARTICLE + article["id"]), 404, "not_found")
    assert api.get(ARTICLES).get_json()["total"] == 0
    again = api.post(ARTICLES, json={"title": "t"}, headers={"Idempotency-Key": "a-1"})
    assert again.get_json()["id"] != article["id"]
