"""The LinkedIn stand-in of `make test-n8n` (harness/linkedin_standin.py),
driven as an automation drives LinkedIn while it runs a publish plan: the
Images and Documents APIs' initializeUpload, the PUT of the bytes, the post
that names the URNs, the first comment. What LinkedIn refuses, the
stand-in refuses, with LinkedIn's status and a JSON body; and each
behaviour a kit test asks for (429, delay, hold) does what it says."""

import threading
import time
from urllib.parse import quote, urlsplit

import pytest

from harness import Client
from harness.linkedin_standin import LinkedInStandIn

TOKEN = "stand-in-token"
AUTHOR = "urn:li:person:standin_1"
OTHER = "urn:li:organization:42"
HEADERS = {
    "Authorization": f"Bearer {TOKEN}",
    "LinkedIn-Version": "202610",
    "X-Restli-Protocol-Version": "2.0.0",
}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + b"0" * 64


@pytest.fixture
def linkedin():
    with LinkedInStandIn(TOKEN) as standin:
        yield standin


def post_body(commentary="A post", content=None, author=AUTHOR):
    body = {
        "author": author,
        "commentary": commentary,
        "visibility": "PUBLIC",
        "distribution": {
            "feedDistribution": "MAIN_FEED",
            "targetEntities": [],
            "thirdPartyDistributionChannels": [],
        },
        "lifecycleState": "PUBLISHED",
        "isReshareDisabledByAuthor": False,
    }
    if content is not None:
        body["content"] = content
    return body


def initialize(client, kind="images", owner=AUTHOR, headers=HEADERS):
    return client.post(
        f"/rest/{kind}?action=initializeUpload",
        {"initializeUploadRequest": {"owner": owner}},
        headers=headers,
    )


def put(client, upload_url, data, token=TOKEN):
    return client.request(
        "PUT",
        urlsplit(upload_url).path,
        data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
    )


def upload(client, kind="images", data=PNG, owner=AUTHOR):
    """The two steps of an upload; the URN."""
    r = initialize(client, kind, owner)
    assert r.status == 200, r
    value = r.json["value"]
    assert put(client, value["uploadUrl"], data).status == 201
    return value["image" if kind == "images" else "document"]


def create(client, body):
    return client.post("/rest/posts", body, headers=HEADERS)


def assert_refused(r, status, message):
    assert r.status == status, r
    assert r.json["status"] == status and message in r.json["message"], r.json
    assert "x-restli-id" not in r.headers


def test_an_image_is_initialized_put_and_posted_with_its_alt_text(linkedin):
    with Client(linkedin.url) as client:
        r = initialize(client)
        assert r.status == 200, r
        value = r.json["value"]
        assert value["image"].startswith("urn:li:image:")
        assert value["uploadUrl"].startswith(linkedin.url + "/upload/")
        assert value["uploadUrlExpiresAt"] > time.time() * 1000
        assert put(client, value["uploadUrl"], PNG).status == 201
        content = {"media": {"id": value["image"], "altText": "A chart going up"}}
        r = create(client, post_body(content=content))
    assert r.status == 201, r
    assert r.headers["x-restli-id"].startswith("urn:li:share:")
    assert linkedin.created[-1].body["content"] == content
    assert linkedin.uploads[value["image"]].data == PNG


def test_three_images_make_a_multi_image_post(linkedin):
    with Client(linkedin.url) as client:
        images = [upload(client, data=data) for data in (PNG, JPEG, PNG)]
        content = {
            "multiImage": {
                "images": [
                    {"id": images[0], "altText": "first"},
                    {"id": images[1]},
                    {"id": images[2]},
                ]
            }
        }
        r = create(client, post_body(content=content))
    assert r.status == 201, r
    assert len(set(images)) == 3


def test_a_pdf_is_a_document_post_with_its_title(linkedin):
    with Client(linkedin.url) as client:
        r = initialize(client, "documents")
        assert r.status == 200
        document = r.json["value"]["document"]
        assert document.startswith("urn:li:document:")
        assert put(client, r.json["value"]["uploadUrl"], PDF).status == 201
        r = create(client, post_body(content={"media": {"id": document, "title": "Q3 report"}}))
    assert r.status == 201, r


# What LinkedIn refuses in a post's content: (name, the content from the URNs
# made by `prepared`, status, message).
BAD_CONTENT = [
    (
        "never issued",
        lambda u: {"media": {"id": "urn:li:image:D4E10AQnever"}},
        422,
        "urn:li:image:D4E10AQnever was never issued by initializeUpload",
    ),
    (
        "another owner's upload",
        lambda u: {"media": {"id": u["other"]}},
        403,
        f"was uploaded for {OTHER}, not for the author {AUTHOR}",
    ),
    ("bytes never PUT", lambda u: {"media": {"id": u["waiting"]}}, 422, "WAITING_UPLOAD"),
    (
        "not an image",
        lambda u: {"media": {"id": u["text"]}},
        422,
        "PROCESSING_FAILED: its bytes are not a JPEG, PNG or GIF image",
    ),
    (
        "a PDF uploaded as an image",
        lambda u: {"media": {"id": u["pdf_as_image"]}},
        422,
        "PROCESSING_FAILED",
    ),
    (
        "a document without a title",
        lambda u: {"media": {"id": u["document"]}},
        422,
        "/content/media/title",
    ),
    (
        "one image as multiImage",
        lambda u: {"multiImage": {"images": [{"id": u["image"]}]}},
        422,
        "1 images; a multi-image post has 2 to 20",
    ),
    (
        "21 images",
        lambda u: {"multiImage": {"images": [{"id": u["image"]}] * 21}},
        422,
        "21 images",
    ),
    (
        "a document in multiImage",
        lambda u: {"multiImage": {"images": [{"id": u["image"]}, {"id": u["document"]}]}},
        422,
        "/content/multiImage/images/1/id",
    ),
    (
        "alt text over 4,086 characters",
        lambda u: {"media": {"id": u["image"], "altText": "x" * 4087}},
        422,
        "at most 4086 characters",
    ),
    (
        "an unknown media field",
        lambda u: {"media": {"id": u["image"], "caption": "x"}},
        422,
        "only id, altText and title",
    ),
    (
        "an unresolved plan reference",
        lambda u: {"media": {"id": "{{upload_0}}"}},
        422,
        "is not an image or document URN",
    ),
]


@pytest.mark.parametrize(
    "name, content, status, message", BAD_CONTENT, ids=[b[0] for b in BAD_CONTENT]
)
def test_a_post_naming_what_linkedin_would_not_take_is_refused(
    linkedin, name, content, status, message
):
    with Client(linkedin.url) as client:
        prepared = {
            "image": upload(client),
            "other": upload(client, owner=OTHER),
            "text": upload(client, data=b"not an image at all"),
            "pdf_as_image": upload(client, data=PDF),
            "document": upload(client, "documents", PDF),
        }
        r = initialize(client)
        prepared["waiting"] = r.json["value"]["image"]
        before = len(linkedin.created)
        r = create(client, post_body(content=content(prepared)))
    assert_refused(r, status, message)
    if status == 403:
        assert r.json["serviceErrorCode"] == 100
    assert len(linkedin.created) == before


BAD_UPLOADS = [
    # (name, the request, status, message)
    (
        "no owner",
        lambda c, url: c.post(
            "/rest/images?action=initializeUpload", {"initializeUploadRequest": {}}, headers=HEADERS
        ),
        422,
        "/initializeUploadRequest/owner",
    ),
    (
        "a company page that is not a URN",
        lambda c, url: initialize(c, owner="acme"),
        422,
        "/initializeUploadRequest/owner",
    ),
    (
        "no LinkedIn-Version",
        lambda c, url: initialize(c, headers={**HEADERS, "LinkedIn-Version": ""}),
        400,
        "LinkedIn-Version",
    ),
    (
        "a wrong token",
        lambda c, url: initialize(c, headers={**HEADERS, "Authorization": "Bearer no"}),
        401,
        "Invalid access token",
    ),
    (
        "another action",
        lambda c, url: c.post(
            "/rest/images?action=registerUpload",
            {"initializeUploadRequest": {"owner": AUTHOR}},
            headers=HEADERS,
        ),
        400,
        "Unknown action",
    ),
    ("a PUT without the token", lambda c, url: put(c, url, PNG, token="no"), 401, "Invalid access"),
    ("a PUT of nothing", lambda c, url: put(c, url, b""), 400, "no bytes"),
    (
        "a PUT to an URL never given",
        lambda c, url: put(c, url + "x", PNG),
        404,
        "No upload at this URL",
    ),
]


@pytest.mark.parametrize(
    "name, send, status, message", BAD_UPLOADS, ids=[b[0] for b in BAD_UPLOADS]
)
def test_an_upload_linkedin_would_not_take_is_refused(linkedin, name, send, status, message):
    with Client(linkedin.url) as client:
        r = initialize(client)
        url, urn = r.json["value"]["uploadUrl"], r.json["value"]["image"]
        assert_refused(send(client, url), status, message)
    assert linkedin.uploads[urn].data is None


def test_uploads_for_an_owner_can_be_refused(linkedin):
    linkedin.refuse_uploads_for(OTHER, 403, "Not enough permissions to access: the page")
    with Client(linkedin.url) as client:
        assert_refused(initialize(client, owner=OTHER), 403, "Not enough permissions")
        assert initialize(client).status == 200


def comment(client, post_urn, text="Link in the first comment: https://x.example/a_b", **changes):
    body = {"actor": AUTHOR, "object": post_urn, "message": {"text": text}, **changes}
    path = f"/rest/socialActions/{quote(post_urn, safe='')}/comments"
    return client.post(path, body, headers=HEADERS)


def test_a_first_comment_goes_on_a_post_it_made(linkedin):
    linkedin.fail_comment_on("REFUSE-COMMENT", 403, "Comments are off for this post")
    with Client(linkedin.url) as client:
        urn = create(client, post_body()).headers["x-restli-id"]
        r = comment(client, urn)
        assert r.status == 201, r
        assert r.json["commentUrn"] == f"urn:li:comment:({urn},{r.json['id']})"
        assert r.json["message"]["text"].startswith("Link in the first comment")
        assert linkedin.comments == [(urn, r.json["commentUrn"], linkedin.comments[0][2])]
        refusals = [
            (comment(client, "urn:li:share:1"), 404, "Post urn:li:share:1 not found"),
            (comment(client, urn, object="urn:li:share:1"), 422, "is not the post of the path"),
            (comment(client, urn, text="Hello (world)"), 422, "reserved character '('"),
            (comment(client, urn, text=""), 422, "/message/text is required"),
            (comment(client, urn, text="x" * 1251), 422, "over 1250 characters"),
            (comment(client, urn, actor="me"), 422, "/actor"),
            (comment(client, urn, text="REFUSE-COMMENT"), 403, "Comments are off"),
            (
                client.post(f"/rest/socialActions/{urn}/comments", {}, headers=HEADERS),
                400,
                "percent-encoded",
            ),
        ]
    for r, status, message in refusals:
        assert_refused(r, status, message)
    assert len(linkedin.comments) == 1


def test_a_429_carries_retry_after_and_creates_nothing(linkedin):
    linkedin.rate_limit_on("RATE-LIMIT", retry_after=7, times=1)
    with Client(linkedin.url) as client:
        first = create(client, post_body("Busy RATE-LIMIT"))
        second = create(client, post_body("Busy RATE-LIMIT"))
    assert_refused(first, 429, "throttle")
    assert first.headers["retry-after"] == "7"
    assert second.status == 201
    assert [r.status for r in linkedin.posts_with("RATE-LIMIT")] == [429, 201]
    assert len(linkedin.created) == 1


def test_a_delayed_post_is_created_before_it_is_answered(linkedin):
    linkedin.delay_on("SLOW", 1.5)
    with Client(linkedin.url) as client:
        r = create(client, post_body("SLOW post"))
    assert r.status == 201 and r.ms >= 1500
    [made] = linkedin.created
    assert made.urn == r.headers["x-restli-id"]


def test_a_held_post_is_created_and_answered_only_when_released(linkedin):
    hold = linkedin.hold_on("HOLD")
    answers = []
    with Client(linkedin.url, timeout=30) as client:
        sender = threading.Thread(target=lambda: answers.append(create(client, post_body("HOLD"))))
        sender.start()
        assert hold.holding.wait(10)
        assert len(linkedin.created) == 1 and answers == []
        hold.release()
        sender.join(10)
    assert answers[0].status == 201
    assert answers[0].headers["x-restli-id"] == linkedin.created[0].urn


def test_a_dropped_post_gets_no_answer(linkedin):
    linkedin.drop_on("DROP")
    with Client(linkedin.url) as client:
        r = create(client, post_body("DROP this"))
    assert r.status is None and r.error
    assert linkedin.created == []


# --- what a post did -------------------------------------------------------------------------

STATISTICS = "/rest/organizationalEntityShareStatistics?q=organizationalEntity"


def share_statistics(client, page, urn, kind="shares", headers=HEADERS):
    return client.get(
        f"{STATISTICS}&organizationalEntity={quote(page, safe='')}"
        f"&{kind}=List({quote(urn, safe='')})",
        headers=headers,
    )


def test_a_pages_post_has_the_figures_a_test_set(linkedin):
    with Client(linkedin.url) as client:
        urn = create(client, post_body(author=OTHER)).headers["x-restli-id"]
        linkedin.set_figures(urn, impressions=200, members_reached=150, reactions=9, clicks=11)
        r = share_statistics(client, OTHER, urn)
        assert r.status == 200, r
        [element] = r.json["elements"]
        assert element["share"] == urn and element["organizationalEntity"] == OTHER
        assert element["totalShareStatistics"] == {
            "impressionCount": 200,
            "uniqueImpressionsCount": 150,
            "likeCount": 9,
            "commentCount": 0,
            "shareCount": 0,
            "clickCount": 11,
            "engagement": 0.1,
        }
        # Another page's statistics hold none of this page's posts.
        assert share_statistics(client, "urn:li:organization:7", urn).json["elements"] == []


def test_a_members_post_has_its_likes_and_comments(linkedin):
    with Client(linkedin.url) as client:
        urn = create(client, post_body()).headers["x-restli-id"]
        linkedin.set_figures(urn, reactions=4, comments=2)
        r = client.get(f"/rest/socialActions/{quote(urn, safe='')}", headers=HEADERS)
        assert r.status == 200, r
        assert r.json["target"] == urn
        assert r.json["likesSummary"]["totalLikes"] == 4
        assert r.json["commentsSummary"]["aggregatedTotalComments"] == 2
        r = client.get(f"/rest/socialActions/{quote('urn:li:share:1', safe='')}", headers=HEADERS)
        assert r.status == 404, r


def test_statistics_refuse_what_linkedin_refuses(linkedin):
    with Client(linkedin.url) as client:
        urn = create(client, post_body(author=OTHER)).headers["x-restli-id"]
        raw = f"{STATISTICS}&organizationalEntity={quote(OTHER, safe='')}&shares=List({urn})"
        assert client.get(raw, headers=HEADERS).status == 400  # URNs must be encoded
        assert client.get(f"/rest/socialActions/{urn}", headers=HEADERS).status == 400
        no_version = {k: v for k, v in HEADERS.items() if k != "LinkedIn-Version"}
        assert share_statistics(client, OTHER, urn, headers=no_version).status == 400
        wrong = {**HEADERS, "Authorization": "Bearer not-a-token"}
        assert share_statistics(client, OTHER, urn, headers=wrong).status == 401


def test_a_statistics_call_can_be_made_to_fail(linkedin):
    with Client(linkedin.url) as client:
        urn = create(client, post_body(author=OTHER)).headers["x-restli-id"]
        linkedin.fail_statistics_for(urn, 503, "Service Unavailable", times=1)
        r = share_statistics(client, OTHER, urn)
        assert r.status == 503 and r.json["message"] == "Service Unavailable", r
        assert share_statistics(client, OTHER, urn).status == 200
        assert [c.status for c in linkedin.statistics_calls(urn)] == [503, 200]
