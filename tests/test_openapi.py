"""The OpenAPI document and the docs page, and schemathesis against the live service."""

import re
import subprocess
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from apidoc import check_declarations, doc
from harness import BIN, ROOT, Client, create_key, read_posts, serve
from harness.claims import past, schedule_posts

SPEC = "/functions/v1/openapi.json"
DUE_POSTS = 200


@pytest.fixture
def spec(client):
    r = client.get(SPEC)  # no key needed
    assert r.status_code == 200
    return r.get_json()


def test_document_validates(spec):
    validate(spec)
    assert spec["openapi"].startswith("3.")


def test_every_api_route_and_method_is_documented(app, spec):
    routes = {
        (rule.rule.replace("<", "{").replace(">", "}"), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("api.")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    assert routes | {("/health", "get")} == documented
    assert len(routes) == 19


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


def test_security_schemes(spec):
    schemes = spec["components"]["securitySchemes"]
    assert schemes["ApiKeyHeader"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["BearerAuth"] == {"type": "http", "scheme": "bearer"}


def test_query_parameters_and_bodies_come_from_the_schemas(spec):
    params = {p["name"] for p in spec["paths"]["/functions/v1/api-v2-posts"]["get"]["parameters"]}
    assert params == {
        "limit",
        "offset",
        "status",
        "type",
        "scheduled_before",
        "scheduled_after",
        "due",
        "order",
    }
    post = spec["components"]["schemas"]["Post"]
    assert post["properties"]["content"]["maxLength"] == 3000
    assert post["properties"]["id"]["readOnly"] is True
    # The brand rule is stated in words: a oneOf broke generated clients.
    assert "oneOf" not in post and "brand_id" in post["description"]
    error = spec["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]


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


def run_schemathesis(tmp_path, examples, seed=None):
    """Schemathesis' CLI with every check against real gunicorn and a key with
    every scope; schemathesis.toml in the repository root configures it.

    Twice: every phase, then the stateful phase alone on freshly due posts,
    since the first run's fuzzed claims take every due post there is; the
    second follows the links from a claim to the callback and to a report
    with posts it really claimed."""
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999"}  # due posts for the claims
    with serve(tmp_path, workers=2, env=env) as server:
        key = create_key(server.database)
        for phases in ("examples,coverage,fuzzing,stateful", "stateful"):
            schedule_posts(server.url, key, [past(i) for i in range(DUE_POSTS)])
            out = schemathesis(tmp_path, server.url, key, examples, seed, phases)
        with Client(server.url, key) as client:
            posts = read_posts(client).values()
    # The link from a claim to the callback was followed with a claimed post.
    claimed_then_published = [
        p for p in posts if p["status"] == "Published" and p["handoff_count"] >= 1
    ]
    assert claimed_then_published, out[-5000:]


def schemathesis(tmp_path, url, key, examples, seed, phases):
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
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=3000)
    report = Path(tmp_path) / f"schemathesis-{phases.replace(',', '-')}.txt"
    report.write_text(result.stdout + result.stderr)
    assert result.returncode == 0, (result.stdout + result.stderr)[-20000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert counts and counts.group(1) == counts.group(2), result.stdout[-5000:]
    return result.stdout


def test_schemathesis_finds_nothing(tmp_path):
    run_schemathesis(tmp_path, examples=50, seed=20261121)


@pytest.mark.fuzz
def test_schemathesis_long_run_finds_nothing(tmp_path):
    run_schemathesis(tmp_path, examples=500)


def test_render_is_what_the_schemas_dump(app, api):
    """The views project store records onto the schemas' fields instead of
    calling dump (blueprints/common.render); on every record the store
    returns, both must give the same body, and it is what the API sends."""
    from blueprints.common import render
    from schemas.articles import article_schema
    from schemas.posts import post_schema
    from store import articles as article_store
    from store import posts as post_store
    from store.db import snapshot

    api.post("/functions/v1/api-v2-posts", json={"type": "personal", "content": "plain"})
    post = api.post(
        "/functions/v1/api-v2-posts",
        json={
            "type": "brand",
            "brand_id": "acme",
            "content": "x\nüñí",
            "media_urls": ["https://a.example/x.png"],
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
        posts, _ = post_store.list_posts(1, query, "2100-01-01T00:00:00.000000Z")
        articles, _ = article_store.list_articles(1, query)
    assert len(posts) == 2 and len(articles) == 2
    for schema, records, path in (
        (post_schema, posts, "api-v2-posts-item"),
        (article_schema, articles, "articles-api-item"),
    ):
        for record in records:
            assert render(schema, record) == schema.dump(record)
            assert list(render(schema, record)) == list(schema.dump_fields)
            served = api.get(f"/functions/v1/{path}/{record['id']}").get_json()
            assert served == schema.dump(record)


@pytest.mark.parametrize(
    ("decorate", "message"),
    [
        (lambda view: view, "has no @doc"),
        (lambda view: doc("Undeclared scope")(view), "has no @require_scope"),
    ],
)
def test_a_route_without_its_declarations_stops_the_app(app, decorate, message):
    """A forgotten @doc or @require_scope never reaches a client: the app
    refuses to be built (check_declarations runs in create_app)."""

    def sneaky():
        return {}

    app.add_url_rule("/functions/v1/sneaky", endpoint="api.sneaky", view_func=decorate(sneaky))
    with pytest.raises(RuntimeError, match=f"api.sneaky {message}"):
        check_declarations(app)
