"""The LinkedIn stand-in of `make test-n8n` (harness/linkedin_standin.py):
it takes what the service's escaper makes of every case of the table, and
refuses what LinkedIn would cut off or refuse."""

import pytest

from content_publishing.linkedin import escape
from harness import Client
from harness.linkedin_standin import LinkedInStandIn, unescaped_reserved
from tests.test_linkedin import ESCAPES

TOKEN = "stand-in-token"
HEADERS = {
    "Authorization": f"Bearer {TOKEN}",
    "LinkedIn-Version": "202610",
    "X-Restli-Protocol-Version": "2.0.0",
}


def body(commentary, **changes):
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
    assert unescaped_reserved(escape(content)) is None


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
    assert unescaped_reserved(text) == found


@pytest.fixture(scope="module")
def linkedin():
    with LinkedInStandIn(TOKEN) as standin:
        standin.fail_on("FAIL-ME", 422, "The stand-in refuses this post")
        yield standin


def test_a_good_post_is_created_with_its_urn(linkedin):
    commentary = escape("Launch (finally) @[Ann_B](urn:li:person:a1) #launch https://x.example/a_b")
    with Client(linkedin.url) as client:
        r = client.post("/rest/posts", body(commentary), headers=HEADERS)
    assert r.status == 201 and r.body == b"", r
    assert r.headers["x-restli-id"].startswith("urn:li:share:")
    assert linkedin.created[-1].commentary == commentary
    assert linkedin.created[-1].urn == r.headers["x-restli-id"]


@pytest.mark.parametrize(
    "payload, headers, status, message",
    [
        (body("Hello (world)"), {}, 422, "reserved character '('"),
        (body("fine", extra=1), {}, 422, "Unpermitted fields present in REQUEST_BODY: extra"),
        (body("fine", author=None), {}, 422, "/author"),
        (body("fine"), {"Authorization": "Bearer wrong"}, 401, "Invalid access token"),
        (body("fine"), {"LinkedIn-Version": "2026-10"}, 400, "LinkedIn-Version"),
        (body("fine"), {"X-Restli-Protocol-Version": "1.0.0"}, 400, "2.0.0"),
        (body("FAIL-ME please"), {}, 422, "The stand-in refuses this post"),
    ],
)
def test_what_linkedin_refuses_is_refused(linkedin, payload, headers, status, message):
    with Client(linkedin.url) as client:
        r = client.post("/rest/posts", payload, headers={**HEADERS, **headers})
    assert r.status == status, r
    assert message in r.json["message"] and r.json["status"] == status
    assert "x-restli-id" not in r.headers
    assert linkedin.received[-1].status == status
