"""Input that only a real server shows: chunked bodies and the access log."""

import base64
import time

import pytest

from harness import Client, create_key, serve

POSTS = "/functions/v1/api-v2-posts"
MIB = 1024 * 1024


def chunks_of(payload, size=64 * 1024):
    return [payload[i : i + size] for i in range(0, len(payload), size)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live-input")
    with serve(tmp, workers=2, log=tmp / "server.log") as server:
        server.key = create_key(server.database)
        server.client = Client(server.url, server.key, timeout=30)
        yield server


def total(server):
    return server.client.get(POSTS + "?limit=1").json["total"]


def test_chunked_body_over_the_limit_is_413_and_stores_nothing(server):
    document = b'{"type": "personal", "content": "first MiB"}'
    payload = document + b" " * (MIB - len(document)) + b'{"more": "bytes after the cap"}'
    r = server.client.post(POSTS, chunks=chunks_of(payload))
    assert r.status == 413, r
    assert r.json["error"]["code"] == "payload_too_large"
    assert total(server) == 0


def test_chunked_body_of_exactly_the_limit_is_read_whole(server):
    document = b'{"type": "personal", "content": "a whole MiB"}'
    r = server.client.post(POSTS, chunks=chunks_of(document + b" " * (MIB - len(document))))
    assert r.status == 201, r
    r = server.client.post(POSTS, chunks=[b'{"type": "personal", ', b'"content": "small"}'])
    assert r.status == 201 and r.json["content"] == "small"


def test_no_key_reaches_the_access_log(server):
    key = server.key
    basic = base64.b64encode(f"{key}:".encode()).decode()
    anonymous = Client(server.url)
    requests = [
        (POSTS, {"Authorization": f"Basic {basic}"}),
        (f"{POSTS}?apikey={key}", {}),
        (f"{POSTS}?api_key={key}&limit=1", {}),
        (f"{POSTS}?key={key}", {"X-API-Key": key}),
        (f"/functions/v1/nothing?access_token={key}", {}),
        ("/health", {"Referer": f"https://app.example/?k={key}", "User-Agent": key}),
    ]
    for path, headers in requests:
        assert anonymous.get(path, headers=headers).status is not None
    deadline = time.monotonic() + 10  # gunicorn writes the line after the answer is sent
    while server.log_text().count("svc_live_[redacted]") < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    log = server.log_text()
    assert key not in log and key[len("svc_live_") :] not in log
    assert log.count("svc_live_[redacted]") >= 6, log[-3000:]
    assert "apikey=svc_live_[redacted]" in log


@pytest.mark.parametrize(
    "path, headers, status, code",
    [
        (POSTS + "?limit=" + "1" * 5000, {}, 414, "uri_too_long"),
        (POSTS, {f"X-Filler-{i}": "x" for i in range(120)}, 431, "headers_too_large"),
        (POSTS, {"X-Big": "x" * 9000}, 431, "headers_too_large"),
    ],
)
def test_gunicorns_own_refusals_use_the_envelope(server, path, headers, status, code):
    r = Client(server.url, server.key).get(path, headers=headers)
    assert r.status == status, r
    assert r.headers["content-type"] == "application/json"
    assert set(r.json) == {"error"} and r.json["error"]["code"] == code
    assert r.json["error"]["message"] and r.json["error"]["details"] == {}
