"""The OpenAPI document and the docs page, and schemathesis against the live service."""

import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema_rs
import pytest
from openapi_spec_validator import validate
from PIL import Image

from content_publishing.http.apidoc import build_spec, check_declarations, doc
from content_publishing.schemas import text
from harness import BIN, ROOT, Client, create_key, read_posts, serve
from harness.api import SPEC
from harness.claims import past, schedule_posts
from tests.conftest import assert_error

# The stateful run claims up to 50 a time: some must be left for it to follow
# the link from a claim to the callback.
DUE_POSTS = 1000

# The document, its docs page and the server's text fields are the same
# whatever the store: these tests run on SQLite alone (tests/conftest.py).
DOCUMENT_ONLY = pytest.mark.backend_independent


@pytest.fixture
def spec(client):
    r = client.get(SPEC)  # no key needed
    assert r.status_code == 200
    return r.get_json()


@DOCUMENT_ONLY
def test_document_validates(spec):
    validate(spec)
    assert spec["openapi"].startswith("3.")


@DOCUMENT_ONLY
def test_every_api_route_and_method_is_documented(app, spec):
    routes = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("api.")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    keyless = {
        ("/health", "get"),
        ("/media/{media_id}.{ext}", "get"),
        ("/functions/v1/linkedin/callback", "get"),
        ("/functions/v1/invites-accept", "post"),
        # signing in (http/session.py): no key
        ("/functions/v1/session", "post"),
        ("/functions/v1/session-link", "post"),
        ("/functions/v1/password-reset", "post"),
        ("/functions/v1/session-link-use", "post"),
        ("/functions/v1/invites/{token}", "get"),
    }
    assert routes | keyless == documented
    assert len(routes) >= 35  # the routes were found at all


@DOCUMENT_ONLY
@pytest.mark.parametrize(
    "path, method, scope",
    [
        ("/functions/v1/api-v2-posts", "get", "posts:read"),
        ("/functions/v1/api-v2-posts", "post", "posts:write"),
        ("/functions/v1/api-v2-posts-item/{post_id}", "get", "posts:read"),
        ("/functions/v1/api-v2-posts-item/{post_id}", "patch", "posts:write"),
        ("/functions/v1/make-post-callback", "post", "posts:publish"),
        ("/functions/v1/articles-api", "get", "articles:read"),
        ("/functions/v1/articles-api", "post", "articles:write"),
        ("/functions/v1/articles-api-item/{article_id}", "get", "articles:read"),
        ("/functions/v1/articles-api-item/{article_id}", "patch", "articles:write"),
        ("/functions/v1/api-v2-posts-item/{post_id}", "delete", "posts:write"),
        ("/functions/v1/api-v2-posts-claim", "post", "posts:publish"),
        ("/functions/v1/articles-api-item/{article_id}", "delete", "articles:write"),
        ("/functions/v1/webhooks", "get", "webhooks:manage"),
        ("/functions/v1/webhooks", "post", "webhooks:manage"),
        ("/functions/v1/webhooks-item/{webhook_id}", "get", "webhooks:manage"),
        ("/functions/v1/webhooks-item/{webhook_id}", "patch", "webhooks:manage"),
        ("/functions/v1/webhooks-item/{webhook_id}", "delete", "webhooks:manage"),
        ("/functions/v1/webhook-deliveries", "get", "webhooks:manage"),
        ("/functions/v1/webhook-deliveries-redeliver", "post", "webhooks:manage"),
    ],
)
def test_operations_name_scope_security_and_errors(spec, path, method, scope):
    op = spec["paths"][path][method]
    assert op["x-required-scope"] == scope and scope in op["description"]
    assert op["security"] == [{"ApiKeyHeader": []}, {"BearerAuth": []}]
    for status in ("401", "403"):
        assert op["responses"][status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }
    success = [s for s in op["responses"] if s.startswith("2")]
    assert len(success) == 1
    if "{" in path:
        assert "404" in op["responses"]
    if method in ("post", "patch"):
        assert {"400", "413", "415", "503", "507"} <= set(op["responses"])
        assert "requestBody" in op
    if method == "delete":
        assert {"204", "409" if "posts-item" in path else "412", "503", "507"} <= set(
            op["responses"]
        )
        assert "content" not in op["responses"]["204"]


@DOCUMENT_ONLY
def test_security_schemes(spec):
    schemes = spec["components"]["securitySchemes"]
    assert schemes["ApiKeyHeader"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["BearerAuth"] == {"type": "http", "scheme": "bearer"}


@DOCUMENT_ONLY
def test_query_parameters_and_bodies_come_from_the_schemas(spec):
    params = {p["name"] for p in spec["paths"]["/functions/v1/api-v2-posts"]["get"]["parameters"]}
    assert params == {
        "limit",
        "offset",
        "status",
        "type",
        "brand_id",
        "channel_id",  # since many personal channels: one channel's posts
        "scheduled_before",
        "scheduled_after",
        "due",
        "series_id",
        "order",
        "cursor",
        "q",
    }
    post = spec["components"]["schemas"]["Post"]
    assert post["properties"]["content"]["maxLength"] == 3000
    assert post["properties"]["id"]["readOnly"] is True
    # The brand rule is stated in words: a oneOf broke generated clients.
    assert "oneOf" not in post and "brand_id" in post["description"]
    error = spec["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]


def if_match_operations(spec):
    """(METHOD, path) of every operation that documents an If-Match header."""
    return {
        (method.upper(), path)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if any(
            p["in"] == "header" and p["name"] == "If-Match" for p in operation.get("parameters", [])
        )
    }


@DOCUMENT_ONLY
def test_every_412_declares_its_etag_header(spec):
    """A client that gets 412 reads the current version from ETag: the
    document says the header is there, on every operation with If-Match."""
    operations = if_match_operations(spec)
    assert len(operations) >= 6, operations  # PATCH and DELETE of posts, articles, webhooks
    for method, path in operations:
        responses = spec["paths"][path][method.lower()]["responses"]
        assert "412" in responses, (method, path)
        assert responses["412"]["headers"]["ETag"]["schema"] == {"type": "string"}, (method, path)
        assert responses["412"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"
        }


def tiny_png():
    out = io.BytesIO()
    Image.new("RGB", (2, 2), "blue").save(out, "PNG")
    return out.getvalue()


def test_every_operation_that_answers_412_documents_it(app, api, spec):
    """Sent a stale If-Match, every item operation either ignores it or
    answers 412 with the current ETag, and exactly the latter document
    If-Match and the 412's ETag. (With a LinkedIn app set up, so that the
    connection's routes get that far.)"""
    app.config.update(LINKEDIN_CLIENT_ID="client", LINKEDIN_CLIENT_SECRET="secret")
    ids = {
        "post_id": api.post(
            "/functions/v1/api-v2-posts", json={"type": "personal", "content": "x"}
        ).get_json()["id"],
        "article_id": api.post("/functions/v1/articles-api", json={"title": "t"}).get_json()["id"],
        "webhook_id": api.post(
            "/functions/v1/webhooks",
            json={"url": "https://93.184.215.14/hooks/cps", "events": ["post.published"]},
        ).get_json()["id"],
        "channel_id": api.post(
            "/functions/v1/channels", json={"type": "personal", "name": "Me"}
        ).get_json()["id"],
        "member_id": str(api.get("/functions/v1/me").get_json()["member"]["id"]),
        "media_id": api.post(
            "/functions/v1/media", data=tiny_png(), headers={"Content-Type": "image/png"}
        ).get_json()["id"],
        "set_id": api.post(
            "/functions/v1/hashtag-sets", json={"name": "n", "hashtags": ["#a"]}
        ).get_json()["id"],
        "session_id": "1",  # a key's member has no account: no session of its
        "token": "no-such-invitation",
        "key_id": "999999",  # not the calling key, which a DELETE would revoke
    }
    answered_412 = set()
    for path, operations in spec["paths"].items():
        if "{" not in path or path.startswith("/media/"):  # the file route changes nothing
            continue
        url = re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], path)
        for method in operations:
            r = api.client.open(
                url,
                method=method.upper(),
                json={} if method == "patch" else None,
                headers={"X-API-Key": api.key, "If-Match": '"999"'},
            )
            if r.status_code == 412:
                assert_error(r, 412, "precondition_failed")
                assert r.headers["ETag"] == '"1"', (method, path)
                answered_412.add((method.upper(), path))
    queue = "/functions/v1/api-v2-posts-queue"  # If-Match names the post in the body
    r = api.post(queue, json={"post_id": ids["post_id"]}, headers={"If-Match": '"999"'})
    if r.status_code == 412:
        assert r.headers["ETag"] == '"1"'
        answered_412.add(("POST", queue))
    review = "/functions/v1/api-v2-posts-review/{post_id}"  # a body is required first
    r = api.post(review.format(**ids), json={"action": "submit"}, headers={"If-Match": '"999"'})
    if r.status_code == 412:
        assert r.headers["ETag"] == '"1"'
        answered_412.add(("POST", review))
    r = api.patch("/functions/v1/workspace", json={}, headers={"If-Match": '"999"'})
    if r.status_code == 412:  # the workspace's route has no id in its path
        assert r.headers["ETag"] == '"1"'
        answered_412.add(("PATCH", "/functions/v1/workspace"))
    assert answered_412 == if_match_operations(spec)


@DOCUMENT_ONLY
def test_docs_page_and_its_assets_are_served_locally(client):
    page = client.get("/functions/v1/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "swagger-ui-bundle.js" in html and SPEC in html
    assert "http://" not in html and "https://" not in html  # nothing fetched from outside
    assert "<script>" not in html  # no inline script: the CSP allows none
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert page.headers["X-Frame-Options"] == "DENY"
    for asset, size in (
        ("swagger-ui-bundle.js", 10_000),
        ("swagger-ui.css", 10_000),
        ("docs.js", 500),
    ):
        r = client.get(f"/functions/v1/docs/assets/{asset}")
        assert r.status_code == 200 and len(r.data) > size
    assert "SwaggerUIBundle" in client.get("/functions/v1/docs/assets/docs.js").get_data(True)
    assert client.get("/functions/v1/docs/assets/../../app.py").status_code == 404


EVERY_PHASE = "examples,coverage,fuzzing,stateful"


def run_schemathesis(tmp_path, examples, seed=None, phases=EVERY_PHASE):
    """Schemathesis' CLI with every check against real gunicorn and a key with
    every scope; schemathesis.toml in the repository root configures it.

    Twice: `phases`, then the stateful phase alone on freshly due posts,
    since the first run's fuzzed claims take every due post there is; the
    second follows the links from a claim to the callback and to a report
    with posts it really claimed, among the posts' operations alone. Each run has a user of its own: the fuzzed
    channels of the first (a daily cap on `personal`, say) would otherwise
    refuse the second's posts. The stateful run takes at least 50 examples,
    so that the link from a claim to the callback is followed."""
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999"}  # due posts for the claims
    with serve(tmp_path, workers=2, env=env) as server:
        runs = [("alice", phases, examples, None)]
        runs.append(("bob", "stateful", max(examples, 50), CLAIM_TO_CALLBACK))
        for user, phases, count, paths in runs:
            key = create_key(server.database, user=user)
            schedule_posts(server.url, key, [past(i) for i in range(DUE_POSTS)])
            out = schemathesis(tmp_path, server.url, key, count, seed, phases, paths)
        with Client(server.url, key) as client:
            posts = read_posts(client).values()
    # The link from a claim to the callback was followed with a claimed post.
    claimed_then_published = [
        p for p in posts if p["status"] == "Published" and p["handoff_count"] >= 1
    ]
    assert claimed_then_published, out[-5000:]


# The documented text pattern cannot name the invisible characters above
# U+FFFF (content_publishing/schemas/text.py, PATTERN_NOTE): a body whose text is made of
# nothing else matches the document, and the server refuses it as blank.
# Schemathesis draws such text now and then; those cases are left out, and
# only those (test_text_patterns_agree_with_the_server checks it is the one
# disagreement). So are cases with a `cursor`: it is opaque, only a `next`
# link carries a valid one, and no schema can say which strings those are
# (tests/test_paging.py follows them). Loaded from a file: schemathesis runs
# in its own process. (POST /media is left out in schemathesis.toml.)
HOOKS = f"""
import importlib.util

import schemathesis

_spec = importlib.util.spec_from_file_location("cps_text", {str(ROOT / "content_publishing" / "schemas" / "text.py")!r})
_text = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_text)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@schemathesis.hook
def filter_case(context, case):
    if case.query and "cursor" in case.query:
        return False
    return not any(_text.blank_beyond_the_pattern(s) for s in _strings(case.body))
"""


# The second run's operations: the posts' and the callback, so that its
# scenarios walk from a claim to the callback among a few operations rather
# than the whole document's.
CLAIM_TO_CALLBACK = r"^/functions/v1/(api-v2-posts[a-z-]*|make-post-callback)(/|$)"


def schemathesis(tmp_path, url, key, examples, seed, phases, paths=None):
    hooks = Path(tmp_path) / "schemathesis_hooks.py"
    hooks.write_text(HOOKS)
    args = [
        str(BIN / "schemathesis"),
        "run",
        url + SPEC,
        "--header",
        f"X-API-Key: {key}",
        "--checks",
        "all",
        "--max-examples",
        str(examples),
        "--phases",
        phases,
        "--no-color",
    ]
    if seed is not None:
        args += ["--seed", str(seed)]
    if paths is not None:
        args += ["--include-path-regex", paths]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(hooks)}
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    report = Path(tmp_path) / f"schemathesis-{phases.replace(',', '-')}.txt"
    report.write_text(result.stdout + result.stderr)
    assert result.returncode == 0, (result.stdout + result.stderr)[-20000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert counts and counts.group(1) == counts.group(2), result.stdout[-5000:]
    return result.stdout


# --- text patterns -----------------------------------------------------------------

TEXT_SCHEMAS = {
    "Post": "content_publishing.schemas.posts.PostSchema",
    "PostUpdate": "content_publishing.schemas.posts.PostUpdateSchema",
    "Article": "content_publishing.schemas.articles.ArticleSchema",
    "ArticleUpdate": "content_publishing.schemas.articles.ArticleUpdateSchema",
    "Endpoint": "content_publishing.schemas.webhooks.EndpointSchema",
    "EndpointUpdate": "content_publishing.schemas.webhooks.EndpointUpdateSchema",
}
BMP = [chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
# Above U+FFFF: the invisible ones, their neighbours, and visible ones.
ASTRAL = [
    chr(c)
    for first, last in [
        (0x1BC9F, 0x1BCA4),
        (0x1D172, 0x1D17B),
        (0xDFFFF, 0xE0002),
        (0xE001F, 0xE0081),
        (0xE0FFE, 0xE1000),
        (0x1F600, 0x1F601),
        (0x10000, 0x10001),
        (0x10FFFF, 0x10FFFF),
    ]
    for c in range(first, last + 1)
]


def text_properties(spec):
    """(component, property, pattern, marshmallow field) of each text field."""
    import importlib

    found = []
    for component, dotted in TEXT_SCHEMAS.items():
        module, name = dotted.rsplit(".", 1)
        fields = getattr(importlib.import_module(module), name)().fields
        for prop, schema in spec["components"]["schemas"][component]["properties"].items():
            field = fields[prop]
            if schema.get("type") == "array":
                schema, field = schema["items"], field.inner
            if schema.get("pattern", "").startswith("^[^\\x00"):
                found.append((component, prop, schema["pattern"], field))
    return found


def accepts(field, value):
    try:
        field.deserialize(value)
    except Exception:
        return False
    return True


@DOCUMENT_ONLY
def test_text_patterns_agree_with_the_server(spec):
    """On every character alone, the document's pattern (read by
    jsonschema-rs, schemathesis' validator) and the server agree, but for
    the invisible characters above U+FFFF, which only the server refuses."""
    properties = text_properties(spec)
    assert {(c, p) for c, p, _, _ in properties} >= {
        ("Post", "content"),
        ("Post", "brand_id"),
        ("PostUpdate", "last_error"),
        ("Article", "title"),
        ("Article", "body"),
        ("Article", "excerpt"),
        ("Article", "tags"),
        ("Endpoint", "description"),
    }
    for component, prop, pattern, field in properties:
        documented = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
        disagree = [c for c in BMP + ASTRAL if documented.is_valid(c) != accepts(field, c)]
        assert [c for c in disagree if not text.blank_beyond_the_pattern(c)] == [], (
            component,
            prop,
            [f"U+{ord(c):04X}" for c in disagree][:20],
        )
        if accepts(field, "") is False:  # a required text: the note's characters differ
            assert {f"U+{ord(c):04X}" for c in disagree} >= {"U+E0020", "U+1D173", "U+1BCA0"}
        for line_break in ("\u2028", "\u2029"):
            assert documented.is_valid(f"a{line_break}b") == accepts(field, f"a{line_break}b")


def test_a_body_that_only_the_server_calls_blank(api, spec):
    """The disagreement as a client meets it: a title of tag characters
    matches the documented pattern and is refused as blank."""
    title = "\U000e0041\U000e0042"
    pattern = spec["components"]["schemas"]["Article"]["properties"]["title"]["pattern"]
    assert jsonschema_rs.validator_for({"type": "string", "pattern": pattern}).is_valid(title)
    r = api.post("/functions/v1/articles-api", json={"title": title})
    assert "visible" in assert_error(r, 400, "validation_error")["details"]["title"][0]
    assert text.blank_beyond_the_pattern(title)


JS_READINGS = """
const {patterns, astral} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {};
for (const [name, pattern] of Object.entries(patterns)) {
  for (const flags of ["", "u"]) {
    try {
      const re = new RegExp(pattern, flags), matched = [];
      for (let c = 0; c < 0x10000; c++) {
        if ((c < 0xd800 || c > 0xdfff) && re.test(String.fromCharCode(c))) matched.push(c);
      }
      for (const c of astral) if (re.test(String.fromCodePoint(c))) matched.push(c);
      out[`${name}/${flags}`] = matched;
    } catch (e) {
      out[`${name}/${flags}`] = String(e);
    }
  }
}
process.stdout.write(JSON.stringify(out));
"""


@DOCUMENT_ONLY
@pytest.mark.skipif(shutil.which("node") is None, reason="no node to read the patterns as ECMA-262")
def test_text_patterns_read_alike_in_javascript_with_and_without_the_u_flag(spec):
    """OpenAPI 3.0 patterns are ECMA-262 regular expressions: JavaScript
    (Swagger UI reads them without the `u` flag, most validators with it)
    must compile them and match the same characters as jsonschema-rs."""
    patterns = {f"{c}.{p}": pattern for c, p, pattern, _ in text_properties(spec)}
    astral = [ord(c) for c in ASTRAL]
    result = subprocess.run(
        ["node", "-e", JS_READINGS],
        input=json.dumps({"patterns": patterns, "astral": astral}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    readings = json.loads(result.stdout)
    for name, pattern in patterns.items():
        documented = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
        expected = [ord(c) for c in BMP + ASTRAL if documented.is_valid(c)]
        for flags in ("", "u"):
            assert readings[f"{name}/{flags}"] == expected, (name, flags)


def test_schemathesis_finds_nothing(tmp_path):
    """The coverage phase (every boundary and wrong type the document
    implies, the same whatever the count) and the stateful phase (the links,
    to a claim and its callback). The phases that draw examples (the
    document's own, and fuzzing) run under `make fuzz`: the next test draws
    the few this one drew before, and the last 500 an operation in every
    phase. (In a run of 320 s on a loaded machine, coverage took 235 s,
    fuzzing 55 s and the examples 25 s.)"""
    run_schemathesis(tmp_path, examples=5, seed=20261121, phases="coverage,stateful")


@pytest.mark.fuzz
def test_schemathesis_drawn_examples_find_nothing(tmp_path):
    run_schemathesis(tmp_path, examples=5, seed=20261121, phases="examples,fuzzing,stateful")


@pytest.mark.fuzz
def test_schemathesis_long_run_finds_nothing(tmp_path):
    run_schemathesis(tmp_path, examples=500)


def test_render_is_what_the_schemas_dump(app, api):
    """The views project store records onto the schemas' fields instead of
    calling dump (content_publishing/http/common.render); on every record the store
    returns, both must give the same body, and it is what the API sends."""
    from content_publishing.http.common import render
    from content_publishing.schemas import media_refs
    from content_publishing.schemas.articles import article_schema
    from content_publishing.schemas.posts import post_schema
    from content_publishing.store import articles as article_store
    from content_publishing.store import posts as post_store
    from content_publishing.store.db import snapshot

    api.post("/functions/v1/api-v2-posts", json={"type": "personal", "content": "plain"})
    picture = io.BytesIO()
    Image.new("RGB", (4, 4)).save(picture, "PNG")
    library = api.post(
        "/functions/v1/media", data=picture.getvalue(), headers={"Content-Type": "image/png"}
    ).get_json()
    post = api.post(
        "/functions/v1/api-v2-posts",
        json={
            "type": "brand",
            "brand_id": "acme",
            "content": "x\nüñí",
            "media_urls": ["https://a.example/x.png", library["url"]],
            "scheduled_at": "2099-01-01T00:00:00+01:00",
        },
    ).get_json()
    api.patch(f"/functions/v1/api-v2-posts-item/{post['id']}", json={"status": "Scheduled"})
    api.post("/functions/v1/articles-api", json={"title": "t"})
    article = api.post(
        "/functions/v1/articles-api", json={"title": "t", "tags": ["a"], "excerpt": None}
    ).get_json()
    api.patch(f"/functions/v1/articles-api-item/{article['id']}", json={"status": "Published"})
    query = {"limit": 100, "offset": 0, "order": "-created_at"}
    with app.app_context(), snapshot():
        posts = post_store.list_posts(1, query, "2100-01-01T00:00:00.000000Z").rows
        articles = article_store.list_articles(1, query).rows
    assert len(posts) == 2 and len(articles) == 2
    for schema, records, path in (
        (post_schema, posts, "api-v2-posts-item"),
        (article_schema, articles, "articles-api-item"),
    ):
        for record in records:
            media_refs.PUBLIC_URL.set(app.config["PUBLIC_URL"])  # as each request sets it
            rendered, dumped = render(schema, record), schema.dump(record)
            assert rendered == dumped
            assert list(rendered) == list(schema.dump_fields)
            served = api.get(f"/functions/v1/{path}/{record['id']}").get_json()
            assert served == dumped
    assert posts[0]["media_urls"][1] == f"media:{library['id']}.png"  # kept by reference
    assert served_post(api, posts[0])["media_urls"][1] == library["url"]  # shown as a URL


def served_post(api, record):
    return api.get(f"/functions/v1/api-v2-posts-item/{record['id']}").get_json()


@pytest.mark.fresh_app  # adds a route
@pytest.mark.parametrize(
    ("decorate", "message"),
    [
        (lambda view: view, "has no @doc"),
        (lambda view: doc("Undeclared scope")(view), "has no @require_scope"),
    ],
)
def test_a_route_without_its_declarations_stops_the_app(app, decorate, message):
    """A forgotten @doc or @require_scope never reaches a client: neither the
    app (check_declarations runs in create_app) nor the document is built."""

    def sneaky():
        return {}

    app.add_url_rule("/functions/v1/sneaky", endpoint="api.sneaky", view_func=decorate(sneaky))
    with pytest.raises(RuntimeError, match=f"api.sneaky {message}"):
        check_declarations(app)
    with pytest.raises(RuntimeError, match=f"api.sneaky {message}"):
        build_spec(app)  # nor is it ever documented with a null scope


@DOCUMENT_ONLY
def test_every_link_names_an_operation_of_the_document(spec):
    """A link to an operation id the document lacks makes schemathesis'
    stateful phase refuse the whole document, and generated clients skip it."""
    operations = {
        op["operationId"]
        for ops in spec["paths"].values()
        for op in ops.values()
        if "operationId" in op
    }
    links = [
        (path, name, link["operationId"])
        for path, ops in spec["paths"].items()
        for op in ops.values()
        for response in op.get("responses", {}).values()
        for name, link in response.get("links", {}).items()
    ]
    assert links and [link for link in links if link[2] not in operations] == []
