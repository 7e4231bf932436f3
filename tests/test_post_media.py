"""What a post carries besides its text, through the HTTP interface: library
media kept by id and shown at the service's current address, URLs kept as
written, what one post may carry (one document, or 1 to 20 images), alt
text, a document's title and a first comment, and what scheduling needs."""

import io
import json

import pytest
from PIL import Image

from harness.api import ITEM, POSTS
from tests.conftest import assert_error

V1 = "/functions/v1"
MEDIA = f"{V1}/media"
IMPORT = f"{V1}/api-v2-posts-import"
CLAIM = f"{V1}/api-v2-posts-claim"
CDN = "https://cdn.example.com"
SOON = "2031-01-01T09:00:00Z"


def picture(color="red", fmt="PNG", size=(8, 6)):
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


def upload(api, data=None, content_type="image/png"):
    r = api.post(MEDIA, data=data or picture(), headers={"Content-Type": content_type})
    assert r.status_code in (200, 201), r.get_json()
    return r.get_json()


def create(api, **fields):
    r = api.post(POSTS, json={"type": "personal", "content": "Hello", **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def images(n):
    return [f"{CDN}/{i}.png" for i in range(n)]


# --- library media by reference -------------------------------------------------------


def test_library_media_are_kept_by_id_and_shown_at_the_current_address(app, api):
    one, two = upload(api, picture("red")), upload(api, picture("blue"))
    post = create(
        api,
        media_urls=[
            f"media:{one['id']}",  # the reference itself
            f"https://old-host.example:8443/some/base/media/{two['id']}.png",  # any base
            f"{CDN}/x.png",  # not the library's: as written
        ],
    )
    here = app.config["PUBLIC_URL"]
    assert post["media_urls"] == [
        f"{here}/media/{one['id']}.png",
        f"{here}/media/{two['id']}.png",
        f"{CDN}/x.png",
    ]
    app.config["PUBLIC_URL"] = "https://cps.example.com/base"  # the setting changed (restart)
    moved = [
        f"https://cps.example.com/base/media/{one['id']}.png",
        f"https://cps.example.com/base/media/{two['id']}.png",
        f"{CDN}/x.png",
    ]
    assert api.get(ITEM + post["id"]).get_json()["media_urls"] == moved
    assert api.get(POSTS).get_json()["data"][0]["media_urls"] == moved
    assert api.get(MEDIA).get_json()["data"][0]["url"].startswith("https://cps.example.com/base/")


def test_a_post_read_back_and_sent_again_is_unchanged(api):
    """A client that PATCHes the media_urls it read (URLs, not references)
    changes nothing: no new version."""
    media = upload(api)
    post = create(api, media_urls=[media["url"], f"{CDN}/a.png"])
    r = api.patch(ITEM + post["id"], json={"media_urls": post["media_urls"]})
    assert r.status_code == 200 and r.get_json()["version"] == 1


def test_urls_that_only_look_like_the_librarys_stay_as_written(api, caller):
    theirs = upload(caller("bob"), picture("green"))
    mine = upload(api)
    kept = [
        theirs["url"],  # another user's media: a URL like any other
        f"{CDN}/media/{'0' * 32}.png",  # no such media
        f"{mine['url']}?size=large",  # a query: not the library's address
        f"{CDN}/media/{mine['id']}.png/extra",
    ]
    post = create(api, media_urls=kept)
    assert post["media_urls"] == kept


@pytest.mark.parametrize(
    "entry, words",
    [
        ("media:" + "0" * 32, "is not in your media library"),
        ("media:" + "A" * 32, "media:<its id>"),
        ("media:abc", "media:<its id>"),
        ("media:", "media:<its id>"),
    ],
)
def test_a_reference_to_no_media_of_the_callers_is_400(api, entry, words):
    err = assert_error(
        api.post(POSTS, json={"type": "personal", "content": "x", "media_urls": [entry]}),
        400,
        "validation_error",
    )
    assert any(key.startswith("media_urls") for key in err["details"]), err
    assert words in json.dumps(err["details"])
    assert api.get(POSTS).get_json()["total"] == 0


def test_another_users_media_cannot_be_referenced(api, caller):
    theirs = upload(caller("bob"))
    err = assert_error(
        api.post(
            POSTS,
            json={"type": "personal", "content": "x", "media_urls": [f"media:{theirs['id']}"]},
        ),
        400,
        "validation_error",
    )
    assert "media_urls" in err["details"]
    assert api.get(POSTS).get_json()["total"] == 0


# --- what one post may carry ------------------------------------------------------------

BAD_CARRY = [
    ({"media_urls": images(21)}, "media_urls", "at most 20"),
    ({"media_urls": [f"{CDN}/a.pdf", f"{CDN}/b.pdf"]}, "media_urls", "one document at most"),
    ({"media_urls": [f"{CDN}/a.pdf", f"{CDN}/b.png"]}, "media_urls", "never both"),
    ({"media_urls": [f"{CDN}/b.png", f"{CDN}/deck.pptx"]}, "media_urls", "never both"),
    ({"media_urls": images(2), "media_alt": ["one"]}, "media_alt", "one entry per medium"),
    ({"media_urls": [], "media_alt": [None]}, "media_alt", "one entry per medium"),
    ({"media_urls": [f"{CDN}/a.pdf"], "media_alt": ["x"]}, "media_alt", "takes no alt text"),
    ({"media_urls": images(1), "media_alt": ["x" * 4087]}, "media_alt", "4086"),
    ({"media_urls": images(1), "media_alt": "alt"}, "media_alt", "list"),
    ({"document_title": ""}, "document_title", ""),
    ({"document_title": "x" * 401}, "document_title", "400"),
    ({"document_title": "two\nlines"}, "document_title", ""),
    ({"first_comment": "x" * 1251}, "first_comment", "1250"),
    ({"first_comment": "  "}, "first_comment", ""),
]


@pytest.mark.parametrize("fields, field, words", BAD_CARRY)
def test_create_refuses_what_a_post_may_not_carry(api, fields, field, words):
    err = assert_error(
        api.post(POSTS, json={"type": "personal", "content": "x", **fields}),
        400,
        "validation_error",
    )
    assert any(key.split(".")[0] == field for key in err["details"]), err
    assert words.lower() in json.dumps(err["details"]).lower()
    assert api.get(POSTS).get_json()["total"] == 0


@pytest.mark.parametrize("fields, field, words", BAD_CARRY)
def test_update_refuses_what_a_post_may_not_carry(api, fields, field, words):
    post = create(api, media_urls=images(2))
    err = assert_error(api.patch(ITEM + post["id"], json=fields), 400, "validation_error")
    assert any(key.split(".")[0] == field for key in err["details"]), err
    assert api.get(ITEM + post["id"]).get_json() == post


@pytest.mark.parametrize("fields, field, words", BAD_CARRY)
def test_import_refuses_what_a_post_may_not_carry(api, fields, field, words):
    rows = [{"type": "personal", "content": "fine"}, {"type": "personal", "content": "x", **fields}]
    err = assert_error(api.post(IMPORT, json={"posts": rows}), 400, "validation_error")
    assert any(key.split(".")[0] == field for key in err["details"]["rows"]["2"]), err
    assert api.get(POSTS).get_json()["total"] == 0


def test_what_a_post_may_carry(api):
    twenty = create(api, media_urls=images(20), media_alt=[None] * 19 + ["the last"])
    assert len(twenty["media_urls"]) == 20 and twenty["media_alt"][-1] == "the last"
    document = create(api, media_urls=[f"{CDN}/deck.pdf"], document_title="Q3 in 10 slides")
    assert document["document_title"] == "Q3 in 10 slides" and document["media_alt"] == [None]
    text = create(api, first_comment="Link in the comments: https://example.com (really)")
    assert text["media_urls"] == [] and text["media_alt"] == []
    assert text["first_comment"].startswith("Link in the comments")


def test_alt_text_follows_its_medium_when_media_urls_change(api):
    a, b, c = (f"{CDN}/{name}.png" for name in "abc")
    post = create(api, media_urls=[a, b], media_alt=["alt a", None])
    moved = api.patch(ITEM + post["id"], json={"media_urls": [c, b, a]}).get_json()
    assert moved["media_alt"] == [None, None, "alt a"]
    cleared = api.patch(ITEM + post["id"], json={"media_alt": None}).get_json()
    assert cleared["media_alt"] == [None, None, None]
    own = api.patch(ITEM + post["id"], json={"media_alt": ["c", "", None]}).get_json()
    assert own["media_alt"] == ["c", "", None] and own["version"] == 4


# --- what scheduling needs ------------------------------------------------------------


def test_a_document_post_needs_its_title_to_be_scheduled(api):
    post = create(api, media_urls=[f"{CDN}/deck.pdf"], scheduled_at=SOON)
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 400, "validation_error"
    )
    assert "document_title" in err["details"]
    assert api.get(ITEM + post["id"]).get_json() == post
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled", "document_title": "Deck"})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled"
    err = assert_error(
        api.patch(ITEM + post["id"], json={"document_title": None}), 400, "validation_error"
    )
    assert "document_title" in err["details"]


def test_a_first_comment_too_long_once_escaped_cannot_be_scheduled(api):
    comment = "(" * 700  # 700 characters, 1,400 escaped
    post = create(api, first_comment=comment, scheduled_at=SOON)
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 400, "validation_error"
    )
    assert "1400" in err["details"]["first_comment"][0]
    rows = [{"type": "personal", "content": "x", "first_comment": comment, "scheduled_at": SOON}]
    err = assert_error(api.post(IMPORT, json={"posts": rows}), 400, "validation_error")
    assert "first_comment" in err["details"]["rows"]["1"]
    assert api.get(f"{POSTS}?status=Scheduled").get_json()["total"] == 0


def test_media_named_by_a_planned_post_cannot_be_deleted(app, api):
    media = upload(api)
    other_base = f"http://127.0.0.1:9/media/{media['id']}.png"  # the URL of another time
    post = create(api, media_urls=[other_base], scheduled_at=SOON)
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    err = assert_error(
        api.client.delete(f"{V1}/media-item/{media['id']}", headers=key(api)), 409, "conflict"
    )
    assert err["details"]["post_ids"] == [post["id"]]
    assert api.get(MEDIA).get_json()["total"] == 1


def test_a_draft_does_not_hold_its_media_but_cannot_be_scheduled_without_it(api):
    media = upload(api)
    post = create(api, media_urls=[f"media:{media['id']}"], scheduled_at=SOON)
    r = api.client.delete(f"{V1}/media-item/{media['id']}", headers=key(api))
    assert r.status_code == 204
    err = assert_error(
        api.patch(ITEM + post["id"], json={"status": "Scheduled"}), 400, "validation_error"
    )
    assert "no longer in your media library" in err["details"]["media_urls"][0]
    assert api.get(ITEM + post["id"]).get_json()["status"] == "Draft"


def key(api):
    return {"X-API-Key": api.key}
