"""The first comment's outcome, reported by the publish callback: posted
(first_comment_urn) or not (first_comment_error, up to 1,000 characters),
with the post or in the same callback again later. A failed first comment
never makes a live post Failed; it shows on the post, with a comment_failed
history entry. And the preview's new warnings."""

import pytest

from harness.clock import ahead
from tests.conftest import assert_error

V1 = "/functions/v1"
POSTS = f"{V1}/api-v2-posts"
ITEM = f"{POSTS}-item/"
CLAIM = f"{V1}/api-v2-posts-claim"
CALLBACK = f"{V1}/make-post-callback"
HISTORY = f"{V1}/api-v2-posts-history/"
PREVIEW = f"{V1}/api-v2-posts-preview"
URN = "urn:li:share:7100000000000000001"
COMMENT_URN = f"urn:li:comment:({URN},7100000000000000002)"


@pytest.fixture
def claimed(app, api):
    """A post with a first comment, handed over by a claim."""
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    body = {"type": "personal", "content": "Out now", "first_comment": "Link: https://x.example"}
    post = api.post(POSTS, json={**body, "scheduled_at": ahead(-60)}).get_json()
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    (record,) = api.post(CLAIM, json={}).get_json()["data"]
    return record


def callback(api, post, **fields):
    return api.post(CALLBACK, json={"post_id": post["id"], "linkedin_post_id": URN, **fields})


def actions(api, post):
    return [e["action"] for e in api.get(HISTORY + post["id"]).get_json()["data"]]


def test_a_posted_first_comment_is_kept_with_the_post(api, claimed):
    r = callback(api, claimed, first_comment_urn=COMMENT_URN)
    assert r.status_code == 200, r.get_json()
    post = r.get_json()
    assert post["status"] == "Published" and post["first_comment_urn"] == COMMENT_URN
    assert post["first_comment_error"] is None
    again = callback(api, claimed, first_comment_urn=COMMENT_URN)  # the platform's retry
    assert again.status_code == 200 and again.get_json()["version"] == post["version"]
    assert actions(api, claimed)[-1] == "published"


def test_a_failed_first_comment_leaves_the_post_published_and_says_why(app, api, claimed):
    error = "LinkedIn answered 422: the comment's text was refused\n(twice)"
    r = callback(api, claimed, first_comment_error=error)
    assert r.status_code == 200, r.get_json()
    post = r.get_json()
    assert post["status"] == "Published" and post["linkedin_post_id"] == URN
    assert post["first_comment_error"] == error and post["first_comment_urn"] is None
    assert post["last_error"] is None
    assert actions(api, claimed)[-2:] == ["published", "comment_failed"]
    entry = api.get(HISTORY + claimed["id"]).get_json()["data"][-1]
    assert entry["fields"] == ["first_comment_error"] and entry["status_to"] == "Published"
    assert api.get(ITEM + claimed["id"]).get_json() == post


def test_the_comments_outcome_may_follow_the_posts(api, claimed):
    published = callback(api, claimed).get_json()
    assert published["first_comment_urn"] is None and published["first_comment_error"] is None
    failed = callback(api, claimed, first_comment_error="timed out").get_json()
    assert failed["first_comment_error"] == "timed out" and failed["status"] == "Published"
    posted = callback(api, claimed, first_comment_urn=COMMENT_URN).get_json()  # a later try worked
    assert posted["first_comment_urn"] == COMMENT_URN and posted["first_comment_error"] is None
    assert actions(api, claimed)[-3:] == ["published", "comment_failed", "commented"]
    for late in ({"first_comment_error": "too late"}, {"first_comment_urn": f"{COMMENT_URN}9"}):
        r = callback(api, claimed, **late)
        assert assert_error(r, 409, "conflict")["details"]["first_comment_urn"] == COMMENT_URN
    assert api.get(ITEM + claimed["id"]).get_json() == posted


BAD_CALLBACKS = [
    ({"first_comment_urn": COMMENT_URN, "first_comment_error": "x"}, "first_comment_error"),
    ({"first_comment_error": "x" * 1001}, "first_comment_error"),
    ({"first_comment_error": ""}, "first_comment_error"),
    ({"first_comment_error": " \n "}, "first_comment_error"),
    ({"first_comment_urn": "comment 7"}, "first_comment_urn"),
    ({"first_comment_urn": None}, "first_comment_urn"),
]


@pytest.mark.parametrize("fields, field", BAD_CALLBACKS)
def test_a_bad_comment_outcome_is_400_and_changes_nothing(api, claimed, fields, field):
    error = assert_error(callback(api, claimed, **fields), 400, "validation_error")
    assert field in error["details"]
    assert api.get(ITEM + claimed["id"]).get_json()["status"] == "Publishing"


# --- the preview's warnings ------------------------------------------------------------------


def warned(api, **fields):
    body = {"type": "personal", "content": "Hello", **fields}
    r = api.post(PREVIEW, json=body)
    assert r.status_code == 200, r.get_json()
    return {w["code"]: w for w in r.get_json()["warnings"]}


def test_a_name_typed_after_an_at_sign_tags_no_one(api):
    found = warned(api, content="Thanks @Jane Doe and @[Ada](urn:li:person:a1), mail a@Example.org")
    warning = found["plain_mention"]
    assert warning["text"] == "@Jane Doe" and warning["field"] == "content"
    assert "@[Jane Doe](urn:li:person:" in warning["message"]
    in_comment = warned(api, first_comment="cc @Bob")["plain_mention"]
    assert (in_comment["text"], in_comment["field"]) == ("@Bob", "first_comment")
    for fine in ("mail me @ home", "@lowercase handle", "x@Glued", "@[Ann](urn:li:person:1)"):
        assert "plain_mention" not in warned(api, content=fine), fine


def test_media_warnings(api):
    assert (
        warned(api, media_urls=["https://cdn.example.com/pic.webp"])["media_unsupported"]["field"]
        == "media_urls"
    )
    assert "media_unsupported" not in warned(api, media_urls=["https://cdn.example.com/render"])
    many = warned(api, media_urls=[f"https://cdn.example.com/{n}.png" for n in range(21)])
    assert "21 images" in many["too_many_images"]["message"]
    document = warned(api, media_urls=["https://cdn.example.com/deck.pdf"])
    assert document["document_title_missing"]["field"] == "document_title"
    assert "document_title_missing" not in warned(
        api, media_urls=["https://cdn.example.com/deck.pdf"], document_title="Deck"
    )
    mixed = warned(api, media_urls=["https://cdn.example.com/deck.pdf", "https://c.example/a.png"])
    assert "media_mixed" in mixed
    assert warned(api, media_urls=["https://c.example/a.png"])["alt_text_missing"]["field"] == (
        "media_alt"
    )
    assert "alt_text_missing" not in warned(
        api, media_urls=["https://c.example/a.png"], media_alt=["A chart"]
    )


def test_a_first_comment_over_length_once_escaped(api):
    found = warned(api, first_comment="(" * 700)
    assert "1400" in found["first_comment_over_length"]["message"]
    assert "first_comment_over_length" not in warned(api, first_comment="x" * 1250)
