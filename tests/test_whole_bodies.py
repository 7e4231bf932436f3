"""A body is whole or refused: a request whose body ends before its
Content-Length is a 400 bad_request on every route, and nothing is stored
(serving/limits.py). Against gunicorn itself, as `make run` serves it, with
no nginx in front; the bodies are cut short over raw sockets.

Each body is made so that its first part is a whole request on its own (a
JSON document, then spaces; 500 whole CSV rows of 1,000; a PNG, then bytes
after its end), so that a server which took the part for the whole would
store it.
"""

import io
import json
import time

import pytest
from PIL import Image

from harness import Client, create_key
from harness.api import IMPORT, MEDIA, POSTS
from harness.raw import exchange
from tests.conftest import live_server


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    log = tmp_path_factory.mktemp("whole-bodies-log") / "server.log"
    with live_server(tmp_path_factory, live_backend, "whole-bodies", workers=2, log=log) as server:
        yield server


@pytest.fixture
def client(server):
    """A new user's key for each test: its counts start at nothing."""
    user = f"user{time.monotonic_ns()}"
    with Client(server.url, create_key(server.database, user=user), timeout=30) as client:
        yield client


def padded_json(document):
    """(body, where a whole JSON document ends): the document, then spaces."""
    text = json.dumps(document).encode()
    return text + b" " * 50, len(text)


def csv_import(rows=1000):
    """(body, where row 500 ends)."""
    lines = [b"type,content"] + [f"personal,row {n}".encode() for n in range(1, rows + 1)]
    body = b"\r\n".join(lines) + b"\r\n"
    return body, len(b"\r\n".join(lines[: 500 + 1]) + b"\r\n")


def png_then_more():
    """(body, where the PNG ends): a PNG followed by bytes a decoder never
    reads, so that the PNG alone is an image too."""
    out = io.BytesIO()
    Image.new("RGB", (32, 32), "teal").save(out, "PNG")
    png = out.getvalue()
    return png + b"\x00" * 4096, len(png)


def posts_count(client):
    return client.get(POSTS + "?limit=1").json["total"]


def media_count(client):
    return client.get(MEDIA).json["total"]


# route -> (path, Content-Type, (body, where its whole first part ends), what it stores, count)
ROUTES = {
    "JSON create": (
        POSTS,
        "application/json",
        padded_json({"type": "personal", "content": "whole or nothing"}),
        posts_count,
        1,
    ),
    "JSON import": (
        IMPORT,
        "application/json",
        padded_json({"posts": [{"type": "personal", "content": f"row {n}"} for n in range(1000)]}),
        posts_count,
        1000,
    ),
    "CSV import": (IMPORT, "text/csv", csv_import(), posts_count, 1000),
    "media upload": (MEDIA, "image/png", png_then_more(), media_count, 1),
}


def head(client, path, content_type, length, idempotency_key):
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {client.key}\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {length}\r\n"
        f"Idempotency-Key: {idempotency_key}\r\n\r\n"
    ).encode()


def send_whole(client, path, content_type, body, idempotency_key):
    headers = {"Content-Type": content_type, "Idempotency-Key": idempotency_key}
    return client.post(path, body, headers=headers)


@pytest.mark.parametrize("route", ROUTES)
def test_a_body_cut_short_is_400_and_stores_nothing(server, client, route):
    path, content_type, (body, cut), count, stored = ROUTES[route]
    status, _, answer = exchange(
        server.port,
        head(client, path, content_type, len(body), "once") + body[:cut],
        half_close=True,
    )
    assert status == 400, answer
    error = json.loads(answer)["error"]
    assert error["code"] == "bad_request"
    assert f"ended after {cut} of the {len(body)} bytes" in error["message"]
    assert count(client) == 0
    whole = send_whole(client, path, content_type, body, "once")  # the same key, the whole body
    assert whole.status == 201, whole
    assert count(client) == stored


@pytest.mark.parametrize("route", ROUTES)
def test_a_client_that_hangs_up_mid_body_stores_nothing(server, client, route):
    path, content_type, (body, cut), count, stored = ROUTES[route]
    before = server.log_text().count(f"client sent {cut} of the {len(body)} bytes")
    exchange(
        server.port, head(client, path, content_type, len(body), "once") + body[:cut], hang_up=True
    )
    deadline = time.monotonic() + 10  # the worker reads to the end, then logs it
    while server.log_text().count(f"client sent {cut} of the {len(body)} bytes") == before:
        assert time.monotonic() < deadline, server.log_text()[-3000:]
        time.sleep(0.05)
    assert count(client) == 0
    assert "Traceback" not in server.log_text()
    whole = send_whole(client, path, content_type, body, "once")
    assert whole.status == 201, whole
    assert count(client) == stored


def test_a_body_of_exactly_its_length_is_taken(server, client):
    body = json.dumps({"type": "personal", "content": "exact"}).encode()
    status, _, answer = exchange(
        server.port, head(client, POSTS, "application/json", len(body), "exact") + body
    )
    assert status == 201, answer
    assert json.loads(answer)["content"] == "exact"
