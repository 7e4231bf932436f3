"""Requests that real gunicorn's parser or werkzeug's router see before any
view: malformed chunked bodies, a client that goes away mid-body, transfer
codings, a path starting with `//`, and the headers every answer carries,
gunicorn's own errors included. Each is a clear answer in the envelope,
never a 500, and stores nothing.
"""

import json
import time

import pytest

from harness import Client, create_key, serve
from harness.api import POSTS
from harness.raw import exchange

pytestmark = pytest.mark.sqlite_only  # gunicorn and werkzeug decide these, not the store

BODY = b'{"type": "personal", "content": "chunked"}'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("malformed")
    with serve(tmp, workers=2, log=tmp / "server.log") as server:
        server.key = create_key(server.database)
        server.client = Client(server.url, server.key)
        server.log_path = tmp / "server.log"
        yield server


def head(server, path=POSTS, extra=""):
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {server.key}\r\n"
        f"Content-Type: application/json\r\n{extra}"
    ).encode()


def stored(server):
    return server.client.get(POSTS + "?limit=1").json["total"]


def chunk(data):
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


MALFORMED = {
    "chunk size not hex": b"zz\r\nabc\r\n0\r\n\r\n",
    "chunk size empty": b"\r\nabc\r\n0\r\n\r\n",
    "chunk line with no end": b"5" + b"0" * 9000,
    "chunk extension with a bare CR": b"5;a\rb\r\nhello\r\n0\r\n\r\n",
    "chunk without its CRLF": b"5\r\nhelloXX0\r\n\r\n",
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_chunked_body_is_400_bad_request(server, body):
    status, headers, answer = exchange(
        server.port, head(server, extra="Transfer-Encoding: chunked\r\n\r\n") + body
    )
    assert status == 400, answer
    error = json.loads(answer)["error"]
    assert error["code"] == "bad_request" and "chunked" in error["message"]
    assert headers["x-content-type-options"] == "nosniff"
    assert stored(server) == 0


@pytest.mark.parametrize("coding", ["gzip, chunked", "deflate,chunked", "chunked, chunked"])
def test_a_transfer_coding_other_than_chunked_is_refused(server, coding):
    status, _, answer = exchange(
        server.port,
        head(server, extra=f"Transfer-Encoding: {coding}\r\n\r\n") + chunk(BODY) + b"0\r\n\r\n",
    )
    assert status == 400, answer
    assert json.loads(answer)["error"]["code"] == "bad_request"
    assert stored(server) == 0


def test_plain_chunked_still_works(server):
    status, _, answer = exchange(
        server.port,
        head(server, extra="Transfer-Encoding: chunked\r\n\r\n") + chunk(BODY) + b"0\r\n\r\n",
    )
    assert status == 201, answer
    assert (
        server.client.delete("/functions/v1/api-v2-posts-item/" + json.loads(answer)["id"]).status
        == 204
    )


def test_a_client_that_goes_away_mid_body_is_an_info_line_not_an_error(server):
    before = server.log_path.read_text()
    exchange(
        server.port,
        head(server, extra="Transfer-Encoding: chunked\r\n\r\n") + b"40\r\n" + BODY[:10],
        hang_up=True,
    )
    for _ in range(50):
        new = server.log_path.read_text()[len(before) :]
        if "disconnected" in new:
            break
        time.sleep(0.1)
    assert "[INFO] limits: client disconnected before the end of its chunked body" in new, new
    assert "[ERROR]" not in new and "Traceback" not in new, new
    assert '" 500 ' not in new
    assert stored(server) == 0


@pytest.mark.parametrize(
    "path", ["//functions/v1/api-v2-posts", "//functions/v1/api-v2-posts?limit=1", "//health"]
)
def test_a_path_starting_with_two_slashes_is_404(server, path):
    status, headers, answer = exchange(
        server.port,
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {server.key}\r\n\r\n".encode(),
    )
    assert status == 404, answer
    assert json.loads(answer)["error"]["code"] == "not_found"
    assert headers["x-content-type-options"] == "nosniff"


ANSWERS = {
    "ok": b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n",
    "unauthorized": b"GET /functions/v1/api-v2-posts HTTP/1.1\r\nHost: a\r\n\r\n",
    "not found": b"GET /nothing HTTP/1.1\r\nHost: a\r\n\r\n",
    "uri too long (gunicorn's own)": b"GET /health?"
    + b"x" * 5000
    + b" HTTP/1.1\r\nHost: a\r\n\r\n",
    "headers too large (gunicorn's own)": b"GET /health HTTP/1.1\r\nHost: a\r\n"
    + b"".join(f"X-Filler-{i}: x\r\n".encode() for i in range(120))
    + b"\r\n",
    "not HTTP (gunicorn's own)": b"HELLO\r\n\r\n",
}


@pytest.mark.parametrize("request_bytes", ANSWERS.values(), ids=ANSWERS.keys())
def test_every_answer_says_nosniff(server, request_bytes):
    status, headers, _ = exchange(server.port, request_bytes)
    assert status is not None
    assert headers.get("x-content-type-options") == "nosniff", (status, headers)
