"""Posts: create, list, read and update through the HTTP interface."""

from datetime import UTC, datetime, timedelta

import pytest

from harness.api import ITEM, POSTS
from tests.conftest import assert_error


def future(seconds=3600):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def create(api, **fields):
    body = {"type": "personal", "content": "Hello", **fields}
    r = api.post(POSTS, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


# --- create ---------------------------------------------------------------


def test_create_personal_draft(api):
    r = api.post(POSTS, json={"type": "personal", "content": "Hello, network"})
    assert r.status_code == 201
    post = r.get_json()
    assert r.headers["Location"] == ITEM + post["id"]
    assert r.headers["ETag"] == '"1"'
    assert post["status"] == "Draft" and post["version"] == 1
    assert post["brand_id"] is None and post["media_urls"] == []
    assert post["created_at"].endswith("Z") and post["created_at"] == post["updated_at"]
    for field in ("scheduled_at", "published_at", "linkedin_post_id", "live_url", "last_error"):
        assert post[field] is None
    assert api.get(r.headers["Location"]).get_json() == post


def test_create_brand_post_with_everything(api):
    post = create(
        api,
        type="brand",
        brand_id="acme-page",
        content="x" * 3000,
        media_urls=["https://cdn.example.com/a.png", "http://localhost:9000/b.jpg"],
        scheduled_at="2030-05-01T09:30:00+02:00",
    )
    assert post["brand_id"] == "acme-page" and post["type"] == "brand"
    assert post["scheduled_at"] == "2030-05-01T07:30:00.000000Z"  # stored and shown in UTC
    assert len(post["media_urls"]) == 2
    assert post["status"] == "Draft"  # creation always gives a Draft


BAD_CREATE = [
    ({}, "type"),
    ({"type": "personal"}, "content"),
    ({"type": "company", "content": "x"}, "type"),
    ({"type": "personal", "content": ""}, "content"),
    ({"type": "personal", "content": "   "}, "content"),
    ({"type": "personal", "content": "x" * 3001}, "content"),
    ({"type": "personal", "content": 42}, "content"),
    ({"type": "personal", "content": None}, "content"),
    ({"type": "brand", "content": "x"}, "brand_id"),
    ({"type": "brand", "content": "x", "brand_id": None}, "brand_id"),
    ({"type": "brand", "content": "x", "brand_id": ""}, "brand_id"),
    ({"type": "personal", "content": "x", "brand_id": "acme"}, "brand_id"),
    # `personal` is the personal channel's id: a brand post there took its slots and author
    ({"type": "brand", "content": "x", "brand_id": "personal"}, "brand_id"),
    ({"type": "personal", "content": "x", "brand_id": "personal"}, "brand_id"),
    ({"type": "personal", "content": "x", "media_urls": "https://a.example/x.png"}, "media_urls"),
    ({"type": "personal", "content": "x", "media_urls": ["ftp://a.example/x.png"]}, "media_urls.0"),
    ({"type": "personal", "content": "x", "media_urls": ["not a url"]}, "media_urls.0"),
    ({"type": "personal", "content": "x", "media_urls": ["/relative.png"]}, "media_urls.0"),
    ({"type": "personal", "content": "x", "media_urls": ["https://a.example/"] * 21}, "media_urls"),
    ({"type": "personal", "content": "x", "scheduled_at": "2030-01-01T09:00:00"}, "scheduled_at"),
    ({"type": "personal", "content": "x", "scheduled_at": "tomorrow"}, "scheduled_at"),
    ({"type": "personal", "content": "x", "scheduled_at": 1893456000}, "scheduled_at"),
    ({"type": "personal", "content": "x", "scheduled_at": "2030-02-30T09:00:00Z"}, "scheduled_at"),
    # no mass assignment: read-only and unknown fields are named
    ({"type": "personal", "content": "x", "id": "5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01"}, "id"),
    ({"type": "personal", "content": "x", "status": "Published"}, "status"),
    ({"type": "personal", "content": "x", "version": 7}, "version"),
    ({"type": "personal", "content": "x", "live_url": "https://x.example"}, "live_url"),
    (
        {"type": "personal", "content": "x", "linkedin_post_id": "urn:li:share:1"},
        "linkedin_post_id",
    ),
    ({"type": "personal", "content": "x", "published_at": "2030-01-01T00:00:00Z"}, "published_at"),
    ({"type": "personal", "content": "x", "created_at": "2030-01-01T00:00:00Z"}, "created_at"),
    ({"type": "personal", "content": "x", "updated_at": "2030-01-01T00:00:00Z"}, "updated_at"),
    ({"type": "personal", "content": "x", "workspace_id": 2}, "workspace_id"),
    ({"type": "personal", "content": "x", "owner": "bob"}, "owner"),
    ({"type": "personal", "content": "x", "last_error": "x"}, "last_error"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_CREATE)
def test_create_rejects_bad_bodies(api, body, field):
    err = assert_error(api.post(POSTS, json=body), 400, "validation_error")
    assert field in err["details"], err
    assert api.get(POSTS).get_json()["total"] == 0  # nothing stored


@pytest.mark.backend_independent
@pytest.mark.parametrize("body", [[], ["x"], "text", 3, True])
def test_create_rejects_non_objects(api, body):
    assert_error(api.post(POSTS, json=body), 400, "validation_error")


# --- idempotent create ------------------------------------------------------


def test_same_idempotency_key_and_body_returns_the_same_post(api):
    body = {"type": "personal", "content": "once"}
    first = api.post(POSTS, json=body, headers={"Idempotency-Key": "abc-1"})
    again = api.post(POSTS, json=body, headers={"Idempotency-Key": "abc-1"})
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert api.get(POSTS).get_json()["total"] == 1


def test_same_idempotency_key_with_another_body_is_409(api):
    api.post(POSTS, json={"type": "personal", "content": "a"}, headers={"Idempotency-Key": "k"})
    r = api.post(POSTS, json={"type": "personal", "content": "b"}, headers={"Idempotency-Key": "k"})
    assert_error(r, 409, "conflict")
    assert api.get(POSTS).get_json()["total"] == 1


def test_idempotency_keys_are_per_user(api, caller):
    bob = caller("bob")
    body = {"type": "personal", "content": "a"}
    a = api.post(POSTS, json=body, headers={"Idempotency-Key": "same"}).get_json()
    b = bob.post(POSTS, json=body, headers={"Idempotency-Key": "same"}).get_json()
    assert a["id"] != b["id"]


def test_without_idempotency_key_each_create_is_new(api):
    body = {"type": "personal", "content": "a"}
    assert (
        api.post(POSTS, json=body).get_json()["id"] != api.post(POSTS, json=body).get_json()["id"]
    )


@pytest.mark.backend_independent
@pytest.mark.parametrize("value", ["", "x" * 256, "with space", "tab\there", "caf\u00e9"])
def test_bad_idempotency_key_is_400(api, value):
    r = api.post(
        POSTS, json={"type": "personal", "content": "a"}, headers={"Idempotency-Key": value}
    )
    assert_error(r, 400, "bad_request")


# --- read -------------------------------------------------------------------


def test_get_returns_record_with_etag(api):
    post = create(api)
    r = api.get(ITEM + post["id"])
    assert r.status_code == 200 and r.get_json() == post
    assert r.headers["ETag"] == '"1"'


def test_get_accepts_uppercase_uuid(api):
    post = create(api)
    assert api.get(ITEM + post["id"].upper()).get_json()["id"] == post["id"]


@pytest.mark.parametrize(
    "post_id", ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "1", "x" * 300]
)
def test_unknown_or_malformed_id_is_404(api, post_id):
    assert_error(api.get(ITEM + post_id), 404, "not_found")
    assert_error(api.patch(ITEM + post_id, json={"content": "x"}), 404, "not_found")


# --- list -------------------------------------------------------------------


def test_list_envelope_and_newest_first(api):
    ids = [create(api, content=f"post {i}")["id"] for i in range(5)]
    page = api.get(POSTS).get_json()
    assert page["total"] == 5 and page["limit"] == 20 and page["offset"] == 0
    assert [p["id"] for p in page["data"]] == ids[::-1]


def test_list_paging_is_stable_and_complete(api):
    ids = [create(api, content=f"p{i}")["id"] for i in range(25)]
    seen = []
    for offset in range(0, 30, 7):
        page = api.get(f"{POSTS}?limit=7&offset={offset}").get_json()
        assert page["total"] == 25 and page["limit"] == 7 and page["offset"] == offset
        seen += [p["id"] for p in page["data"]]
    assert seen == ids[::-1]
    assert api.get(f"{POSTS}?limit=100&offset=25").get_json() == {
        "total": 25,
        "total_is_estimate": False,
        "limit": 100,
        "offset": 25,
        "data": [],
        "next": None,
    }


def test_list_filters(api):
    a = create(api)
    b = create(api, type="brand", brand_id="acme")
    c = create(api, scheduled_at=future(3600))
    api.patch(ITEM + c["id"], json={"status": "Scheduled"})
    d = create(api, scheduled_at=future(7200))
    api.patch(ITEM + d["id"], json={"status": "Scheduled"})

    def ids(query):
        r = api.get(f"{POSTS}?{query}")
        assert r.status_code == 200, r.get_json()
        page = r.get_json()
        assert page["total"] == len(page["data"])
        return {p["id"] for p in page["data"]}

    assert ids("status=Draft") == {a["id"], b["id"]}
    assert ids("status=Scheduled") == {c["id"], d["id"]}
    assert ids("type=brand") == {b["id"]}
    assert ids("type=personal&status=Draft") == {a["id"]}
    create(api, type="brand", brand_id="acme-2")
    assert ids("brand_id=acme") == {b["id"]}  # whole, never a prefix
    assert ids("brand_id=acme&status=Scheduled") == set()
    assert ids("brand_id=nobody") == set()
    cut = future(5400).replace("+00:00", "Z")
    assert ids(f"scheduled_before={cut}") == {c["id"]}
    assert ids(f"scheduled_after={cut}") == {d["id"]}
    assert ids("status=Published") == set()
    assert ids("due=true") == set()  # none of them has come yet


def test_due_feed_in_scheduled_order(app, api):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -3600  # allow a schedule in the past
    late = create(api, scheduled_at=future(-60))
    early = create(api, scheduled_at=future(-600))
    later = create(api, scheduled_at=future(3600))
    create(api, scheduled_at=future(-60))  # a Draft: never due
    for post in (late, early, later):
        assert api.patch(ITEM + post["id"], json={"status": "Scheduled"}).status_code == 200
    page = api.get(f"{POSTS}?due=true&order=scheduled_at").get_json()
    assert [p["id"] for p in page["data"]] == [early["id"], late["id"]]
    assert page["total"] == 2


def test_totals_follow_status_moves(api):
    posts = [create(api, scheduled_at=future()) for _ in range(3)]
    api.patch(ITEM + posts[0]["id"], json={"status": "Scheduled"})
    assert api.get(f"{POSTS}?status=Draft&limit=1").get_json()["total"] == 2
    assert api.get(f"{POSTS}?status=Scheduled&limit=1").get_json()["total"] == 1
    assert api.get(f"{POSTS}?limit=1").get_json()["total"] == 3
    assert api.get(f"{POSTS}?type=personal&limit=1&offset=1").get_json()["total"] == 3


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "query, param",
    [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=abc", "limit"),
        ("limit=1.5", "limit"),
        ("offset=-1", "offset"),
        ("offset=x", "offset"),
        ("status=draft", "status"),
        ("status=Deleted", "status"),
        ("type=company", "type"),
        ("brand_id=", "brand_id"),
        ("brand_id=" + "b" * 101, "brand_id"),
        ("scheduled_before=yesterday", "scheduled_before"),
        ("scheduled_after=2030-01-01T00:00:00", "scheduled_after"),
        ("due=maybe", "due"),
        ("order=title", "order"),
        ("sort=created_at", "sort"),
    ],
)
def test_list_rejects_bad_parameters(api, query, param):
    err = assert_error(api.get(f"{POSTS}?{query}"), 400, "validation_error")
    assert param in err["details"]


# --- update -----------------------------------------------------------------


def test_patch_content_bumps_version(api):
    post = create(api)
    r = api.patch(ITEM + post["id"], json={"content": "Edited", "media_urls": ["https://a.io/x"]})
    assert r.status_code == 200
    updated = r.get_json()
    assert updated["content"] == "Edited" and updated["media_urls"] == ["https://a.io/x"]
    assert updated["version"] == 2 and r.headers["ETag"] == '"2"'
    assert updated["updated_at"] > post["updated_at"]
    assert api.get(ITEM + post["id"]).get_json() == updated


def test_patch_without_change_keeps_version(api):
    post = create(api)
    for body in ({}, {"content": post["content"]}, {"status": "Draft"}):
        r = api.patch(ITEM + post["id"], json=body)
        assert r.status_code == 200 and r.get_json()["version"] == 1


def test_patch_type_to_brand_needs_brand_id(api):
    post = create(api)
    err = assert_error(
        api.patch(ITEM + post["id"], json={"type": "brand"}), 400, "validation_error"
    )
    assert "brand_id" in err["details"]
    r = api.patch(ITEM + post["id"], json={"type": "brand", "brand_id": "acme"})
    assert r.status_code == 200 and r.get_json()["brand_id"] == "acme"


def test_brand_post_keeps_its_brand_id(api):
    post = create(api, type="brand", brand_id="acme")
    r = api.patch(ITEM + post["id"], json={"brand_id": None})
    assert "brand_id" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(ITEM + post["id"]).get_json()["brand_id"] == "acme"


BAD_BRAND_PATCH = [
    {"brand_id": "personal"},
    {"type": "brand", "brand_id": "personal"},
    {"brand_id": "personal", "status": "Scheduled"},
]


@pytest.mark.parametrize("start", ["personal", "brand"])
@pytest.mark.parametrize("body", BAD_BRAND_PATCH)
def test_patch_never_gives_a_post_brand_id_personal(api, start, body):
    fields = {"type": "brand", "brand_id": "acme"} if start == "brand" else {}
    post = create(api, scheduled_at=future(), **fields)
    err = assert_error(api.patch(ITEM + post["id"], json=body), 400, "validation_error")
    assert "brand_id" in err["details"] and "personal channel" in err["details"]["brand_id"][0]
    assert api.get(ITEM + post["id"]).get_json() == post


def test_brand_ids_are_case_sensitive_like_channel_ids(api):
    """`Personal` is a brand's id like any other, never the personal channel:
    channel ids (and so brand_ids) are compared exactly."""
    post = create(api, type="brand", brand_id="Personal")
    assert post["type"] == "brand" and post["brand_id"] == "Personal"


def test_patch_type_to_personal_clears_brand_id(api):
    post = create(api, type="brand", brand_id="acme")
    r = api.patch(ITEM + post["id"], json={"type": "personal"})
    assert r.status_code == 200 and r.get_json()["brand_id"] is None


BAD_PATCH = [
    ({"content": ""}, "content"),
    ({"content": "x" * 3001}, "content"),
    ({"type": "other"}, "type"),
    ({"status": "Done"}, "status"),
    ({"scheduled_at": "2030-01-01 09:00"}, "scheduled_at"),
    ({"media_urls": ["javascript:alert(1)"]}, "media_urls.0"),
    ({"media_urls": None}, "media_urls"),
    ({"id": "5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01"}, "id"),
    ({"version": 9}, "version"),
    ({"live_url": "https://x.example"}, "live_url"),
    ({"linkedin_post_id": "urn:li:share:1"}, "linkedin_post_id"),
    ({"published_at": "2030-01-01T00:00:00Z"}, "published_at"),
    ({"workspace_id": 2}, "workspace_id"),
    ({"personal_brand": True}, "personal_brand"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_PATCH)
def test_patch_rejects_bad_bodies(api, body, field):
    post = create(api)
    err = assert_error(api.patch(ITEM + post["id"], json=body), 400, "validation_error")
    assert field in err["details"]
    assert api.get(ITEM + post["id"]).get_json() == post


def test_patch_needs_json(api):
    post = create(api)
    r = api.client.patch(ITEM + post["id"], data="content=x", headers={"X-API-Key": api.key})
    assert_error(r, 415, "unsupported_media_type")


# --- If-Match ---------------------------------------------------------------


def test_if_match_current_version_applies(api):
    post = create(api)
    r = api.patch(ITEM + post["id"], json={"content": "v2"}, headers={"If-Match": '"1"'})
    assert r.status_code == 200 and r.get_json()["version"] == 2
    r = api.patch(ITEM + post["id"], json={"content": "v3"}, headers={"If-Match": '"7", "2"'})
    assert r.status_code == 200
    r = api.patch(ITEM + post["id"], json={"content": "v4"}, headers={"If-Match": "*"})
    assert r.status_code == 200 and r.get_json()["version"] == 4


# RFC 9110 asks for the strong comparison: a weak tag never matches.
@pytest.mark.parametrize("value", ['"2"', '"0"', '"abc"', 'W/"1"', ' W/"1" , "9"'])
def test_if_match_stale_or_weak_is_412_and_nothing_changes(api, value):
    post = create(api)
    r = api.patch(ITEM + post["id"], json={"content": "lost"}, headers={"If-Match": value})
    err = assert_error(r, 412, "precondition_failed")
    assert err["details"]["current_version"] == 1
    assert r.headers["ETag"] == '"1"'
    assert api.get(ITEM + post["id"]).get_json() == post


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "value", ["garbage", "1", "", " ", '"1" "2"', '"1', "W/1", '*, "1"', '"1 "']
)
def test_malformed_if_match_is_400_and_nothing_changes(api, value):
    post = create(api)
    r = api.patch(ITEM + post["id"], json={"content": "lost"}, headers={"If-Match": value})
    err = assert_error(r, 400, "bad_request")
    assert "If-Match" in err["message"]
    assert api.get(ITEM + post["id"]).get_json() == post


# --- isolation --------------------------------------------------------------


def test_users_never_see_or_change_each_others_posts(api, caller):
    bob = caller("bob")
    mine = create(api, content="alice's")
    theirs = create(bob, content="bob's", scheduled_at=future())
    assert [p["id"] for p in api.get(POSTS).get_json()["data"]] == [mine["id"]]
    assert [p["id"] for p in bob.get(POSTS).get_json()["data"]] == [theirs["id"]]
    assert_error(api.get(ITEM + theirs["id"]), 404, "not_found")
    assert_error(api.patch(ITEM + theirs["id"], json={"content": "hijack"}), 404, "not_found")
    assert_error(api.patch(ITEM + theirs["id"], json={"status": "Scheduled"}), 404, "not_found")
    callback = {
        "post_id": theirs["id"],
        "linkedin_post_id": "urn:li:share:1",
        "live_url": "https://www.linkedin.com/feed/update/urn:li:share:1",
    }
    assert_error(api.post("/functions/v1/make-post-callback", json=callback), 404, "not_found")
    assert bob.get(ITEM + theirs["id"]).get_json() == theirs
    assert api.get(f"{POSTS}?status=Draft").get_json()["total"] == 1
