"""Authentication rules (README "API keys"), one by one, and scope checks;
the last two hold every route of the API (read from the app itself, so
routes added later are held too) to a 401 without a key and a 403 naming
its scope, whatever its body and ids."""

import re

import pytest

from content_publishing.auth import ANY_VALID_KEY, SCOPES, generate_key, hash_key
from content_publishing.http.apidoc import build_spec
from content_publishing.store.db import trace
from harness.api import POSTS
from harness.clock import ahead
from tests.conftest import assert_error


def test_missing_key_is_401_with_challenge(client):
    r = client.get(POSTS)
    err = assert_error(r, 401, "unauthorized")
    assert "X-API-Key" in err["message"]
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "bad",
    [
        "",
        "svc_live_",
        "svc_test_" + "a" * 40,  # wrong prefix
        "sk_live_" + "a" * 40,
        "svc_live_" + "a" * 31,  # too short
        "svc_live_" + "a" * 39 + "!",  # bad character
        "svc_live_" + "a" * 39 + "é",
        "svc_live_" + "a" * 20 + " " + "a" * 20,
        "svc_live_" + "a" * 200,  # too long
    ],
)
def test_malformed_key_is_401_without_a_query(app, client, bad):
    statements = []
    with app.app_context():
        with trace(statements.append):  # the test client runs in this thread
            r = client.get(POSTS, headers={"X-API-Key": bad})
    err = assert_error(r, 401, "unauthorized")
    assert "malformed" in err["message"] or "required" in err["message"]
    assert not [s for s in statements if "api_keys" in s]


def test_unknown_key_is_401(client, key):
    assert_error(client.get(POSTS, headers={"X-API-Key": generate_key()}), 401, "unauthorized")


def test_good_key_is_accepted(client, key):
    assert client.get(POSTS, headers={"X-API-Key": key}).status_code == 200


@pytest.mark.parametrize("name", ["x-api-key", "X-API-KEY", "X-Api-Key"])
def test_header_name_in_any_case(client, key, name):
    assert client.get(POSTS, headers={name: key}).status_code == 200


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_bearer_fallback(client, key, scheme):
    assert client.get(POSTS, headers={"Authorization": f"{scheme} {key}"}).status_code == 200


@pytest.mark.parametrize("value", ["Basic {key}", "{key}", "Bearer", "Token {key}"])
def test_other_authorization_forms_are_401(client, key, value):
    r = client.get(POSTS, headers={"Authorization": value.format(key=key)})
    assert_error(r, 401, "unauthorized")


@pytest.mark.parametrize("bad", ["svc_live_short", "", "svc_live_" + "b" * 40])
def test_bad_x_api_key_beside_good_bearer_is_401(client, key, bad):
    r = client.get(POSTS, headers={"X-API-Key": bad, "Authorization": f"Bearer {key}"})
    assert_error(r, 401, "unauthorized")


@pytest.mark.backend_independent
@pytest.mark.parametrize("param", ["apikey", "api_key", "key", "x-api-key", "access_token"])
def test_key_in_query_string_is_ignored(client, key, param):
    assert_error(client.get(f"{POSTS}?{param}={key}"), 401, "unauthorized")


def test_revoked_key_is_401(client, runner, key):
    assert client.get(POSTS, headers={"X-API-Key": key}).status_code == 200
    assert runner.invoke(args=["keys", "revoke", key]).exit_code == 0
    err = assert_error(client.get(POSTS, headers={"X-API-Key": key}), 401, "unauthorized")
    assert "revoked" in err["message"]


def test_expired_key_is_401(client, make_key, clock):
    expiry = ahead(3)  # the CLI makes no key that has expired already
    key = make_key(expires_at=expiry)
    clock.wait_past(expiry)
    err = assert_error(client.get(POSTS, headers={"X-API-Key": key}), 401, "unauthorized")
    assert "expired" in err["message"]


def test_future_expiry_is_accepted(client, make_key):
    key = make_key(expires_at="2999-01-01T00:00:00+02:00")
    assert client.get(POSTS, headers={"X-API-Key": key}).status_code == 200


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "method, path, scope",
    [
        ("get", POSTS, "posts:read"),
        ("post", POSTS, "posts:write"),
        ("get", "/functions/v1/api-v2-posts-item/x", "posts:read"),
        ("patch", "/functions/v1/api-v2-posts-item/x", "posts:write"),
        ("post", "/functions/v1/make-post-callback", "posts:publish"),
    ],
)
def test_missing_scope_is_403_naming_it(caller, method, path, scope):
    others = [s for s in ("posts:read", "posts:write", "posts:publish") if s != scope]
    api = caller("carol", scopes=others + ["articles:read", "articles:write"])
    r = getattr(api, method)(path, json={} if method != "get" else None)
    err = assert_error(r, 403, "insufficient_scope")
    assert err["details"] == {"required_scope": scope}


def _last_used(runner):
    lines = runner.invoke(args=["keys", "list"]).output.splitlines()
    return lines[1].split()[-1]


def test_last_used_at_is_written_at_most_once_per_interval(app, client, runner, key):
    assert _last_used(runner) == "-"
    client.get(POSTS, headers={"X-API-Key": key})
    first = _last_used(runner)
    assert first.startswith("20")
    client.get(POSTS, headers={"X-API-Key": key})
    assert _last_used(runner) == first  # within the interval: no write
    app.config["KEY_TOUCH_INTERVAL"] = 0
    client.get(POSTS, headers={"X-API-Key": key})
    assert _last_used(runner) > first


def test_last_used_at_is_written_after_the_response(client, runner, key):
    response = client.get(POSTS, headers={"X-API-Key": key}, buffered=False)
    assert response.status_code == 200
    assert _last_used(runner) == "-"  # the response has not been closed yet
    response.close()
    assert _last_used(runner) != "-"


def test_late_last_used_write_does_not_undo_a_revoke(client, runner, key):
    response = client.get(POSTS, headers={"X-API-Key": key}, buffered=False)
    assert runner.invoke(args=["keys", "revoke", "1"]).exit_code == 0
    response.close()  # the deferred last_used_at write runs now
    listing = runner.invoke(args=["keys", "list"]).output
    assert " revoked " in listing
    assert_error(client.get(POSTS, headers={"X-API-Key": key}), 401, "unauthorized")


def test_database_holds_no_plain_key(app, client, make_key, stored):
    keys = [make_key("alice"), make_key("bob", ["posts:read"])]
    for key in keys:
        for _ in range(3):
            client.get(POSTS, headers={"X-API-Key": key})
        client.post(POSTS, json={"type": "personal", "content": "x"}, headers={"X-API-Key": key})
    stored = stored()
    assert len(stored) > 0 and hash_key(keys[0]).encode() in stored
    assert b"svc_live_" not in stored
    for key in keys:
        assert key[9:].encode() not in stored


SOME_ID = "00000000-0000-4000-8000-000000000000"


def routes(app):
    """(method, path with its ids filled in, required scope) of every API route."""
    found = []
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("api."):
            continue
        path = re.sub(r"<(?:\w+:)?\w+>", SOME_ID, rule.rule)
        scope = getattr(app.view_functions[rule.endpoint], "required_scope", None)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            found.append((method, path, scope))
    # Every operation of the OpenAPI document but those it says take no key
    # (/health, the media file, LinkedIn's callback); tests/test_openapi.py
    # holds the document to the routes.
    documented = sum(
        1
        for ops in build_spec(app)["paths"].values()
        for op in ops.values()
        if op.get("security") != []
    )
    assert len(found) == documented
    return found


@pytest.mark.backend_independent
def test_every_route_needs_a_key(app, client):
    for method, path, _ in routes(app):
        for headers in ({}, {"X-API-Key": "svc_live_x"}):
            r = client.open(path, method=method, data="{not json", headers=headers)
            assert r.status_code == 401, (method, path, headers, r.get_json())
            assert_error(r, 401, "unauthorized")


@pytest.mark.backend_independent
def test_every_route_needs_its_scope_before_reading_anything(app, client, make_key):
    for method, path, scope in routes(app):
        assert scope is not None, f"{method} {path} declares no scope"
        if scope == ANY_VALID_KEY:
            continue
        key = make_key(user="scoped", scopes=[s for s in SCOPES if s != scope])
        r = client.open(
            path,
            method=method,
            data="{not json",
            content_type="application/json",
            headers={"X-API-Key": key},
        )
        assert r.status_code == 403, (method, path, r.get_json())
        err = assert_error(r, 403, "insufficient_scope")
        assert err["details"] == {"required_scope": scope}, (method, path)
