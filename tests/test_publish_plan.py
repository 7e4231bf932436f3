"""The publish plan (`linkedin_request`) of each kind of post, as a claim
and a post.due push hand it over, run step by step as an automation runs it
(harness/publish_plan.py) against the LinkedIn stand-in, which refuses what
LinkedIn refuses: an upload's URN it never issued or issued to another
owner, bytes that are not what the kind says, a post or comment text not
escaped (harness/linkedin_rules.py)."""

import hashlib
import io

import pytest
from PIL import Image
from pypdf import PdfWriter

from content_publishing.linkedin import escape
from harness import Receiver
from harness import publish_plan as automation
from harness.clock import ahead
from harness.linkedin_standin import LinkedInStandIn
from tests.conftest import assert_error

V1 = "/functions/v1"
POSTS = f"{V1}/api-v2-posts"
CLAIM = f"{V1}/api-v2-posts-claim"
PREVIEW = f"{V1}/api-v2-posts-preview"
CALLBACK = f"{V1}/make-post-callback"
MEDIA = f"{V1}/media"
TOKEN = "plan-token"
AUTHOR = "urn:li:person:plan_author"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def linkedin(app, api):
    """The stand-in as LinkedIn; the personal channel posts as AUTHOR."""
    with LinkedInStandIn(TOKEN) as standin:
        app.config["LINKEDIN_API_BASE"] = standin.url
        app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
        r = api.post(
            f"{V1}/channels", json={"type": "personal", "name": "Me", "author_urn": AUTHOR}
        )
        assert r.status_code == 201, r.get_json()
        yield standin


def picture(fmt="PNG", color="red", size=(30, 20)):
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


def pdf(pages=2):
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def upload(api, data, content_type, alt_text=None):
    r = api.post(MEDIA, data=data, headers={"Content-Type": content_type})
    assert r.status_code == 201, r.get_json()
    media = r.get_json()
    if alt_text is not None:
        r = api.patch(f"{V1}/media-item/{media['id']}", json={"alt_text": alt_text})
        assert r.status_code == 200, r.get_json()
        media = r.get_json()
    return media


def claimed(api, **fields):
    """A post of `fields`, due, scheduled and claimed: (its record, its plan)."""
    body = {"type": "personal", "content": "A post (with parentheses)", **fields}
    post = api.post(POSTS, json={**body, "scheduled_at": ahead(-60)}).get_json()
    r = api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    (record,) = api.post(CLAIM, json={"limit": 1}).get_json()["data"]
    assert record["id"] == post["id"]
    return record, record["linkedin_request"]


def fetcher(app, client):
    """What an automation fetches at an upload's source, from this service."""
    base = app.config["PUBLIC_URL"]

    def fetch(url):
        assert url.startswith(base + "/media/"), url
        r = client.get(url.removeprefix(base))
        assert r.status_code == 200, url
        return r.data

    return fetch


def served(app, client, url):
    return fetcher(app, client)(url)


def initialize(kind, standin):
    return {
        "method": "POST",
        "url": f"{standin.url}/rest/{kind}s?action=initializeUpload",
        "headers": {
            "LinkedIn-Version": "202610",
            "X-Restli-Protocol-Version": "2.0.0",
            "Content-Type": "application/json",
        },
        "body": {"initializeUploadRequest": {"owner": AUTHOR}},
    }


def test_a_text_only_post_is_the_post_alone(app, api, client, linkedin):
    _, plan = claimed(api)
    assert plan["uploads"] == [] and plan["after"] == [] and plan["media"] == []
    assert "content" not in plan["body"]
    assert list(plan) == ["method", "url", "headers", "uploads", "body", "after", "media"]
    outcome = automation.run(plan, TOKEN, fetcher(app, client))
    assert linkedin.posts[outcome.post_urn]["commentary"] == escape("A post (with parentheses)")


def test_one_image_with_the_library_alt_text(app, api, client, linkedin):
    media = upload(api, picture(), "image/png", alt_text="A red square")
    _, plan = claimed(api, media_urls=[media["url"]])
    data = served(app, client, media["url"])
    assert plan["uploads"] == [
        {
            "ref": "upload_0",
            "kind": "image",
            "source": media["url"],
            "content_type": "image/png",
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "initialize": initialize("image", linkedin),
        }
    ]
    assert plan["body"]["content"] == {"media": {"id": "{{upload_0}}", "altText": "A red square"}}
    assert plan["media"] == [media["url"]]
    outcome = automation.run(plan, TOKEN, fetcher(app, client))
    sent = linkedin.posts[outcome.post_urn]["content"]["media"]
    assert sent == {"id": outcome.urns["upload_0"], "altText": "A red square"}
    assert linkedin.uploads[sent["id"]].data == data


def test_three_images_are_a_multi_image_with_each_alt_text(app, api, client, linkedin):
    own = upload(api, picture("JPEG", "blue"), "image/jpeg", alt_text="The library's words")
    plain = upload(api, picture("GIF", "green"), "image/gif")
    urls = [own["url"], plain["url"], f"media:{own['id']}"]
    _, plan = claimed(api, media_urls=urls, media_alt=[None, "The post's words", ""])
    assert [u["ref"] for u in plan["uploads"]] == ["upload_0", "upload_1", "upload_2"]
    assert [u["content_type"] for u in plan["uploads"]] == ["image/jpeg", "image/gif", "image/jpeg"]
    assert plan["body"]["content"] == {
        "multiImage": {
            "images": [
                {"id": "{{upload_0}}", "altText": "The library's words"},
                {"id": "{{upload_1}}", "altText": "The post's words"},
                {"id": "{{upload_2}}"},  # "" in media_alt: none
            ]
        }
    }
    outcome = automation.run(plan, TOKEN, fetcher(app, client))
    images = linkedin.posts[outcome.post_urn]["content"]["multiImage"]["images"]
    assert [i["id"] for i in images] == [outcome.urns[f"upload_{n}"] for n in range(3)]


def test_a_document_with_its_title(app, api, client, linkedin):
    document = upload(api, pdf(3), "application/pdf")
    assert document["pages"] == 3 and (document["width"], document["height"]) == (595, 842)
    _, plan = claimed(api, media_urls=[document["url"]], document_title="Q3 in three pages")
    (step,) = plan["uploads"]
    assert step["kind"] == "document" and step["content_type"] == "application/pdf"
    assert step["initialize"] == initialize("document", linkedin)
    assert plan["body"]["content"] == {
        "media": {"id": "{{upload_0}}", "title": "Q3 in three pages"}
    }
    outcome = automation.run(plan, TOKEN, fetcher(app, client))
    urn = outcome.urns["upload_0"]
    assert urn.startswith("urn:li:document:") and linkedin.uploads[urn].data.startswith(b"%PDF-")


def test_a_webp_is_handed_over_as_its_png(app, api, client, linkedin):
    webp = upload(api, picture("WEBP"), "image/webp")
    assert webp["url"].endswith(".webp")
    _, plan = claimed(api, media_urls=[webp["url"]])
    (step,) = plan["uploads"]
    png_url = webp["url"].removesuffix(".webp") + ".png"
    png = served(app, client, png_url)
    assert step["source"] == png_url and step["content_type"] == "image/png"
    assert (step["bytes"], step["sha256"]) == (len(png), hashlib.sha256(png).hexdigest())
    assert png.startswith(PNG_SIGNATURE) and Image.open(io.BytesIO(png)).size == (30, 20)
    outcome = automation.run(plan, TOKEN, fetcher(app, client))
    assert linkedin.uploads[outcome.urns["upload_0"]].data == png


def test_the_first_comment_follows_the_post_and_is_reported(app, api, client, linkedin):
    comment = "Link (as promised): https://example.com/notes_(v2) #launch"
    post, plan = claimed(api, first_comment=comment)
    (step,) = plan["after"]
    assert step == {
        "ref": "first_comment",
        "method": "POST",
        "url": f"{linkedin.url}/rest/socialActions/{{{{post_urn}}}}/comments",
        "headers": plan["headers"],
        "body": {"actor": AUTHOR, "object": "{{post_urn}}", "message": {"text": escape(comment)}},
    }
    outcome = automation.run(plan, TOKEN, fetcher(app, client))
    ((ref, status, answer),) = outcome.steps
    assert (ref, status) == ("first_comment", 201), answer
    (made,) = linkedin.comments
    assert made[0] == outcome.post_urn and made[2]["message"]["text"] == escape(comment)
    r = api.post(
        CALLBACK,
        json={
            "post_id": post["id"],
            "linkedin_post_id": outcome.post_urn,
            "first_comment_urn": answer["commentUrn"],
        },
    )
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["first_comment_urn"] == answer["commentUrn"]


def test_a_refused_upload_posts_nothing(app, api, client, linkedin):
    linkedin.refuse_uploads_for(AUTHOR, 403, "Not enough permissions")
    media = upload(api, picture(), "image/png")
    _, plan = claimed(api, media_urls=[media["url"]])
    with pytest.raises(automation.PlanFailed, match="Not enough permissions"):
        automation.run(plan, TOKEN, fetcher(app, client))
    assert linkedin.created == []


def test_media_named_by_url_are_handed_over_as_written(api, linkedin):
    urls = ["https://cdn.example.com/team.JPG", "https://cdn.example.com/render?id=7"]
    _, plan = claimed(api, media_urls=urls)
    assert [(u["source"], u["content_type"], u["bytes"], u["sha256"]) for u in plan["uploads"]] == [
        (urls[0], "image/jpeg", None, None),
        (urls[1], None, None, None),
    ]


def test_sources_follow_the_service_address_in_force(app, api, linkedin):
    media = upload(api, picture(), "image/png")
    post = api.post(POSTS, json={"type": "personal", "content": "x", "media_urls": [media["url"]]})
    app.config["PUBLIC_URL"] = "https://cps.example.com"
    r = api.post(PREVIEW, json={"post_id": post.get_json()["id"]})
    (step,) = r.get_json()["linkedin_request"]["uploads"]
    assert step["source"] == f"https://cps.example.com/media/{media['id']}.png"


def test_a_pushed_post_carries_its_plan(app, api, runner, linkedin):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    media = upload(api, picture(), "image/png", alt_text="Seen")
    with Receiver() as receiver:
        hook = api.post(f"{V1}/webhooks", json={"url": receiver.url, "events": ["post.due"]})
        receiver.secrets.append(hook.get_json()["secret"])
        body = {"type": "personal", "content": "pushed", "media_urls": [media["url"]]}
        post = api.post(POSTS, json={**body, "first_comment": "hi", "scheduled_at": ahead(-60)})
        api.patch(f"{POSTS}-item/{post.get_json()['id']}", json={"status": "Scheduled"})
        result = runner.invoke(args=["dispatch", "--seconds", "1"])
        assert result.exit_code == 0, result.output
        receiver.wait_for(lambda arrivals: arrivals, what="the post.due delivery")
        (arrival,) = receiver.arrivals
    plan = arrival.json["data"]["linkedin_request"]
    assert arrival.json["data"]["post"]["media_urls"] == [media["url"]]
    assert [u["source"] for u in plan["uploads"]] == [media["url"]]
    assert plan["body"]["content"]["media"]["altText"] == "Seen"
    assert [step["ref"] for step in plan["after"]] == ["first_comment"]


def test_a_document_without_its_title_is_never_claimed(api, linkedin):
    """A document post without its title, or with a first comment over
    LinkedIn's limit, cannot be scheduled in the first place."""
    body = {"type": "personal", "content": "x", "scheduled_at": ahead(3600)}
    post = api.post(POSTS, json={**body, "media_urls": ["https://cdn.example.com/a.pdf"]})
    r = api.patch(f"{POSTS}-item/{post.get_json()['id']}", json={"status": "Scheduled"})
    assert "document_title" in assert_error(r, 400, "validation_error")["details"]
    assert api.post(CLAIM, json={}).get_json()["data"] == []
