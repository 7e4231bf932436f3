"""`next` on every list: the absolute URL of the next page with the same
filters, null on the last. Followed from the first page to the end, newest
first, it never repeats or misses a record, even while records are created
between the pages (a cursor names the row a page ended at)."""

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.conftest import assert_error

V1 = "/functions/v1"
POSTS = f"{V1}/api-v2-posts"


def follow(api, first):
    """Every page from `first` on, by its `next` links (as a path; the test
    client speaks to one host), with a hook to act between pages."""
    pages, url = [], first
    while url is not None:
        r = api.get(url)
        assert r.status_code == 200, r.get_json()
        page = r.get_json()
        pages.append(page)
        nxt = page["next"]
        if nxt is not None:
            parts = urlsplit(nxt)
            assert parts.scheme == "http" and parts.netloc == "localhost"  # absolute
            url = f"{parts.path}?{parts.query}"
        else:
            url = None
    return pages


def test_following_next_while_posts_are_created_misses_and_repeats_nothing(api):
    first = [
        api.post(POSTS, json={"type": "personal", "content": f"p{n}"}).get_json()["id"]
        for n in range(23)
    ]
    seen, url, added = [], f"{POSTS}?limit=5&type=personal", []
    while url:
        page = api.get(url).get_json()
        seen += [p["id"] for p in page["data"]]
        added.append(
            api.post(POSTS, json={"type": "personal", "content": "meanwhile"}).get_json()["id"]
        )
        url = page["next"] and page["next"].replace("http://localhost", "")
    assert seen == first[::-1]  # every post that existed at the start, once, newest first
    assert not set(seen) & set(added)


@pytest.mark.parametrize(
    "path, make",
    [
        (
            f"{V1}/articles-api",
            lambda api, n: api.post(f"{V1}/articles-api", json={"title": f"a{n}"}),
        ),
        (
            f"{V1}/webhooks",
            lambda api, n: api.post(
                f"{V1}/webhooks",
                json={"url": f"https://93.184.215.14/h/{n}", "events": ["post.failed"]},
            ),
        ),
        (
            f"{V1}/channels",
            lambda api, n: api.post(
                f"{V1}/channels", json={"type": "brand", "brand_id": f"b{n:02}", "name": f"B{n}"}
            ),
        ),
    ],
)
def test_every_list_carries_next_to_its_end(api, path, make):
    made = [make(api, n).get_json()["id"] for n in range(7)]
    pages = follow(api, f"{path}?limit=3")
    assert [len(p["data"]) for p in pages] == [3, 3, 1]
    assert pages[-1]["next"] is None
    ids = [r["id"] for p in pages for r in p["data"]]
    assert sorted(ids) == sorted(made) and len(set(ids)) == 7
    assert all(p["total"] == 7 for p in pages)


def test_next_keeps_the_filters(api):
    for n in range(6):
        api.post(
            POSTS,
            json={
                "type": "brand" if n % 2 else "personal",
                "brand_id": "acme" if n % 2 else None,
                "content": f"p{n}",
            },
        )
    pages = follow(api, f"{POSTS}?limit=2&type=brand")
    assert [p["type"] for page in pages for p in page["data"]] == ["brand"] * 3
    query = parse_qs(urlsplit(pages[0]["next"]).query)
    assert query["type"] == ["brand"] and query["limit"] == ["2"] and "cursor" in query


def test_the_delivery_log_pages_by_next(api, app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    api.post(f"{V1}/webhooks", json={"url": "https://93.184.215.14/h", "events": ["post.failed"]})
    for n in range(5):
        post = api.post(
            POSTS,
            json={"type": "personal", "content": f"p{n}", "scheduled_at": "2030-01-01T00:00:00Z"},
        ).get_json()
        api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Scheduled"})
        api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Failed", "last_error": "x"})
    pages = follow(api, f"{V1}/webhook-deliveries?limit=2&event_type=post.failed")
    assert sum(len(p["data"]) for p in pages) == 5 and len(pages) == 3


def test_posts_by_scheduled_at_page_by_offset(api):
    for n in range(5):
        api.post(
            POSTS,
            json={
                "type": "personal",
                "content": f"p{n}",
                "scheduled_at": f"2031-01-0{n + 1}T00:00:00Z",
            },
        )
    pages = follow(api, f"{POSTS}?limit=2&order=scheduled_at")
    assert [p["scheduled_at"][:10] for page in pages for p in page["data"]] == [
        f"2031-01-0{n}" for n in range(1, 6)
    ]
    assert parse_qs(urlsplit(pages[0]["next"]).query)["offset"] == ["2"]


def test_a_full_last_page_says_so(api):
    for n in range(4):
        api.post(POSTS, json={"type": "personal", "content": f"p{n}"})
    page = api.get(f"{POSTS}?limit=4").get_json()
    assert len(page["data"]) == 4 and page["next"] is None


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "query, field",
    [
        ("cursor=nonsense", "cursor"),
        ("cursor=WyJ4IiwieSJd", "cursor"),  # ["x","y"]: not a time
        ("cursor=&offset=0", "cursor"),
        ("order=scheduled_at&cursor=WyIyMDMwLTAxLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJ4Il0", "cursor"),
    ],
)
def test_bad_cursors_are_400(api, query, field):
    error = assert_error(api.get(f"{POSTS}?{query}"), 400, "validation_error")
    assert field in error["details"]
