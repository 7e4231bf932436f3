"""UTM tags: a channel's `utm` is added to each http(s) link of a post's
text and first comment when the post is handed over (a claim, a post.due
push, the service's own publisher: one publish plan) and in the preview,
never to the stored text; a link's own parameter of the same name stays."""

import pytest

from content_publishing.linkedin import escape
from harness.clock import ahead
from tests.conftest import assert_error

V1 = "/functions/v1"
POSTS = f"{V1}/api-v2-posts"
CLAIM = f"{V1}/api-v2-posts-claim"
PREVIEW = f"{V1}/api-v2-posts-preview"
CHANNELS = f"{V1}/channels"
CHANNEL = f"{V1}/channels-item/"
UTM = "utm_source=linkedin&utm_medium=social&utm_campaign={channel}&utm_content={post_id}"
TEXT = "Read https://example.com/blog?id=7#part and (https://shop.example/x?utm_source=mine)."
COMMENT = "Slides: https://example.com"


@pytest.fixture
def acme(app, api):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    body = {"type": "brand", "brand_id": "acme.co", "name": "Acme", "utm": UTM}
    r = api.post(CHANNELS, json=body)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["utm"] == UTM
    return r.get_json()


def tags(post_id, channel="acme%2Eco"):
    return f"utm_medium=social&utm_campaign={channel}&utm_content={post_id}"


def sent(post_id):
    """TEXT and COMMENT as they go out for post `post_id` of channel acme.co."""
    text = (
        f"Read https://example.com/blog?id=7&utm_source=linkedin&{tags(post_id)}#part and "
        f"(https://shop.example/x?utm_source=mine&{tags(post_id)})."
    )
    comment = f"Slides: https://example.com/?utm_source=linkedin&{tags(post_id)}"
    return text, comment


def brand_post(api, **fields):
    body = {"type": "brand", "brand_id": "acme.co", "content": TEXT, "first_comment": COMMENT}
    r = api.post(POSTS, json={**body, **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_the_handed_over_request_carries_the_tags_and_the_stored_text_does_not(api, acme):
    post = brand_post(api, scheduled_at=ahead(-60))
    assert api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Scheduled"}).status_code == 200
    [record] = api.post(CLAIM, json={"limit": 1}).get_json()["data"]
    text, comment = sent(post["id"])
    plan = record["linkedin_request"]
    assert plan["body"]["commentary"] == escape(text)
    assert plan["after"][0]["body"]["message"]["text"] == escape(comment)
    assert record["content"] == TEXT and record["first_comment"] == COMMENT
    stored = api.get(f"{POSTS}-item/{post['id']}").get_json()
    assert stored["content"] == TEXT and stored["first_comment"] == COMMENT


def test_the_preview_shows_each_link_as_it_goes_out(api, acme):
    post = brand_post(api)
    r = api.post(PREVIEW, json={"post_id": post["id"]})
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    text, comment = sent(post["id"])
    assert answer["linkedin_request"]["body"]["commentary"] == escape(text)
    assert answer["links"] == [
        {
            "field": "content",
            "url": "https://example.com/blog?id=7#part",
            "sent": f"https://example.com/blog?id=7&utm_source=linkedin&{tags(post['id'])}#part",
        },
        {
            "field": "content",
            "url": "https://shop.example/x?utm_source=mine",
            "sent": f"https://shop.example/x?utm_source=mine&{tags(post['id'])}",
        },
        {"field": "first_comment", "url": "https://example.com", "sent": comment.split(" ")[1]},
    ]
    assert "utm_dropped" not in {w["code"] for w in answer["warnings"]}
    # A post not yet saved has no id: {post_id} reads "preview".
    fields = {"type": "brand", "brand_id": "acme.co", "content": "Go https://example.com/a"}
    answer = api.post(PREVIEW, json=fields).get_json()
    [link] = answer["links"]
    assert link["sent"] == f"https://example.com/a?utm_source=linkedin&{tags('preview')}"
    assert api.get(f"{POSTS}-item/{post['id']}").get_json()["content"] == TEXT


def test_a_channel_without_utm_hands_links_over_as_written(api, acme):
    assert api.patch(CHANNEL + "acme.co", json={"utm": None}).get_json()["utm"] is None
    post = brand_post(api)
    answer = api.post(PREVIEW, json={"post_id": post["id"]}).get_json()
    assert answer["linkedin_request"]["body"]["commentary"] == escape(TEXT)
    assert [link["sent"] for link in answer["links"]] == [link["url"] for link in answer["links"]]


def test_tags_that_would_take_the_text_over_the_limit_are_dropped_with_a_warning(api, acme):
    text = "x" * 2950 + " https://example.com/a"
    post = brand_post(api, content=text, first_comment=None)
    answer = api.post(PREVIEW, json={"post_id": post["id"]}).get_json()
    assert answer["linkedin_request"]["body"]["commentary"] == escape(text)
    assert answer["links"][0]["sent"] == "https://example.com/a"
    [dropped] = [w for w in answer["warnings"] if w["code"] == "utm_dropped"]
    assert dropped["field"] == "content"
    assert "over_length" not in {w["code"] for w in answer["warnings"]}


BAD_UTM = [
    "x" * 501,
    "",
    "?utm_source=linkedin",
    "utm_source",
    "utm_source=",
    "utm source=linkedin",
    "utm_source=linked in",
    "utm_source=a&utm_source=b",
    "utm_source=linkedin.",
    "utm_source=<b>",
    "utm_campaign={brand}",
    "utm_source=a&&utm_medium=b",
    "utm_source=a#b",
    "utm_source=%zz",
    5,
    ["utm_source=a"],
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("utm", BAD_UTM)
def test_a_bad_utm_is_400_naming_it(api, acme, utm):
    for r in (
        api.patch(CHANNEL + "acme.co", json={"utm": utm}),
        api.post(CHANNELS, json={"type": "personal", "name": "Me", "utm": utm}),
    ):
        error = assert_error(r, 400, "validation_error")
        assert list(error["details"]) == ["utm"], error
    assert api.get(CHANNEL + "acme.co").get_json() == acme
    assert api.get(CHANNEL + "personal").status_code == 404


@pytest.mark.backend_independent
def test_a_utm_of_500_characters_is_kept(api, acme):
    utm = "utm_source=" + "a" * 489
    assert len(utm) == 500
    r = api.patch(CHANNEL + "acme.co", json={"utm": utm})
    assert r.status_code == 200, r.get_json()
    assert api.get(CHANNEL + "acme.co").get_json()["utm"] == utm
