"""The LinkedIn-ready request: its escaping (a table of cases), on every
claimed post and in post.due events, and the preview with its warnings.
Last, the LinkedIn stand-in of `make test-n8n` (harness/linkedin_standin.py):
it takes what the escaper makes of every case of the table, and refuses what
LinkedIn would cut off or refuse."""

import json

import pytest

from content_publishing.linkedin import escape
from harness import Client, Receiver
from harness.clock import ahead
from harness.linkedin_standin import LinkedInStandIn
from harness.linkedin_standin import unescaped_reserved as standin_finds
from tests.conftest import assert_error

V1 = "/functions/v1"
POSTS = f"{V1}/api-v2-posts"
CLAIM = f"{V1}/api-v2-posts-claim"
PREVIEW = f"{V1}/api-v2-posts-preview"

ESCAPES = [
    # (content, commentary): each reserved character, each exception
    ("plain text", "plain text"),
    ("a\\b", "a\\\\b"),
    ("a|b", "a\\|b"),
    ("{x}", "\\{x\\}"),
    ("mail me @ home", "mail me \\@ home"),
    ("[x]", "\\[x\\]"),
    ("Hello (world)", "Hello \\(world\\)"),
    ("<b>", "\\<b\\>"),
    ("x#y", "x\\#y"),
    ("*bold*", "\\*bold\\*"),
    ("snake_case", "snake\\_case"),
    ("~strike~", "\\~strike\\~"),
    ("all \\|{}@[]()<>#*_~", "all \\\\\\|\\{\\}\\@\\[\\]\\(\\)\\<\\>\\#\\*\\_\\~"),
    # mentions pass through, reserved characters in the name escaped
    ("Hi @[Ann Lee](urn:li:person:abc123)!", "Hi @[Ann Lee](urn:li:person:abc123)!"),
    ("@[Ann_B (PM)](urn:li:person:a_b-1)", "@[Ann\\_B \\(PM\\)](urn:li:person:a_b-1)"),
    ("@[Acme](urn:li:organization:2414183)", "@[Acme](urn:li:organization:2414183)"),
    ("@[Acme](urn:li:company:1)", "\\@\\[Acme\\]\\(urn:li:company:1\\)"),  # not a mention
    # not a mention: the URL ends before the ")" that closes nothing
    ("@[Ann](https://x.example)", "\\@\\[Ann\\]\\(https://x.example\\)"),
    # hashtags: # at the start or after white space, before a letter or digit
    ("#launch", "#launch"),
    ("We #launch today", "We #launch today"),
    ("#2026 plans", "#2026 plans"),
    ("#launch_day", "#launch\\_day"),
    ("#launch!", "#launch!"),
    ("line\n#tag", "line\n#tag"),
    ("# heading", "\\# heading"),
    ("#_x", "\\#\\_x"),
    ("a#b", "a\\#b"),
    ("#über", "#über"),
    # URLs are left intact (tests/test_linkedin_escaping.py has where one ends)
    ("see https://example.com/a_(b) now", "see https://example.com/a_(b) now"),
    ("http://x.example/?q=a*b#frag", "http://x.example/?q=a*b#frag"),
    ("(https://x.example/a_b)", "\\(https://x.example/a_b\\)"),
    ("HTTPS://X.EXAMPLE/a_b", "HTTPS://X.EXAMPLE/a_b"),
    ("ftp://x.example/a_b", "ftp://x.example/a\\_b"),
    # text already escaped is escaped again; emoji and other text untouched
    ("\\(", "\\\\\\("),
    ("Émoji 🚀 — “quotes” *é*", "Émoji 🚀 — “quotes” \\*é\\*"),
    ("", ""),
]


@pytest.mark.parametrize("content, commentary", ESCAPES)
def test_escaping(content, commentary):
    assert escape(content) == commentary


TRICKY = "Launch (finally) with @[Ann_B](urn:li:person:a1) #launch_day: https://x.example/a_(b) ~~"


@pytest.fixture
def due(app, api):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400

    def make(**fields):
        body = {
            "type": "personal",
            "content": TRICKY,
            "scheduled_at": ahead(-60),
            **fields,
        }
        post = api.post(POSTS, json=body).get_json()
        assert (
            api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Scheduled"}).status_code == 200
        )
        return post

    return make


def test_every_claimed_post_carries_its_linkedin_request(api, app, due):
    app.config["LINKEDIN_VERSION"] = "202609"
    api.post(
        f"{V1}/channels",
        json={
            "type": "brand",
            "brand_id": "acme",
            "name": "Acme",
            "author_urn": "urn:li:organization:77",
        },
    )
    personal = due()
    brand = due(type="brand", brand_id="acme", media_urls=["https://cdn.example.com/a.png"])
    claimed = {p["id"]: p for p in api.post(CLAIM, json={}).get_json()["data"]}
    mine = claimed[personal["id"]]["linkedin_request"]
    assert mine["method"] == "POST" and mine["url"] == "https://api.linkedin.com/rest/posts"
    assert mine["headers"] == {
        "LinkedIn-Version": "202609",
        "X-Restli-Protocol-Version": "2.0.0",
        "Content-Type": "application/json",
    }
    # the personal channel is not set up: no author
    assert mine["body"] == post_body(escape(TRICKY), author=None)
    assert mine["media"] == []
    theirs = claimed[brand["id"]]["linkedin_request"]
    assert theirs["body"]["author"] == "urn:li:organization:77"
    assert theirs["media"] == ["https://cdn.example.com/a.png"]


def test_the_api_base_is_a_setting(api, app, due):
    app.config["LINKEDIN_API_BASE"] = "http://127.0.0.1:9999/"
    due()
    (claimed,) = api.post(CLAIM, json={}).get_json()["data"]
    assert claimed["linkedin_request"]["url"] == "http://127.0.0.1:9999/rest/posts"


def test_a_post_due_event_carries_the_request_and_the_lease(api, app, runner, due):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    app.config["HANDOFF_LEASE_SECONDS"] = 321
    with Receiver() as receiver:
        hook = api.post(
            f"{V1}/webhooks", json={"url": receiver.url, "events": ["post.due"]}
        ).get_json()
        receiver.secrets.append(hook["secret"])
        post = due()
        result = runner.invoke(args=["dispatch", "--seconds", "1"])
        assert result.exit_code == 0, result.output
        receiver.wait_for(lambda arrivals: arrivals, what="the post.due delivery")
        (arrival,) = receiver.arrivals
    data = arrival.json["data"]
    assert list(data) == ["post", "handoff_id", "callback_url", "lease_seconds", "linkedin_request"]
    assert data["post"]["id"] == post["id"] and data["lease_seconds"] == 321
    assert data["linkedin_request"]["body"]["commentary"] == escape(TRICKY)


def test_the_lease_setting_is_what_a_pushed_post_gets_once_acknowledged(app):
    assert app.config["HANDOFF_LEASE_SECONDS"] == 600  # documented default


# --- the preview -------------------------------------------------------------------


def test_preview_of_the_fields_of_a_create_stores_nothing(api):
    r = api.post(PREVIEW, json={"type": "personal", "content": "Hello (world)"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["characters"] == 13
    assert body["linkedin_request"]["body"]["commentary"] == "Hello \\(world\\)"
    assert [w["code"] for w in body["warnings"]] == ["author_unknown"]
    assert api.get(POSTS).get_json()["total"] == 0


def test_preview_of_a_stored_post_and_every_warning(api):
    api.post(
        f"{V1}/channels", json={"type": "personal", "name": "Me", "author_urn": "urn:li:person:me1"}
    )
    quiet = api.post(POSTS, json={"type": "personal", "content": "fine"}).get_json()
    assert api.post(PREVIEW, json={"post_id": quiet["id"]}).get_json()["warnings"] == []
    loud = api.post(
        POSTS,
        json={
            "type": "personal",
            "content": "(" * 1600 + " https://x.example",
            "media_urls": ["https://cdn.example.com/a.png"],
        },
    ).get_json()
    body = api.post(PREVIEW, json={"post_id": loud["id"]}).get_json()
    assert body["linkedin_request"]["body"]["author"] == "urn:li:person:me1"
    assert [w["code"] for w in body["warnings"]] == [
        "over_length",
        "link_preview_hidden",
        "alt_text_missing",
    ]
    assert all(w["message"] for w in body["warnings"])
    assert (
        body["characters"] == 1618 and len(body["linkedin_request"]["body"]["commentary"]) == 3218
    )


BAD_PREVIEWS = [
    ({}, "type"),
    ({"type": "personal"}, "content"),
    ({"type": "brand", "content": "x"}, "brand_id"),
    ({"post_id": "nope"}, "post_id"),
    ({"post_id": "00000000-0000-4000-8000-000000000000", "content": "x"}, "content"),
    ({"type": "personal", "content": "x", "status": "Draft"}, "status"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_PREVIEWS)
def test_bad_previews(api, body, field):
    assert field in assert_error(api.post(PREVIEW, json=body), 400, "validation_error")["details"]


def test_another_users_post_is_not_previewed(api, caller):
    theirs = caller("bob").post(POSTS, json={"type": "personal", "content": "secret"}).get_json()
    assert_error(api.post(PREVIEW, json={"post_id": theirs["id"]}), 404, "not_found")
    reader = caller("rita", scopes=["posts:read"])
    assert api.post(PREVIEW, json={"type": "personal", "content": "x"}).status_code == 200
    assert reader.post(PREVIEW, json={"type": "personal", "content": "x"}).status_code == 200
    writer = caller("walt", scopes=["posts:write"])
    assert_error(
        writer.post(PREVIEW, json={"type": "personal", "content": "x"}), 403, "insufficient_scope"
    )


def test_messages_name_the_fields(api):
    error = assert_error(
        api.post(POSTS, json={"type": "company", "content": ""}), 400, "validation_error"
    )
    assert error["message"].startswith("type: Must be one of") or error["message"].startswith(
        "content:"
    )
    assert "content: Length must be between 1 and 3000." in error["message"]
    assert "type: Must be one of: personal, brand." in error["message"]
    assert json.dumps(error["details"])  # details stay as they were


# ------------------------------------------------ the stand-in of make test-n8n

STANDIN_TOKEN = "stand-in-token"
STANDIN_HEADERS = {
    "Authorization": f"Bearer {STANDIN_TOKEN}",
    "LinkedIn-Version": "202610",
    "X-Restli-Protocol-Version": "2.0.0",
}


def post_body(commentary, **changes):
    return {
        "author": "urn:li:person:abc",
        "commentary": commentary,
        "visibility": "PUBLIC",
        "distribution": {
            "feedDistribution": "MAIN_FEED",
            "targetEntities": [],
            "thirdPartyDistributionChannels": [],
        },
        "lifecycleState": "PUBLISHED",
        "isReshareDisabledByAuthor": False,
        **changes,
    }


@pytest.mark.parametrize("content, commentary", ESCAPES)
def test_what_the_service_escapes_passes(content, commentary):
    assert standin_finds(escape(content)) is None


@pytest.mark.parametrize(
    "text, found",
    [
        ("Hello (world)", (6, "(")),
        ("snake_case", (5, "_")),
        ("a\\b", (1, "\\")),
        ("x#y", (1, "#")),
        ("@[Ann_B](urn:li:person:a1)", (5, "_")),
        ("@[Acme](urn:li:company:1)", (0, "@")),
        ("#_x", (0, "#")),
        ("~", (0, "~")),
    ],
)
def test_an_unescaped_reserved_character_is_found(text, found):
    assert standin_finds(text) == found


@pytest.fixture(scope="module")
def standin():
    with LinkedInStandIn(STANDIN_TOKEN) as standin:
        standin.fail_on("FAIL-ME", 422, "The stand-in refuses this post")
        yield standin


def test_a_good_post_is_created_with_its_urn(standin):
    commentary = escape("Launch (finally) @[Ann_B](urn:li:person:a1) #launch https://x.example/a_b")
    with Client(standin.url) as client:
        r = client.post("/rest/posts", post_body(commentary), headers=STANDIN_HEADERS)
    assert r.status == 201 and r.body == b"", r
    assert r.headers["x-restli-id"].startswith("urn:li:share:")
    assert standin.created[-1].commentary == commentary
    assert standin.created[-1].urn == r.headers["x-restli-id"]


@pytest.mark.parametrize(
    "payload, headers, status, message",
    [
        (post_body("Hello (world)"), {}, 422, "reserved character '('"),
        (post_body("fine", extra=1), {}, 422, "Unpermitted fields present in REQUEST_BODY: extra"),
        (post_body("fine", author=None), {}, 422, "/author"),
        (post_body("fine"), {"Authorization": "Bearer wrong"}, 401, "Invalid access token"),
        (post_body("fine"), {"LinkedIn-Version": "2026-10"}, 400, "LinkedIn-Version"),
        (post_body("fine"), {"X-Restli-Protocol-Version": "1.0.0"}, 400, "2.0.0"),
        (post_body("FAIL-ME please"), {}, 422, "The stand-in refuses this post"),
    ],
)
def test_what_linkedin_refuses_is_refused(standin, payload, headers, status, message):
    with Client(standin.url) as client:
        r = client.post("/rest/posts", payload, headers={**STANDIN_HEADERS, **headers})
    assert r.status == status, r
    assert message in r.json["message"] and r.json["status"] == status
    assert "x-restli-id" not in r.headers
    assert standin.received[-1].status == status
