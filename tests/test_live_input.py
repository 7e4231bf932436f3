"""Input that only a real server shows: chunked bodies and the access log."""

import base64
import re
import secrets
import time
import uuid
from urllib.parse import unquote

import pytest

from harness import ROOT, Client, create_key, serve
from harness.api import POSTS

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


def test_a_body_over_the_limit_by_its_length_is_answered_413_before_it_is_read(server):
    """The 413 comes from the Content-Length alone, and gunicorn closes the
    connection while the client is still sending (16 MiB: more than the
    loopback's socket buffers take at once): a client that reads the answer
    anyway (curl, urllib3, the harness) gets the envelope every time. Before
    the harness read it, the first of these got a broken pipe."""
    body = '{"type": "personal", "content": "' + "x" * (16 * MIB) + '"}'
    for _ in range(20):
        with Client(server.url, server.key, timeout=30) as client:
            r = client.post(POSTS, body, headers={"Content-Type": "application/json"})
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


def percent_encoded(text):
    return "".join(f"%{ord(c):02X}" for c in text)


# How a client may spell a key or a webhook secret it puts where it does not
# belong: the prefix in another case or encoded (once, twice, as %u00XX, or
# every character of it), and the secret after it encoded too.
SPELLINGS = {
    "as is": lambda prefix, secret: prefix + secret,
    "%5F": lambda prefix, secret: prefix.replace("_", "%5F") + secret,
    "%5f": lambda prefix, secret: prefix.replace("_", "%5f") + secret,
    "upper case": lambda prefix, secret: prefix.upper() + secret,
    "mixed case": lambda prefix, secret: prefix[:3].upper() + prefix[3:] + secret,
    "mixed case and %5F": lambda prefix, secret: prefix.title().replace("_", "%5F") + secret,
    "encoded twice": lambda prefix, secret: prefix.replace("_", "%255F") + secret,
    "%u005F": lambda prefix, secret: prefix.replace("_", "%u005F") + secret,
    "prefix all encoded": lambda prefix, secret: percent_encoded(prefix) + secret,
    "all encoded": lambda prefix, secret: percent_encoded(prefix + secret),
}
SECRETS = {
    "svc_live_": lambda: secrets.token_hex(20),  # 40 letters and digits, as a key
    "whsec_": lambda: base64.b64encode(secrets.token_bytes(32)).decode(),  # as webhook_secrets
}


def access_line(server, request_id):
    """The access line of the request, and the whole log once it is there."""
    deadline = time.monotonic() + 10  # gunicorn writes the line after the answer is sent
    while True:
        log = server.log_text()
        lines = [x for x in log.splitlines() if f"request_id={request_id}" in x and '"GET ' in x]
        if lines or time.monotonic() > deadline:
            assert len(lines) == 1, log[-3000:]
            return lines[0], log
        time.sleep(0.05)


@pytest.mark.parametrize("prefix", SECRETS)
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_no_key_or_secret_reaches_the_access_log_however_it_is_spelled(server, prefix, spelling):
    secret = SECRETS[prefix]()
    spelled = SPELLINGS[spelling](prefix, secret)
    request_id = f"spelling-{uuid.uuid4().hex}"
    headers = {"X-Request-ID": request_id, "Referer": f"https://app.example/?k={spelled}"}
    r = Client(server.url).get(
        f"{POSTS}?apikey={spelled}", headers={**headers, "User-Agent": f"agent {spelled}"}
    )
    assert r.status is not None
    line, log = access_line(server, request_id)
    assert f"?apikey={prefix}[redacted]" in line, line
    assert line.count(f"{prefix}[redacted]") == 3, line  # the URL, Referer and User-Agent
    decoded = unquote(unquote(log))  # as a reader of the log would decode it
    for where in (log, decoded):
        assert secret not in where and percent_encoded(secret) not in where
        assert secret[:12] not in where  # not even a part of it


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


def documented_request_id_pattern():
    """The pattern docs/api.md gives for the X-Request-ID a client may send."""
    text = (ROOT / "docs" / "api.md").read_text()
    return re.compile(re.search(r"the pattern `([^`]+)`", text).group(1))


def test_the_request_id_docs_say_which_ids_come_back(server):
    """Every printable ASCII character, and the length limits, as gunicorn
    and the app treat them, against what docs/api.md says."""
    pattern = documented_request_id_pattern()
    assert pattern.pattern == "[A-Za-z0-9._:/+=@-]{1,128}"
    anonymous = Client(server.url)
    sent = [f"id{chr(c)}x" for c in range(0x20, 0x7F)] + ["x" * 128, "x" * 129, "é"]
    for value in sent:
        r = anonymous.get("/health", headers={"X-Request-ID": value})
        back = r.headers["x-request-id"]
        if pattern.fullmatch(value):
            assert back == value, value
        else:
            assert back != value and str(uuid.UUID(back)) == back, (value, back)
