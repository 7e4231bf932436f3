"""Real-world input: URLs, timestamps, text, query strings, nesting and retries.

Each table holds what users and attackers actually send, beside the tidy
examples: the network's own media hosts, IDNs, odd offsets, invisible text.
"""

import io
import json
import re

import pytest
from PIL import Image

from harness.api import ARTICLE, ARTICLES, CALLBACK, ITEM, POSTS
from tests.conftest import assert_error

WEBHOOKS = "/functions/v1/webhooks"
WEBHOOK_ITEM = "/functions/v1/webhooks-item/"


def create(api, **fields):
    r = api.post(POSTS, json={"type": "personal", "content": "Hello", **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


# --- URLs --------------------------------------------------------------------

MUST_ACCEPT_URLS = [
    "https://media-exp1.licdn.com/dms/image/abc.jpg",
    "https://my-bucket.s3.eu-west-1.amazonaws.com/a.png",
    "https://www.acme-corp.com/news/launch",
    "http://127.0.0.1:9000/x.png",
    "https://[2001:db8::1]/x.png",
    "https://[::1]:8443/x.png",
    "https://cdn.example.com:65535/x.png",
    "HTTPS://example.com/x.png",
    "Http://Example.COM/X.png",
    "https://example.com./x.png",
    "https://bücher.example/x.png",
    "https://xn--bcher-kva.example/x.png",
    "https://例え.テスト/画像.png",
    "https://localhost/a",
    "http://intranet/a.png",
    "https://example.com",
    "https://example.com?x=1",
    "https://example.com/a%20b.png?q=%E2%9C%93&x=1#frag",
    "https://example.com/path/with/(parens)/and,commas;semi=1",
    "https://x.example/" + "a" * 1900,
    "https://www.linkedin.com/feed/update/urn:li:share:7012345678901234567",
    "https://example.com/✓.png",
    "https://sub_domain.example.com/a.png",
]

MUST_REFUSE_URLS = [
    ("https://user:pass@example.com/x.png", "user name or password"),
    ("https://user@example.com/x.png", "user name or password"),
    ("https://@example.com/x.png", "user name or password"),
    ("ftp://example.com/x.png", "http or https"),
    ("javascript:alert(1)", "http or https"),
    ("data:image/png;base64,AAAA", "http or https"),
    ("//example.com/x.png", "http or https"),
    ("/relative.png", "http or https"),
    ("https:example.com/x.png", "http or https"),
    ("https:///example.com/x.png", "host"),
    ("https://", "host"),
    ("https://example.com:65536/x.png", "Not a valid URL"),
    ("https://example.com:99999/x.png", "Not a valid URL"),
    ("https://exa mple.com/x.png", "white space"),
    ("https://example.com/a b.png", "white space"),
    (" https://example.com/x.png", "http or https"),
    ("https://example.com/x.png ", "white space"),
    ("https://example.com/x.png\n", "white space"),
    ("https://example.com/\x00.png", "control"),
    ("https://example.com\\x.png", "backslash"),
    ("https://[2001:db8::zz]/x.png", "Not a valid URL"),
    ("https://256.256.256.256/x.png", "Not a valid URL"),
    ("https://exa<mple.com/x.png", "Not a valid URL"),
    ("https://x.example/" + "a" * 2100, "Longer than"),
    ("not a url", "http or https"),
]


@pytest.mark.parametrize("url", MUST_ACCEPT_URLS)
def test_real_urls_are_accepted_and_stored_as_sent(api, url):
    post = create(api, media_urls=[url])
    assert post["media_urls"] == [url]
    article = api.post(ARTICLES, json={"title": "t", "cover_image_url": url}).get_json()
    assert article["cover_image_url"] == url


@pytest.mark.backend_independent
@pytest.mark.parametrize("url, reason", MUST_REFUSE_URLS)
def test_bad_urls_are_refused_saying_why(api, url, reason):
    err = assert_error(
        api.post(POSTS, json={"type": "personal", "content": "x", "media_urls": [url]}),
        400,
        "validation_error",
    )
    assert reason in " ".join(err["details"]["media_urls.0"]), err
    assert api.get(POSTS).get_json()["total"] == 0


def test_callback_accepts_a_hyphenated_live_url(app, api):
    """The post no longer stays stuck in Scheduled for a live_url on a hyphenated host."""
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 0
    post = create(api, scheduled_at="2099-01-01T00:00:00Z")
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    r = api.post(
        CALLBACK,
        json={
            "post_id": post["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://www.acme-corp.com/news/launch",
        },
    )
    assert r.status_code == 200 and r.get_json()["status"] == "Published"


def test_a_refused_live_url_changes_nothing(make_key, app, api):
    post = create(api, scheduled_at="2099-01-01T00:00:00Z")
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    before = api.get(ITEM + post["id"]).get_json()
    r = api.post(
        CALLBACK,
        json={
            "post_id": post["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://me:secret@www.example.com/p",
        },
    )
    assert "live_url" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(ITEM + post["id"]).get_json() == before


# --- timestamps ---------------------------------------------------------------

GOOD_TIMESTAMPS = [
    ("2030-06-01T12:00:00Z", "2030-06-01T12:00:00.000000Z"),
    ("2030-06-01t12:00:00z", "2030-06-01T12:00:00.000000Z"),
    ("2030-06-01T12:00:00+05:30", "2030-06-01T06:30:00.000000Z"),
    ("2030-06-01T12:00:00-00:00", "2030-06-01T12:00:00.000000Z"),
    ("2030-06-01T12:00:00.5Z", "2030-06-01T12:00:00.500000Z"),
    ("2030-06-01T12:00:00.123456789Z", "2030-06-01T12:00:00.123456Z"),
    ("2030-12-31T23:30:00-01:00", "2031-01-01T00:30:00.000000Z"),
    ("2032-02-29T00:00:00Z", "2032-02-29T00:00:00.000000Z"),
]

BAD_TIMESTAMPS = [
    "2030-06-01 12:00:00Z",
    "20300601T120000Z",
    "2030-W22-1T12:00:00Z",
    "2030-06-01T12:00Z",
    "2030-06-01T12:00:00+05:30:15",
    "2030-06-01T12:00:00Z\x00",
    "2030-06-01T12:00:00." + "1" * 500_000 + "Z",
    "2030-06-01T12:00:00.1234567890Z",
    "2030-06-01T12:00:00",
    "2030-06-01",
    "2030-06-01T12:00:00+0530",
    "2030-06-01T12:00:00+24:00",
    "2030-06-01T12:00:00+05:60",
    "2030-06-01T12:00:60Z",
    "2030-06-01T24:00:00Z",
    "2030-02-30T12:00:00Z",
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00",
    "2030-06-01T12:00:00.Z",
    "2030-06-01T12:00:00,5Z",
    "２０３０-06-01T12:00:00Z",
    " 2030-06-01T12:00:00Z",
    "2030-06-01T12:00:00Z ",
    "2030-06-01T12:00:00Z\n",
    "tomorrow",
    "",
]


@pytest.mark.parametrize("text, stored", GOOD_TIMESTAMPS)
def test_rfc3339_timestamps_are_accepted(api, text, stored):
    assert create(api, scheduled_at=text)["scheduled_at"] == stored


@pytest.mark.backend_independent
@pytest.mark.parametrize("text", BAD_TIMESTAMPS)
def test_other_timestamp_forms_are_refused(app, api, text):
    app.config["MAX_CONTENT_LENGTH"] = 2 * 1024 * 1024
    r = api.post(POSTS, json={"type": "personal", "content": "x", "scheduled_at": text})
    err = assert_error(r, 400, "validation_error")
    assert "timestamp" in err["details"]["scheduled_at"][0]
    assert len(json.dumps(err)) < 1000  # the bad value is not echoed back
    assert api.get(POSTS).get_json()["total"] == 0


@pytest.mark.parametrize("text", ["2030-06-01 12:00:00Z", "2030-06-01T12:00Z"])
def test_query_timestamps_are_rfc3339_too(api, text):
    r = api.get(POSTS, query_string={"scheduled_before": text})
    assert "scheduled_before" in assert_error(r, 400, "validation_error")["details"]


# --- text ---------------------------------------------------------------------

CONTROL = ["\x00", "\x01", "\x07", "\x1b[31m", "\x7f", "\x85", "\x9b", "\x0b", "\x0c"]
INVISIBLE = [
    "\u200b",
    "\u200b\u200c\u200d",
    "\u2060\ufeff",
    "\u00ad",
    "\u3164",
    "\u2800",
    "\u180e",
    "\ufe0f",
    "\U000e0041\U000e0042",
    " \u200b\n\t",
    "\u00a0\u2003",
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("char", CONTROL)
@pytest.mark.parametrize("field", ["content", "brand_id"])
def test_control_characters_are_refused(api, char, field):
    body = {"type": "brand", "brand_id": "acme", "content": "ok", field: f"a{char}b"}
    err = assert_error(api.post(POSTS, json=body), 400, "validation_error")
    assert "control characters" in err["details"][field][0]
    assert api.get(POSTS).get_json()["total"] == 0


@pytest.mark.parametrize(
    "path, body, field",
    [
        (ARTICLES, {"title": "a\x00b"}, "title"),
        (ARTICLES, {"title": "t", "body": "a\x00b"}, "body"),
        (ARTICLES, {"title": "t", "excerpt": "a\x1bb"}, "excerpt"),
        (ARTICLES, {"title": "t", "tags": ["ok", "a\x00"]}, "tags.1"),
        (ARTICLES, {"title": "line\nbreak"}, "title"),
        (ARTICLES, {"title": "t", "tags": ["tab\there"]}, "tags.0"),
        (POSTS, {"type": "brand", "brand_id": "acme\n", "content": "x"}, "brand_id"),
    ],
)
def test_control_characters_in_every_text_field(api, path, body, field):
    err = assert_error(api.post(path, json=body), 400, "validation_error")
    assert field in err["details"], err


def test_tab_and_line_breaks_are_fine_in_long_text(api):
    post = create(api, content="Line one\r\nLine two\n\n\tindented")
    assert post["content"] == "Line one\r\nLine two\n\n\tindented"
    r = api.post(ARTICLES, json={"title": "t", "body": "# A\n\n\tcode", "excerpt": "a\nb"})
    assert r.status_code == 201
    r = api.patch(ITEM + post["id"], json={"last_error": "Traceback:\n  line 1"})
    assert r.status_code == 200


# U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR end a line as \n does
# (in JavaScript, JSON viewers, editors): refused where a field holds one line.
LINE_SEPARATORS = ["\u2028", "\u2029"]
WEBHOOK = {"url": "https://93.184.215.14/hooks/cps", "events": ["post.published"]}

BAD_SINGLE_LINE = [
    (POSTS, {"type": "brand", "content": "x", "brand_id": "acme{}"}, "brand_id"),
    (POSTS, {"type": "brand", "content": "x", "brand_id": "{}"}, "brand_id"),
    (ARTICLES, {"title": "First line{}Second line"}, "title"),
    (ARTICLES, {"title": "t", "tags": ["ok", "a{}b"]}, "tags.1"),
    (WEBHOOKS, {**WEBHOOK, "description": "Make{}scenario"}, "description"),
]
GOOD_MULTILINE = [
    (POSTS, {"type": "personal", "content": "First line{}Second line"}, "content"),
    (ARTICLES, {"title": "t", "body": "# A{}B"}, "body"),
    (ARTICLES, {"title": "t", "excerpt": "a{}b"}, "excerpt"),
]


def with_char(body, char):
    """`body` with `char` for every {} in its text."""
    return json.loads(json.dumps(body).replace("{}", json.dumps(char)[1:-1]))


@pytest.mark.backend_independent
@pytest.mark.parametrize("char", LINE_SEPARATORS)
@pytest.mark.parametrize("path, body, field", BAD_SINGLE_LINE)
def test_line_separators_are_refused_in_single_line_fields(api, path, body, field, char):
    err = assert_error(api.post(path, json=with_char(body, char)), 400, "validation_error")
    assert list(err["details"]) == [field], err
    assert f"line breaks (found U+{ord(char):04X})" in err["details"][field][0], err
    assert api.get(path).get_json()["total"] == 0


@pytest.mark.parametrize("char", LINE_SEPARATORS)
def test_line_separators_are_refused_by_patch_too(api, char):
    article = api.post(ARTICLES, json={"title": "Kept"}).get_json()
    r = api.patch(ARTICLE + article["id"], json={"title": f"a{char}b"})
    assert "title" in assert_error(r, 400, "validation_error")["details"]
    hook = api.post(WEBHOOKS, json=WEBHOOK).get_json()
    r = api.patch(WEBHOOK_ITEM + hook["id"], json={"description": f"a{char}b"})
    assert "description" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(ARTICLE + article["id"]).get_json()["title"] == "Kept"


@pytest.mark.parametrize("char", LINE_SEPARATORS)
@pytest.mark.parametrize("path, body, field", GOOD_MULTILINE)
def test_line_separators_are_kept_in_multiline_fields(api, path, body, field, char):
    body = with_char(body, char)
    r = api.post(path, json=body)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()[field] == body[field]


@pytest.mark.parametrize("char", LINE_SEPARATORS)
def test_line_separators_are_kept_in_last_error(api, char):
    post = create(api)
    r = api.patch(ITEM + post["id"], json={"last_error": f"Step 1 failed{char}Step 2 skipped"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["last_error"] == f"Step 1 failed{char}Step 2 skipped"


@pytest.mark.backend_independent
@pytest.mark.parametrize("text", INVISIBLE)
def test_invisible_only_content_is_blank(api, text):
    err = assert_error(
        api.post(POSTS, json={"type": "personal", "content": text}), 400, "validation_error"
    )
    assert "visible" in err["details"]["content"][0]
    err = assert_error(api.post(ARTICLES, json={"title": text}), 400, "validation_error")
    assert "title" in err["details"]


@pytest.mark.parametrize(
    "text", ["a\u200bb", "🙂", "\u200b🙂", "ب", "\u0301e", "x\u2800y", "👩\u200d💻", "☃️"]
)
def test_visible_text_with_invisible_parts_is_kept(api, text):
    assert create(api, content=text)["content"] == text


@pytest.mark.parametrize(
    "query, param",
    [
        ("limit=\u0661\u0662", "limit"),  # Arabic-Indic digits
        ("offset=\uff11", "offset"),  # fullwidth 1
        ("limit=1_0", "limit"),
        ("limit=+5", "limit"),
        ("limit=%205", "limit"),
        ("limit=1&limit=100", "limit"),
        ("status=Draft&status=Scheduled", "status"),
        ("due=true&due=false", "due"),
    ],
)
def test_numeric_and_repeated_query_parameters(api, query, param):
    err = assert_error(api.get(f"{POSTS}?{query}"), 400, "validation_error")
    assert list(err["details"]) == [param]


@pytest.mark.backend_independent
@pytest.mark.parametrize("method", ["get", "patch"])
@pytest.mark.parametrize("resource", ["post", "article"])
def test_unknown_query_parameter_on_item_routes_is_400(api, method, resource):
    if resource == "post":
        path = ITEM + create(api)["id"]
    else:
        path = ARTICLE + api.post(ARTICLES, json={"title": "t"}).get_json()["id"]
    r = getattr(api, method)(f"{path}?fields=all", json={} if method == "patch" else None)
    assert assert_error(r, 400, "validation_error")["details"] == {"fields": ["Unknown field."]}


@pytest.mark.backend_independent
@pytest.mark.parametrize("query", ["fields", "fields=", "&fields", "%66ields=1"])
def test_unknown_query_parameter_in_any_spelling_is_400(api, query):
    path = ITEM + create(api)["id"]
    err = assert_error(api.get(f"{path}?{query}"), 400, "validation_error")
    assert err["details"] == {"fields": ["Unknown field."]}


@pytest.mark.parametrize("query", ["", "&", "&&"])
def test_an_empty_query_on_an_item_route_is_no_parameter(api, query):
    post = create(api)
    r = api.get(f"{ITEM}{post['id']}?{query}")
    assert r.status_code == 200 and r.get_json() == post


def test_unknown_query_parameter_on_create_and_callback_is_400(api):
    r = api.post(f"{POSTS}?dry_run=1", json={"type": "personal", "content": "x"})
    assert "dry_run" in assert_error(r, 400, "validation_error")["details"]
    assert api.get(POSTS).get_json()["total"] == 0
    r = api.post(f"{CALLBACK}?force=1", json={})
    assert "force" in assert_error(r, 400, "validation_error")["details"]


# --- patterns match whole values ------------------------------------------------


@pytest.mark.parametrize(
    "urn", ["urn:li:share:1\n", "urn:li:share:1\r\n", "\nurn:li:share:1", "urn:li:share:1 "]
)
def test_linkedin_post_id_is_matched_whole(app, api, urn):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 0
    post = create(api, scheduled_at="2099-01-01T00:00:00Z")
    api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    body = {"post_id": post["id"], "linkedin_post_id": urn, "live_url": "https://x.example/p"}
    assert (
        "linkedin_post_id"
        in assert_error(api.post(CALLBACK, json=body), 400, "validation_error")["details"]
    )
    body["linkedin_post_id"] = "urn:li:share:1"
    assert api.post(CALLBACK, json=body).status_code == 200
    assert api.post(CALLBACK, json=body).status_code == 200  # the retry still matches


# --- nesting ------------------------------------------------------------------------


def nested(depth):
    return "[" * depth + "]" * depth


def operations_with_a_body():
    """(METHOD, path template) of every operation of the OpenAPI document
    that takes a body: a new one is covered without a change here."""
    from content_publishing.app import create_app
    from content_publishing.http.apidoc import build_spec

    spec = build_spec(create_app({"TESTING": True, "DATABASE": ":memory:"}))
    return sorted(
        (method.upper(), path)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    )


BODY_OPERATIONS = operations_with_a_body()


# A record of the caller's for each path parameter, so that the request
# reaches the operation itself.
def png():
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(out, "PNG")
    return out.getvalue()


RECORDS = {
    "post_id": lambda api: create(api)["id"],
    "article_id": lambda api: api.post(ARTICLES, json={"title": "t"}).get_json()["id"],
    "webhook_id": lambda api: api.post(WEBHOOKS, json=WEBHOOK).get_json()["id"],
    "channel_id": lambda api: api.post(
        "/functions/v1/channels", json={"type": "personal", "name": "Me"}
    ).get_json()["id"],
    "media_id": lambda api: api.post(
        "/functions/v1/media", data=png(), headers={"Content-Type": "image/png"}
    ).get_json()["id"],
    "set_id": lambda api: api.post(
        "/functions/v1/hashtag-sets", json={"name": "n", "hashtags": ["#a"]}
    ).get_json()["id"],
    "member_id": lambda api: str(
        api.post("/functions/v1/members", json={"name": "Sam", "role": "viewer"}).get_json()["id"]
    ),
}


def test_the_nesting_cases_cover_every_operation_with_a_body():
    assert {
        ("POST", POSTS),
        ("PATCH", ITEM + "{post_id}"),
        ("POST", CALLBACK),
        ("POST", "/functions/v1/api-v2-posts-claim"),
        ("POST", ARTICLES),
        ("PATCH", ARTICLE + "{article_id}"),
        ("POST", WEBHOOKS),
        ("PATCH", WEBHOOK_ITEM + "{webhook_id}"),
        ("POST", "/functions/v1/webhook-deliveries-redeliver"),
    } <= set(BODY_OPERATIONS)


@pytest.mark.backend_independent
@pytest.mark.parametrize("depth", [33, 200, 1000, 5000, 50_000])
@pytest.mark.parametrize("method, template", BODY_OPERATIONS)
def test_deeply_nested_json_is_400(api, method, template, depth):
    path = re.sub(r"\{(\w+)\}", lambda m: RECORDS[m.group(1)](api), template)
    for raw in (nested(depth), '{"content": ' + nested(depth) + "}"):
        r = api.client.open(
            path,
            method=method,
            data=raw,
            content_type="application/json",
            headers={"X-API-Key": api.key},
        )
        err = assert_error(r, 400, "bad_request")
        assert "nests deeper" in err["message"]


def test_nesting_within_the_cap_is_an_ordinary_validation_error(api):
    r = api.client.post(
        POSTS,
        data='{"content": ' + nested(30) + "}",
        content_type="application/json",
        headers={"X-API-Key": api.key},
    )
    assert "content" in assert_error(r, 400, "validation_error")["details"]


# --- idempotency ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, retry",
    [
        ({"type": "personal", "content": "a"}, {"content": "a", "type": "personal"}),
        (
            {"type": "personal", "content": "a"},
            {"type": "personal", "content": "a", "media_urls": []},
        ),
        (
            {"type": "personal", "content": "a"},
            {"type": "personal", "content": "a", "brand_id": None},
        ),
        (
            {"type": "personal", "content": "a", "scheduled_at": "2030-01-01T10:00:00+01:00"},
            {"type": "personal", "content": "a", "scheduled_at": "2030-01-01T09:00:00Z"},
        ),
    ],
)
def test_idempotent_retry_compares_loaded_fields(api, first, retry):
    a = api.post(POSTS, json=first, headers={"Idempotency-Key": "retry-1"})
    b = api.post(POSTS, json=retry, headers={"Idempotency-Key": "retry-1"})
    assert a.status_code == b.status_code == 201
    assert a.get_json() == b.get_json()
    assert api.get(POSTS).get_json()["total"] == 1


def test_article_creation_honours_idempotency_key(api, caller):
    body = {"title": "Once", "tags": ["a"]}
    a = api.post(ARTICLES, json=body, headers={"Idempotency-Key": "art-1"})
    b = api.post(ARTICLES, json={**body, "body": ""}, headers={"Idempotency-Key": "art-1"})
    assert a.status_code == b.status_code == 201 and a.get_json() == b.get_json()
    assert b.headers["Location"] == a.headers["Location"]
    r = api.post(ARTICLES, json={"title": "Other"}, headers={"Idempotency-Key": "art-1"})
    assert_error(r, 409, "conflict")
    assert api.get(ARTICLES).get_json()["total"] == 1
    bob = caller("bob")
    assert (
        bob.post(ARTICLES, json=body, headers={"Idempotency-Key": "art-1"}).get_json()["id"]
        != a.get_json()["id"]
    )
    # A post and an article may use the same key: they are different requests.
    assert (
        api.post(
            POSTS, json={"type": "personal", "content": "x"}, headers={"Idempotency-Key": "art-1"}
        ).status_code
        == 201
    )
