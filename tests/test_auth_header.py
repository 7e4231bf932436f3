"""An endpoint's auth_header: a token the service makes, shown once, stored
sealed, sent with every delivery (for platforms that cannot check the
signature, n8n's Header Auth), and rotated."""

import re

import pytest

from harness import Receiver
from harness.api import HOOK, HOOKS
from tests.conftest import assert_error

TOKEN = re.compile(r"whtok_[A-Za-z0-9_-]{43}")


@pytest.fixture
def receiver(app):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    with Receiver() as receiver:
        yield receiver


def ping(runner, endpoint_id):
    result = runner.invoke(args=["webhooks", "test", endpoint_id])
    assert result.exit_code == 0, result.output


def test_the_token_is_shown_once_sent_every_time_and_rotated(api, runner, receiver, stored):
    r = api.post(
        HOOKS,
        json={
            "url": receiver.url,
            "events": ["post.failed"],
            "auth_header": {"name": "X-N8N-Token"},
        },
    )
    assert r.status_code == 201
    hook = r.get_json()
    first = hook["auth_header"]["token"]
    assert hook["auth_header"]["name"] == "X-N8N-Token" and TOKEN.fullmatch(first)
    assert api.get(HOOK + hook["id"]).get_json()["auth_header"] == {"name": "X-N8N-Token"}
    assert api.get(HOOKS).get_json()["data"][0]["auth_header"] == {"name": "X-N8N-Token"}
    assert first.encode() not in stored()  # sealed at rest, like the secret

    ping(runner, hook["id"])
    assert receiver.arrivals[-1].headers["x-n8n-token"] == first

    rotated = api.patch(HOOK + hook["id"], json={"rotate_auth_header": True}).get_json()
    second = rotated["auth_header"]["token"]
    assert TOKEN.fullmatch(second) and second != first and "secret" not in rotated
    ping(runner, hook["id"])
    assert receiver.arrivals[-1].headers["x-n8n-token"] == second  # only the new one

    renamed = api.patch(
        HOOK + hook["id"], json={"auth_header": {"name": "Authorization-Token"}}
    ).get_json()
    assert renamed["auth_header"]["name"] == "Authorization-Token" and TOKEN.fullmatch(
        renamed["auth_header"]["token"]
    )
    same = api.patch(
        HOOK + hook["id"], json={"auth_header": {"name": "Authorization-Token"}}
    ).get_json()
    assert same["auth_header"] == {"name": "Authorization-Token"}  # unchanged: no new token

    removed = api.patch(HOOK + hook["id"], json={"auth_header": None}).get_json()
    assert removed["auth_header"] is None
    ping(runner, hook["id"])
    assert "authorization-token" not in receiver.arrivals[-1].headers


def test_the_signature_is_still_sent_beside_the_header(api, runner, receiver):
    hook = api.post(
        HOOKS,
        json={"url": receiver.url, "events": ["post.failed"], "auth_header": {"name": "X-Token"}},
    ).get_json()
    receiver.secrets.append(hook["secret"])
    ping(runner, hook["id"])
    assert receiver.arrivals[-1].verified_with == [hook["secret"]]


def test_rotating_without_a_header_is_409(api):
    hook = api.post(
        HOOKS, json={"url": "https://93.184.215.14/h", "events": ["post.failed"]}
    ).get_json()
    assert hook["auth_header"] is None and "auth_header" in hook
    assert_error(api.patch(HOOK + hook["id"], json={"rotate_auth_header": True}), 409, "conflict")
    assert api.get(HOOK + hook["id"]).get_json()["version"] == 1


BAD_NAMES = [
    "",
    "X Token",
    "X-Token:",
    "webhook-signature",
    "Content-Type",
    "HOST",
    "x" * 65,
    "Tök",
]
# Hop-by-hop and framing headers, in the cases a client may write them
HOP_BY_HOP_AND_FRAMING = [
    "Connection",
    "Keep-Alive",
    "Proxy-Connection",
    "TE",
    "te",
    "Trailer",
    "Trailers",
    "Transfer-Encoding",
    "Upgrade",
    "HTTP2-Settings",
    "Proxy-Authorization",
    "Proxy-Authenticate",
    "Expect",
    "Content-Length",
    "content-encoding",
    "Content-Range",
    "Host",
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("name", BAD_NAMES + HOP_BY_HOP_AND_FRAMING)
def test_bad_header_names_are_400(api, name):
    body = {
        "url": "https://93.184.215.14/h",
        "events": ["post.failed"],
        "auth_header": {"name": name},
    }
    error = assert_error(api.post(HOOKS, json=body), 400, "validation_error")
    assert "auth_header.name" in error["details"]
    assert api.get(HOOKS).get_json()["total"] == 0


@pytest.mark.backend_independent
@pytest.mark.parametrize("name", HOP_BY_HOP_AND_FRAMING)
def test_a_hop_by_hop_or_framing_name_is_refused_in_a_change_too(api, name):
    hook = api.post(
        HOOKS,
        json={"url": "https://93.184.215.14/h", "events": ["post.failed"], "auth_header": None},
    ).get_json()
    error = assert_error(
        api.patch(HOOK + hook["id"], json={"auth_header": {"name": name}}), 400, "validation_error"
    )
    assert "hop-by-hop or framing" in error["details"]["auth_header.name"][0]
    assert api.get(HOOK + hook["id"]).get_json()["auth_header"] is None


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "name", ["Authorization", "X-API-Key", "X-N8N-Token", "TE-Token", "Hosted"]
)
def test_ordinary_names_are_taken(api, name):
    body = {
        "url": "https://93.184.215.14/h",
        "events": ["post.failed"],
        "auth_header": {"name": name},
    }
    assert api.post(HOOKS, json=body).get_json()["auth_header"]["name"] == name


def test_the_cli_add_command_is_unchanged_and_shows_no_token(runner, key, receiver):
    result = runner.invoke(
        args=["webhooks", "add", "--user", "alice", "--url", receiver.url, "--event", "post.due"]
    )
    assert result.exit_code == 0 and "whtok_" not in result.output
