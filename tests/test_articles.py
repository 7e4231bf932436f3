"""Articles: list, create, read and update through the HTTP interface."""

import json

import pytest

from harness.api import ARTICLES, POSTS
from tests.conftest import assert_error

ITEM = "/functions/v1/articles-api-item/"


def create(api, **fields):
    r = api.post(ARTICLES, json={"title": "On publishing", **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_create_minimal_draft(api):
    r = api.post(ARTICLES, json={"title": "Hello"})
    assert r.status_code == 201
    article = r.get_json()
    assert r.headers["Location"] == ITEM + article["id"]
    assert r.headers["ETag"] == '"1"'
    assert article["status"] == "Draft" and article["version"] == 1
    assert article["body"] == "" and article["tags"] == [] and article["excerpt"] is None
    assert article["cover_image_url"] is None and article["published_at"] is None
    assert article["live_url"] is None and article["created_at"].endswith("Z")
    assert api.get(r.headers["Location"]).get_json() == article


def test_create_full(api):
    article = create(
        api,
        body="# Title\n\nSome *Markdown*.",
        excerpt="Short",
        cover_image_url="https://cdn.example.com/cover.jpg",
        tags=["publishing", "automation"],
    )
    assert article["tags"] == ["publishing", "automation"]
    assert article["cover_image_url"] == "https://cdn.example.com/cover.jpg"


BAD_CREATE = [
    ({}, "title"),
    ({"title": ""}, "title"),
    ({"title": "  "}, "title"),
    ({"title": "x" * 301}, "title"),
    ({"title": 5}, "title"),
    ({"title": "t", "body": None}, "body"),
    ({"title": "t", "excerpt": "x" * 301}, "excerpt"),
    ({"title": "t", "cover_image_url": "cover.jpg"}, "cover_image_url"),
    ({"title": "t", "cover_image_url": "ftp://a.example/c.jpg"}, "cover_image_url"),
    ({"title": "t", "tags": "news"}, "tags"),
    ({"title": "t", "tags": [""]}, "tags.0"),
    ({"title": "t", "tags": ["x" * 51]}, "tags.0"),
    ({"title": "t", "tags": [1]}, "tags.0"),
    ({"title": "t", "tags": [f"t{i}" for i in range(21)]}, "tags"),
    ({"title": "t", "status": "Published"}, "status"),
    ({"title": "t", "id": "5f0c4b1e-2f7a-4a53-9a55-9b4c1b8e7f01"}, "id"),
    ({"title": "t", "version": 3}, "version"),
    ({"title": "t", "published_at": "2030-01-01T00:00:00Z"}, "published_at"),
    ({"title": "t", "live_url": "https://example.com/a"}, "live_url"),
    ({"title": "t", "created_at": "2030-01-01T00:00:00Z"}, "created_at"),
    ({"title": "t", "workspace_id": 1}, "workspace_id"),
    ({"title": "t", "author": "bob"}, "author"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_CREATE)
def test_create_rejects_bad_bodies(api, body, field):
    err = assert_error(api.post(ARTICLES, json=body), 400, "validation_error")
    assert field in err["details"], err
    assert api.get(ARTICLES).get_json()["total"] == 0


def test_body_at_the_field_limit_is_accepted(api):
    body = "é" * 200_000  # 400 kB as UTF-8, under the 1 MiB request cap
    raw = json.dumps({"title": "t", "body": body}, ensure_ascii=False).encode()
    r = api.client.post(
        ARTICLES, data=raw, content_type="application/json", headers={"X-API-Key": api.key}
    )
    assert r.status_code == 201
    assert api.get(r.headers["Location"]).get_json()["body"] == body


def test_body_over_the_field_limit_is_400(api):
    err = assert_error(
        api.post(ARTICLES, json={"title": "t", "body": "x" * 200_001}), 400, "validation_error"
    )
    assert "body" in err["details"]


def test_request_over_the_size_cap_is_413(api):
    raw = json.dumps({"title": "t", "body": "x" * (1024 * 1024)})
    r = api.client.post(
        ARTICLES, data=raw, content_type="application/json", headers={"X-API-Key": api.key}
    )
    assert_error(r, 413, "payload_too_large")
    assert api.get(ARTICLES).get_json()["total"] == 0


def test_get_with_json_content_type_and_no_body(api):
    """The reference reaches /articles-api with a GET carrying a JSON content type."""
    create(api)
    r = api.client.get(ARTICLES, headers={"X-API-Key": api.key, "Content-Type": "application/json"})
    assert r.status_code == 200 and r.get_json()["total"] == 1
    r = api.client.get(
        ITEM + r.get_json()["data"][0]["id"],
        headers={"X-API-Key": api.key, "Content-Type": "application/json"},
    )
    assert r.status_code == 200


def test_list_paging_filter_and_order(api):
    ids = [create(api, title=f"a{i}")["id"] for i in range(7)]
    api.patch(ITEM + ids[2], json={"status": "Published"})
    page = api.get(f"{ARTICLES}?limit=3&offset=3").get_json()
    assert page["total"] == 7 and page["limit"] == 3 and page["offset"] == 3
    assert [a["id"] for a in page["data"]] == ids[::-1][3:6]
    published = api.get(f"{ARTICLES}?status=Published").get_json()
    assert [a["id"] for a in published["data"]] == [ids[2]] and published["total"] == 1
    assert api.get(f"{ARTICLES}?status=Draft&limit=1").get_json()["total"] == 6


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "query, param",
    [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("offset=-5", "offset"),
        ("status=Scheduled", "status"),
        ("status=published", "status"),
        ("type=brand", "type"),
    ],
)
def test_list_rejects_bad_parameters(api, query, param):
    err = assert_error(api.get(f"{ARTICLES}?{query}"), 400, "validation_error")
    assert param in err["details"]


def test_publish_and_unpublish(api):
    article = create(api)
    r = api.patch(
        ITEM + article["id"], json={"status": "Published", "live_url": "https://blog.example.com/a"}
    )
    assert r.status_code == 200
    published = r.get_json()
    assert published["status"] == "Published" and published["published_at"].endswith("Z")
    assert published["live_url"] == "https://blog.example.com/a"
    assert published["version"] == 2 and r.headers["ETag"] == '"2"'
    again = api.patch(ITEM + article["id"], json={"status": "Published"}).get_json()
    assert again == published  # no change, same version and published_at
    draft = api.patch(ITEM + article["id"], json={"status": "Draft"}).get_json()
    assert draft["status"] == "Draft" and draft["published_at"] is None
    assert draft["version"] == 3


def test_patch_fields(api):
    article = create(api)
    r = api.patch(
        ITEM + article["id"],
        json={
            "title": "New",
            "tags": ["a"],
            "excerpt": None,
            "cover_image_url": "http://img.example/x.png",
        },
    )
    updated = r.get_json()
    assert r.status_code == 200 and updated["title"] == "New" and updated["tags"] == ["a"]
    assert updated["version"] == 2 and api.get(ITEM + article["id"]).get_json() == updated


BAD_PATCH = [
    ({"title": ""}, "title"),
    ({"title": None}, "title"),
    ({"body": "x" * 200_001}, "body"),
    ({"status": "Scheduled"}, "status"),
    ({"tags": None}, "tags"),
    ({"live_url": "not a url"}, "live_url"),
    ({"published_at": "2030-01-01T00:00:00Z"}, "published_at"),
    ({"version": 5}, "version"),
    ({"id": "x"}, "id"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_PATCH)
def test_patch_rejects_bad_bodies(api, body, field):
    article = create(api)
    err = assert_error(api.patch(ITEM + article["id"], json=body), 400, "validation_error")
    assert field in err["details"]
    assert api.get(ITEM + article["id"]).get_json() == article


def test_if_match(api):
    article = create(api)
    r = api.patch(ITEM + article["id"], json={"title": "v2"}, headers={"If-Match": '"1"'})
    assert r.status_code == 200
    r = api.patch(ITEM + article["id"], json={"title": "lost"}, headers={"If-Match": '"1"'})
    assert assert_error(r, 412, "precondition_failed")["details"]["current_version"] == 2
    assert api.get(ITEM + article["id"]).get_json()["title"] == "v2"


@pytest.mark.parametrize("article_id", ["00000000-0000-4000-8000-000000000000", "nope"])
def test_unknown_or_malformed_id_is_404(api, article_id):
    assert_error(api.get(ITEM + article_id), 404, "not_found")
    assert_error(api.patch(ITEM + article_id, json={"title": "x"}), 404, "not_found")


def test_other_users_articles_are_invisible(api, caller):
    bob = caller("bob")
    theirs = create(bob, title="bob's")
    mine = create(api, title="alice's")
    assert [a["id"] for a in api.get(ARTICLES).get_json()["data"]] == [mine["id"]]
    assert_error(api.get(ITEM + theirs["id"]), 404, "not_found")
    assert_error(api.patch(ITEM + theirs["id"], json={"title": "hijack"}), 404, "not_found")
    assert_error(api.patch(ITEM + theirs["id"], json={"status": "Published"}), 404, "not_found")
    assert bob.get(ITEM + theirs["id"]).get_json() == theirs


@pytest.mark.parametrize(
    "method, path, scope",
    [
        ("get", ARTICLES, "articles:read"),
        ("post", ARTICLES, "articles:write"),
        ("get", ITEM + "00000000-0000-4000-8000-000000000000", "articles:read"),
        ("patch", ITEM + "00000000-0000-4000-8000-000000000000", "articles:write"),
    ],
)
def test_posts_only_key_gets_403_on_articles(caller, method, path, scope):
    posts_only = caller("dora", scopes=["posts:read", "posts:write", "posts:publish"])
    r = getattr(posts_only, method)(path, json={"title": "x"} if method != "get" else None)
    assert assert_error(r, 403, "insufficient_scope")["details"]["required_scope"] == scope


@pytest.mark.parametrize("method, scope", [("get", "posts:read"), ("post", "posts:write")])
def test_articles_only_key_gets_403_on_posts(caller, method, scope):
    articles_only = caller("erin", scopes=["articles:read", "articles:write"])
    body = {"type": "personal", "content": "x"} if method == "post" else None
    r = getattr(articles_only, method)(POSTS, json=body)
    assert assert_error(r, 403, "insufficient_scope")["details"]["required_scope"] == scope


def test_read_only_key_cannot_write(caller, api):
    article = create(api)
    reader = caller("alice", scopes=["articles:read"])
    assert reader.get(ITEM + article["id"]).status_code == 200
    r = reader.patch(ITEM + article["id"], json={"title": "x"})
    assert assert_error(r, 403, "insufficient_scope")["details"]["required_scope"] == (
        "articles:write"
    )
