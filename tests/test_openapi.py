"""The OpenAPI document and the docs page, and schemathesis against the live service."""

import re
import subprocess
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from harness import BIN, ROOT, create_key, serve

SPEC = "/functions/v1/openapi.json"


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
    assert routes == documented
    assert len(routes) == 9


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


def test_security_schemes(spec):
    schemes = spec["components"]["securitySchemes"]
    assert schemes["ApiKeyHeader"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["BearerAuth"] == {"type": "http", "scheme": "bearer"}


def test_query_parameters_and_bodies_come_from_the_schemas(spec):
    params = {p["name"] for p in spec["paths"]["/functions/v1/api-v2-posts"]["get"]["parameters"]}
    assert params == {"limit", "offset", "status", "type", "scheduled_before", "scheduled_after",
                      "due", "order"}
    post = spec["components"]["schemas"]["Post"]
    assert post["properties"]["content"]["maxLength"] == 3000
    assert post["properties"]["id"]["readOnly"] is True
    assert "oneOf" in post  # the brand rule
    error = spec["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]


def test_docs_page_and_its_assets_are_served_locally(client):
    page = client.get("/functions/v1/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "SwaggerUIBundle" in html and SPEC in html
    assert "http://" not in html and "https://" not in html  # nothing fetched from outside
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        r = client.get(f"/functions/v1/docs/assets/{asset}")
        assert r.status_code == 200 and len(r.data) > 10_000
    assert client.get("/functions/v1/docs/assets/../../app.py").status_code == 404


def run_schemathesis(tmp_path, examples, seed=None):
    """Schemathesis' CLI with every check against real gunicorn and a key with
    every scope; schemathesis.toml in the repository root configures it."""
    with serve(tmp_path, workers=2) as server:
        key = create_key(server.database)
        args = [
            str(BIN / "schemathesis"), "run", server.url + SPEC,
            "--header", f"X-API-Key: {key}",
            "--checks", "all",
            "--max-examples", str(examples),
            "--phases", "examples,coverage,fuzzing,stateful",
            "--no-color",
        ]
        if seed is not None:
            args += ["--seed", str(seed)]
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=3000)
    report = Path(tmp_path) / "schemathesis.txt"
    report.write_text(result.stdout + result.stderr)
    assert result.returncode == 0, (result.stdout + result.stderr)[-20000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert counts and counts.group(1) == counts.group(2), result.stdout[-5000:]


def test_schemathesis_finds_nothing(tmp_path):
    run_schemathesis(tmp_path, examples=50, seed=20261121)


@pytest.mark.fuzz
def test_schemathesis_long_run_finds_nothing(tmp_path):
    run_schemathesis(tmp_path, examples=500)


def test_responses_are_what_the_schemas_dump(api):
    """The views project store records onto the schemas' fields instead of
    calling dump (blueprints/common.render); both must give the same body."""
    from schemas.articles import article_schema
    from schemas.posts import post_schema

    post = api.post("/functions/v1/api-v2-posts", json={
        "type": "brand", "brand_id": "acme", "content": "x",
        "media_urls": ["https://a.example/x.png"], "scheduled_at": "2099-01-01T00:00:00+01:00",
    }).get_json()
    article = api.post("/functions/v1/articles-api", json={"title": "t", "tags": ["a"]}).get_json()
    listed = api.get("/functions/v1/api-v2-posts").get_json()["data"][0]
    for schema, body in ((post_schema, post), (post_schema, listed), (article_schema, article)):
        assert list(body) == list(schema.dump_fields)
        assert schema.dump(body) == body
