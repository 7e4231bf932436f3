"""X-Request-ID on every answer (docs/api.md): the client's when it is 1 to
128 characters of A-Z a-z 0-9 . _ : / + = @ -, else a new UUID. Its place in the logs:
tests/test_logs.py."""

import uuid

import pytest

from harness.api import ITEM, POSTS
from tests.conftest import assert_error


def is_new_id(value):
    return str(uuid.UUID(value)) == value


def answers(client, key, headers):
    """One request of each kind of answer, with `headers` on each."""
    with_key = {"X-API-Key": key, **headers}
    return {
        "ok": client.get(POSTS, headers=with_key),
        "created": client.post(POSTS, headers=with_key, json={"type": "personal", "content": "x"}),
        "health": client.get("/health", headers=headers),
        "docs": client.get("/functions/v1/openapi.json", headers=headers),
        "preflight": client.options(
            POSTS,
            headers={
                "Origin": "http://elsewhere.test",
                "Access-Control-Request-Method": "POST",
                **headers,
            },
        ),
        "unauthorized": client.get(POSTS, headers=headers),
        "not found": client.get(ITEM + str(uuid.uuid4()), headers=with_key),
        "unknown path": client.get("/nothing", headers=headers),
        "method not allowed": client.put(POSTS, headers=with_key),
        "bad json": client.post(
            POSTS, headers={**with_key, "Content-Type": "application/json"}, data="{"
        ),
        "too large": client.post(
            POSTS,
            headers={**with_key, "Content-Type": "application/json"},
            data=b" " * (1024 * 1024 + 1),
        ),
    }


def test_every_answer_gets_a_new_id_when_none_is_sent(client, key):
    seen = set()
    for kind, r in answers(client, key, {}).items():
        assert r.status_code < 500, kind
        assert is_new_id(r.headers.get("X-Request-ID", "")), (kind, r.headers)
        seen.add(r.headers["X-Request-ID"])
    assert len(seen) == 11  # one each


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "sent",
    [
        "abc-123",
        "x",
        "A" * 128,
        "._:/+=@-",
        "6c1736f7-eb56-4d60-b99d-8f6f00791a8b",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  # W3C traceparent
        "Root=1-67891233-abcdef012345678912345678",  # AWS X-Ray
    ],
)
def test_a_usable_client_id_comes_back_on_every_answer(client, key, sent):
    for kind, r in answers(client, key, {"X-Request-ID": sent}).items():
        assert r.headers.get("X-Request-ID") == sent, (kind, r.status_code)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "sent",
    [
        "",
        " ",
        "A" * 129,
        "two words",
        "tab\there",
        "caf\u00e9",
        "\x7f",
        " padded ",
        "a]b",  # would close a bracketed log field
        'a"b',  # would close a quoted one
        "!~{}[]()<>#$%^&*|;',?\\`",
    ],
)
def test_an_unusable_client_id_is_replaced(client, key, sent):
    r = client.get(POSTS, headers={"X-API-Key": key, "X-Request-ID": sent})
    assert r.status_code == 200
    assert is_new_id(r.headers["X-Request-ID"]) and r.headers["X-Request-ID"] != sent
    r = client.get(ITEM + "nope", headers={"X-API-Key": key, "X-Request-ID": sent})
    assert_error(r, 404, "not_found")
    assert is_new_id(r.headers["X-Request-ID"])


def test_browsers_may_send_and_read_it(client):
    r = client.options(
        POSTS,
        headers={
            "Origin": "http://elsewhere.test",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "x-api-key, x-request-id",
        },
    )
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert "x-request-id" in allowed
    r = client.get(POSTS, headers={"Origin": "http://elsewhere.test"})
    assert_error(r, 401, "unauthorized")
    exposed = {h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert "X-Request-ID" in exposed
