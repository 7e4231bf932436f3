"""GET /functions/v1/me: any valid key reads whose it is and what it may do,
whatever its scopes; a refused key is a 401 as everywhere."""

import re

import pytest

from content_publishing.auth import SCOPES
from harness.api import ME
from tests.conftest import assert_error


@pytest.mark.parametrize(
    "scopes", [["posts:read"], ["webhooks:manage", "articles:write"], list(SCOPES)]
)
def test_any_valid_key_reads_itself(caller, scopes):
    me = caller("dana", scopes=scopes, expires_at="2099-01-01T00:00:00Z")
    r = me.get(ME)
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "no-store"
    body = r.get_json()
    assert body["user"] == "dana"
    assert set(body["key"]) == {"id", "prefix", "scopes", "expires_at", "created_at"}
    assert sorted(body["key"]["scopes"]) == sorted(scopes)
    assert body["key"]["expires_at"] == "2099-01-01T00:00:00.000000Z"
    assert body["key"]["created_at"].endswith("Z")
    assert body["key"]["prefix"] == me.key[:13]
    assert re.fullmatch(r"svc_live_[A-Za-z0-9]{4}", body["key"]["prefix"])
    assert me.key not in r.get_data(as_text=True)


def test_each_key_sees_its_own(caller):
    alice, bob = caller("alice"), caller("bob", scopes=["posts:read"])
    assert alice.get(ME).get_json()["user"] == "alice"
    assert bob.get(ME).get_json()["user"] == "bob"
    assert alice.get(ME).get_json()["key"]["id"] != bob.get(ME).get_json()["key"]["id"]


def test_a_refused_key_is_401(client, runner, caller):
    assert_error(client.get(ME), 401, "unauthorized")
    assert_error(client.get(ME, headers={"X-API-Key": "svc_live_nope"}), 401, "unauthorized")
    revoked = caller("carol")
    runner.invoke(args=["keys", "revoke", revoked.key])
    assert_error(revoked.get(ME), 401, "unauthorized")


def test_me_takes_no_query_and_no_other_method(api):
    assert "x" in assert_error(api.get(ME + "?x=1"), 400, "validation_error")["details"]
    assert_error(api.post(ME, json={}), 405, "method_not_allowed")


def test_the_document_says_any_key_and_no_403(client):
    op = client.get("/functions/v1/openapi.json").get_json()["paths"][ME]["get"]
    assert op["x-required-scope"] is None
    assert op["description"].startswith("Any valid key, whatever its scopes.")
    assert "401" in op["responses"] and "403" not in op["responses"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Me"
    }
