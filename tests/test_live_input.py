"""Input that only a real server shows: chunked bodies and the access log."""

import base64
import http.client
import json

import pytest

from tests.live import create_key, serve

POSTS = "/functions/v1/api-v2-posts"
MIB = 1024 * 1024


def send_chunked(port, key, payload, chunk=64 * 1024):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        pieces = (payload[i:i + chunk] for i in range(0, len(payload), chunk))
        conn.request("POST", POSTS, body=pieces, encode_chunked=True,
                     headers={"X-API-Key": key, "Content-Type": "application/json",
                              "Transfer-Encoding": "chunked"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


def total(port, key):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", POSTS + "?limit=1", headers={"X-API-Key": key})
    body = json.loads(conn.getresponse().read())
    conn.close()
    return body["total"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live-input")
    with serve(tmp, workers=2, log=tmp / "server.log") as server:
        server.key = create_key(server.database)
        yield server


def test_chunked_body_over_the_limit_is_413_and_stores_nothing(server):
    document = b'{"type": "personal", "content": "first MiB"}'
    payload = document + b" " * (MIB - len(document)) + b'{"more": "bytes after the cap"}'
    status, body = send_chunked(server.port, server.key, payload)
    assert status == 413, body
    assert body["error"]["code"] == "payload_too_large"
    assert total(server.port, server.key) == 0


def test_chunked_body_of_exactly_the_limit_is_read_whole(server):
    document = b'{"type": "personal", "content": "a whole MiB"}'
    status, body = send_chunked(server.port, server.key, document + b" " * (MIB - len(document)))
    assert status == 201, body
    status, body = send_chunked(server.port, server.key, b'{"type": "personal", "content": "small"}')
    assert status == 201 and body["content"] == "small"


def test_no_key_reaches_the_access_log(server):
    key = server.key
    basic = base64.b64encode(f"{key}:".encode()).decode()
    requests = [
        ("GET", POSTS, {"Authorization": f"Basic {basic}"}),
        ("GET", f"{POSTS}?apikey={key}", {}),
        ("GET", f"{POSTS}?api_key={key}&limit=1", {}),
        ("GET", f"{POSTS}?key={key}", {"X-API-Key": key}),
        ("GET", f"/functions/v1/nothing?access_token={key}", {}),
        ("GET", "/health", {"Referer": f"https://app.example/?k={key}", "User-Agent": key}),
    ]
    for method, path, headers in requests:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request(method, path, headers=headers)
        conn.getresponse().read()
        conn.close()
    log = server.log.read_text()
    assert key not in log and key[len("svc_live_"):] not in log
    assert log.count("svc_live_[redacted]") >= 6, log[-3000:]
    assert "apikey=svc_live_[redacted]" in log
