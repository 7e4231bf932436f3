"""deploy/nginx.conf in front of real gunicorn (marker `deploy`, `make test-deploy`).

The shipped site file runs with only its ports and log directory changed
(harness/nginx.py). Shown here: per-key and per-address limits answered
with the service's envelope, and refused requests never reaching gunicorn;
one budget for every spelling of a key that the service accepts, and none
for a key it refuses; the headers the API relies on passing both ways;
CORS preflights from a second origin; the body cap and nginx's own
refusals in the envelope; /metrics refused as an unknown path; the
client's address in gunicorn's log only through the proxy; no key in
nginx's log. Clients connect from different 127.x addresses so that their
log lines, and their per-address budgets, stay apart.
"""

import base64
import io
import json
import os
import re
import socket
import threading
import time
import urllib.parse
from types import SimpleNamespace

import pytest
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import NameObject, StreamObject

from harness import Client, Nginx, Response, create_key, nginx_binary, serve
from harness.api import API, ITEM, MEDIA, POSTS
from harness.nginx import SITE, limits
from tests import test_browser  # its CORS scenario, run through nginx (fixtures: browser_support)

pytestmark = [
    pytest.mark.deploy,
    pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (make nginx)"),
]

MIB = 1024 * 1024
PER_KEY_RATE, PER_KEY_BURST = limits()["cps_per_key"]  # whatever deploy/nginx.conf says
PER_ADDRESS_RATE, PER_ADDRESS_BURST = limits()["cps_per_address"]
REPORT_RATE, REPORT_BURST = limits()["cps_reports_per_key"]
PROXY = "127.0.0.1"  # the address nginx connects to gunicorn from


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """gunicorn trusting X-Forwarded-For from the proxy alone, and nginx in
    front. The metrics are on, so that the site is seen to refuse /metrics
    where the service would serve it."""
    tmp = tmp_path_factory.mktemp("deploy")
    env = {"FORWARDED_ALLOW_IPS": PROXY, "FLASK_METRICS": "1"}
    with serve(tmp, workers=2, env=env, log=tmp / "gunicorn.log") as gunicorn:
        with Nginx(gunicorn.port, tmp / "nginx") as nginx:
            yield SimpleNamespace(gunicorn=gunicorn, nginx=nginx, db=gunicorn.database)


def wait_for_log(read, pattern, count=1, timeout=5.0):
    """The log once `pattern` occurs `count` times (gunicorn and nginx write after answering)."""
    deadline = time.monotonic() + timeout
    while len(re.findall(pattern, read(), re.MULTILINE)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return read()


def raw_get(port, path, header_lines, source):
    """GET with `header_lines` sent byte for byte: http.client, like most
    clients, would tidy the whitespace these tests are about."""
    head = b"GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n" % path.encode()
    head += b"".join(line + b"\r\n" for line in header_lines) + b"\r\n"
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), 5, source_address=(source, 0)) as s:
        s.sendall(head)
        raw = b""
        while chunk := s.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (f.partition(":") for f in fields)}
    return Response(int(status_line.split()[1]), headers, body, None, started, time.monotonic())


def assert_envelope(r, status, code):
    assert r.status == status, r
    assert r.headers["content-type"] == "application/json", r.headers
    assert set(r.json) == {"error"}, r
    assert r.json["error"]["code"] == code and r.json["error"]["message"], r
    assert isinstance(r.json["error"]["details"], dict)
    return r


# ------------------------------------------------------------ limits


def test_a_key_over_its_limit_gets_429s_and_another_key_does_not(stack, capsys):
    nginx, log = stack.nginx, stack.gunicorn.log_text
    hasty = Client(nginx.url, create_key(stack.db, user="hasty"), source="127.0.0.11")
    calm = Client(nginx.url, create_key(stack.db, user="calm"), source="127.0.0.16")

    started = time.monotonic()
    sent = PER_KEY_BURST * 2
    answers = [hasty.get(POSTS, headers={"User-Agent": "hasty-burst"}) for _ in range(sent)]
    elapsed = time.monotonic() - started
    passed = [r for r in answers if r.status == 200]
    refused = [r for r in answers if r.status == 429]
    assert len(passed) + len(refused) == sent, {r.status for r in answers}
    # The burst and the first request pass, plus what the rate refills meanwhile.
    assert PER_KEY_BURST + 1 <= len(passed) <= PER_KEY_BURST + 2 + PER_KEY_RATE * elapsed
    for r in refused:
        assert_envelope(r, 429, "rate_limited")
        assert r.json["error"]["details"] == {} and r.headers["retry-after"] == "1"

    # The same key in the other header shares the budget; a second key has its own.
    bearer = hasty.get(POSTS, key="", headers={"Authorization": f"Bearer {hasty.key}"})
    assert_envelope(bearer, 429, "rate_limited")
    calm_statuses = [calm.get(POSTS, headers={"User-Agent": "calm"}).status for _ in range(10)]
    assert calm_statuses == [200] * 10

    # After Retry-After the key is served again.
    time.sleep(int(refused[0].headers["retry-after"]))
    again = hasty.get(POSTS, headers={"User-Agent": "hasty-again"})
    assert again.status == 200, again

    # gunicorn saw exactly the requests nginx let through.
    text = wait_for_log(log, "hasty-again")
    seen = text.count('"hasty-burst"')
    assert seen == len(passed)
    assert text.count('"calm"') == 10
    with capsys.disabled():
        print(
            f"\n\nPer-key limit ({PER_KEY_RATE:g} r/s, burst {PER_KEY_BURST}): {sent} requests from"
            f" one key in {elapsed:.2f} s: {len(passed)} passed, {len(refused)} got 429"
            f" rate_limited (Retry-After 1), gunicorn logged {seen}; a second key right after:"
            f" {calm_statuses.count(200)}/10 passed\n"
        )


def spellings(key, other):
    """Header lines the service reads as `key` (auth.key_from_headers: the
    value stripped of whitespace, `Bearer` in any case, X-API-Key first)."""
    return [
        [b"X-API-Key: " + key],
        [b"X-API-Key: \t" + key],
        [b"X-API-Key: \t\t" + key],
        [b"X-API-Key: " + key + b"\t"],
        [b"X-API-Key: \xa0" + key],  # Latin-1 no-break space: str.strip() removes it
        [b"X-API-Key: " + key + b"\x85"],  # and next line
        [b"Authorization: Bearer " + key],
        [b"Authorization: bearer " + key],
        [b"Authorization: BEARER " + key],
        [b"Authorization: Bearer " + key + b"\t"],
        [b"Authorization: \tBearer  " + key + b"\xa0"],
        [b"X-API-Key: " + key, b"Authorization: Bearer " + other],
    ]


def refused_spellings(key):
    """Header lines that carry `key` in a form the service refuses (401, or
    gunicorn's 400), or no key at all."""
    return [
        [b"Authorization: Bearer\t" + key],  # the scheme ends at a space only
        [b"Authorization: Bearer " + key + b" x"],
        [b"Authorization: Basic " + key],
        [b"X-API-Key: \x0b" + key],  # gunicorn refuses control characters
        [b"X-API-Key: nope", b"Authorization: Bearer " + key],  # a bad X-API-Key wins
        [b"X-API-Key: \t"],
    ]


def test_a_claims_batch_of_reports_passes_at_once(stack, capsys):
    """A claim hands over up to 50 posts; n8n sends their callbacks all at
    once. They have a budget of their own (cps_reports_per_key), so none is
    refused, and the key's everyday budget is still whole afterwards."""
    key = create_key(stack.db, user="automation", scopes=None)
    env = Client(stack.nginx.url, key, source="127.0.0.31")
    ids = [
        env.post(
            POSTS,
            {"type": "personal", "content": f"batch {n}", "scheduled_at": "2030-01-01T00:00:00Z"},
        ).json["id"]
        for n in range(10)
    ]  # created within the everyday burst
    time.sleep(10 / PER_KEY_RATE)  # and its budget refilled
    callbacks = [
        {
            "post_id": ids[n % len(ids)],
            "linkedin_post_id": f"urn:li:share:{n}",
        }
        for n in range(REPORT_BURST)
    ]
    barrier = threading.Barrier(len(callbacks), timeout=60)
    answers = [None] * len(callbacks)

    def report(i):
        mine = Client(stack.nginx.url, key, source="127.0.0.31")
        barrier.wait()
        answers[i] = mine.post(f"{API}/make-post-callback", callbacks[i])

    threads = [threading.Thread(target=report, args=(i,)) for i in range(len(callbacks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = [a.status for a in answers]
    assert 429 not in statuses, statuses  # a Draft's callback is a 409; none is rate limited
    everyday = [env.get(POSTS + "?limit=1").status for _ in range(PER_KEY_BURST)]
    assert everyday == [200] * PER_KEY_BURST
    over = [env.post(f"{API}/make-post-callback", callbacks[0]).status for _ in range(REPORT_BURST)]
    refused = [s for s in over if s == 429]
    assert refused, over  # the report budget is a budget too
    with capsys.disabled():
        print(
            f"\nReports ({REPORT_RATE:g} r/s, burst {REPORT_BURST}): {len(callbacks)} callbacks at"
            f" once, none refused; the key's {PER_KEY_BURST} everyday requests right after all passed\n"
        )


def test_every_spelling_of_a_key_shares_its_budget(stack, capsys):
    """Whitespace around a key, or the case of `Bearer`, earns it no second
    budget: nginx keys the limit on the key the service will read."""
    key = create_key(stack.db, user="spelled").encode()
    other = create_key(stack.db, user="spelled-other").encode()
    variants = spellings(key, other)
    for lines in variants:  # the service itself takes every one as the key
        assert raw_get(stack.gunicorn.port, POSTS, lines, "127.0.0.17").status == 200, lines

    def send(lines):
        return raw_get(stack.nginx.port, POSTS, lines, "127.0.0.17")

    spent = [send(variants[0]).status for _ in range(PER_KEY_BURST * 2)]
    assert 429 in spent, spent
    started = time.monotonic()
    answers = [(tuple(lines), send(lines)) for _ in range(2) for lines in variants]
    elapsed = time.monotonic() - started
    passed = [r for _, r in answers if r.status == 200]
    for _, r in answers:
        if r.status != 200:
            assert_envelope(r, 429, "rate_limited")
    # Only what the rate refills meanwhile may pass.
    assert len(passed) <= 1 + PER_KEY_RATE * elapsed, [(lines, r.status) for lines, r in answers]
    assert {lines for lines, r in answers if r.status == 429} == {tuple(v) for v in variants}
    with capsys.disabled():
        print(
            f"\nOne key's budget spent, then {len(answers)} requests in the {len(variants)}"
            f" spellings the service accepts as that key, in {elapsed:.2f} s:"
            f" {len(passed)} passed, {len(answers) - len(passed)} got 429\n"
        )


def test_one_address_without_keys_is_limited_too(stack, capsys):
    """Inventing a new key per request (or sending none) does not escape the limits."""
    client = Client(stack.nginx.url, source="127.0.0.12")
    sent = PER_ADDRESS_BURST * 2
    started = time.monotonic()
    statuses = [client.get("/health").status for _ in range(sent)]
    invented = client.get(POSTS, key="svc_live_" + "x" * 40)
    elapsed = time.monotonic() - started
    passed = statuses.count(200)
    assert statuses.count(429) == sent - passed > 0
    assert PER_ADDRESS_BURST + 1 <= passed <= PER_ADDRESS_BURST + 2 + PER_ADDRESS_RATE * elapsed
    assert_envelope(invented, 429, "rate_limited")
    with capsys.disabled():
        print(
            f"\nPer-address limit ({PER_ADDRESS_RATE:g} r/s, burst {PER_ADDRESS_BURST}): {sent}"
            f" requests without a key in {elapsed:.2f} s: {passed} passed, {sent - passed} got 429\n"
        )


def test_keys_the_service_refuses_are_limited_too(stack):
    """A key in a form the service refuses finds no way around the limits:
    each such form, sent again and again from an address of its own, is
    refused with 429 within that address's budget."""
    key = create_key(stack.db, user="misspelled").encode()
    for i, lines in enumerate(refused_spellings(key)):
        source = f"127.0.1.{i + 1}"
        assert raw_get(stack.gunicorn.port, POSTS, lines, source).status in (400, 401), lines
        started = time.monotonic()
        passed = []
        for _ in range(PER_ADDRESS_BURST * 2):
            r = raw_get(stack.nginx.port, POSTS, lines, source)
            if r.status == 429:
                break
            passed.append(r.status)
        assert_envelope(r, 429, "rate_limited")
        assert set(passed) <= {400, 401}, (lines, passed)
        bound = PER_ADDRESS_BURST + 2 + PER_ADDRESS_RATE * (time.monotonic() - started)
        assert len(passed) <= bound, (lines, len(passed))


# ------------------------------------------------------------ headers both ways


def test_api_headers_pass_both_ways(stack):
    key = create_key(stack.db, user="headers")
    client = Client(stack.nginx.url, key, source="127.0.0.13")
    idempotent = {"Idempotency-Key": "deploy-test-1"}
    body = {"type": "personal", "content": "through nginx"}
    created = client.post(POSTS, body, headers={**idempotent, "X-Request-ID": "deploy-trace-1"})
    assert created.status == 201 and created.headers["etag"] == '"1"', created
    assert created.headers["x-request-id"] == "deploy-trace-1"  # the client's id, both ways
    assert created.headers["location"] == ITEM + created.json["id"]
    assert client.post(POSTS, body, headers=idempotent).json["id"] == created.json["id"]
    conflict = client.post(POSTS, {**body, "content": "other"}, headers=idempotent)
    assert_envelope(conflict, 409, "conflict")

    # Authorization: Bearer alone, and If-Match both ways.
    bearer = Client(stack.nginx.url, source="127.0.0.13")
    auth = {"Authorization": f"Bearer {key}"}
    item = ITEM + created.json["id"]
    changed = bearer.patch(item, {"content": "v2"}, headers={**auth, "If-Match": '"1"'})
    assert changed.status == 200 and changed.headers["etag"] == '"2"', changed
    stale = bearer.patch(item, {"content": "v3"}, headers={**auth, "If-Match": '"1"'})
    assert_envelope(stale, 412, "precondition_failed")
    assert stale.headers["etag"] == '"2"'

    # X-API-Key reaches the service as sent: a bad one wins over a good Bearer.
    both = bearer.get(item, headers={**auth, "X-API-Key": key[:-1] + "Z"})
    assert_envelope(both, 401, "unauthorized")
    assert both.headers["www-authenticate"].startswith("Bearer")
    assert client.get(item).json["content"] == "v2"


def test_cors_preflight_from_a_second_origin(stack):
    origin = "http://127.0.0.1:9"  # any origin: the default FLASK_CORS_ORIGINS is *
    client = Client(stack.nginx.url, source="127.0.0.14")
    asked = "content-type, if-match, idempotency-key, x-api-key, authorization"
    preflight = client.request(
        "OPTIONS",
        ITEM + "00000000-0000-0000-0000-000000000000",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "PATCH",
            "Access-Control-Request-Headers": asked,
        },
    )
    assert preflight.status == 200, preflight
    assert preflight.headers["access-control-allow-origin"] in (origin, "*")
    assert "PATCH" in preflight.headers["access-control-allow-methods"]
    allowed = {h.strip() for h in preflight.headers["access-control-allow-headers"].split(",")}
    assert {h.strip() for h in asked.split(",")} <= allowed
    read = client.get(POSTS, key=create_key(stack.db, user="cors"), headers={"Origin": origin})
    assert read.status == 200 and read.headers["access-control-allow-origin"] in (origin, "*")
    assert {"ETag", "Location"} <= set(read.headers["access-control-expose-headers"].split(", "))


def test_browser_on_a_second_origin_uses_the_api_through_nginx(stack, page):
    """tests/test_browser.py's whole CORS scenario in Chromium, aimed at nginx."""
    server = SimpleNamespace(
        url=stack.nginx.url,
        key=create_key(stack.db, user="browser"),
        access_log=stack.gunicorn.log_text,
    )
    with test_browser.page_server() as origin:
        result = test_browser.run_cors_page(page, origin, server)
        test_browser.assert_allowed(result, server, page)


# ------------------------------------------------------------ body cap, nginx's own refusals


def test_body_cap_is_the_services(stack):
    client = Client(stack.nginx.url, create_key(stack.db, user="bodies"), timeout=30)
    document = b'{"type": "personal", "content": "one whole MiB"}'
    whole = document + b" " * (MIB - len(document))
    assert client.post(POSTS, whole, headers={"Content-Type": "application/json"}).status == 201
    over = client.post(POSTS, whole + b" ", headers={"Content-Type": "application/json"})
    assert_envelope(over, 413, "payload_too_large")
    chunked = client.post(POSTS, chunks=[whole[: MIB // 2], whole[MIB // 2 :], b" "])
    assert_envelope(chunked, 413, "payload_too_large")
    assert client.get(POSTS + "?limit=1").json["total"] == 1
    log = wait_for_log(stack.nginx.access_log, r'"POST /functions/v1/api-v2-posts HTTP/1.1" 413', 2)
    assert len(re.findall(r" 413 ", log)) >= 2
    assert " 413 " not in stack.gunicorn.log_text()  # refused before gunicorn


def big_pdf(size):
    """A one-page PDF of about `size` bytes: its drawing is a comment that long."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=612, height=792)
    drawing = StreamObject()
    drawing.set_data(b"%" + b"x" * size + b"\n")
    page[NameObject("/Contents")] = writer._add_object(drawing)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def noisy_photo(side=1200):
    """A PNG of random pixels, which no compression shrinks: about 4 MB."""
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, "PNG")
    return out.getvalue()


def test_media_uploads_take_what_the_service_takes(stack):
    """A 20 MB PDF and a 4 MB photo pass nginx (1 MiB elsewhere); a body
    over the documents' cap is refused by nginx, naming that cap; an image
    over its own cap (20 MiB) is refused by the service."""
    client = Client(stack.nginx.url, create_key(stack.db, user="uploads"), timeout=60)
    document, photo = big_pdf(20 * 1000 * 1000), noisy_photo()
    assert len(document) > 20 * 1000 * 1000 and 4 * 1000 * 1000 < len(photo) < 5 * MIB
    made = client.post(MEDIA, document, headers={"Content-Type": "application/pdf"})
    assert made.status == 201, made
    assert made.json["pages"] == 1 and made.json["bytes"] > 20 * 1000 * 1000
    made = client.post(MEDIA, photo, headers={"Content-Type": "image/png"})
    assert made.status == 201, made
    assert (made.json["width"], made.json["height"]) == (1200, 1200)
    over = client.post(MEDIA, chunks=[b"%PDF-" + b"x" * MIB] * 101)
    assert_envelope(over, 413, "payload_too_large")
    assert "104857600 bytes" in over.json["error"]["message"]
    image_over = client.post(
        MEDIA, b"\x89PNG" + b"x" * (20 * MIB), headers={"Content-Type": "image/png"}
    )
    assert_envelope(image_over, 413, "payload_too_large")
    assert "20971520 bytes" in image_over.json["error"]["message"]  # the service's own
    elsewhere = client.post(POSTS, b" " * (MIB + 1), headers={"Content-Type": "application/json"})
    assert_envelope(elsewhere, 413, "payload_too_large")
    assert "1048576 bytes" in elsewhere.json["error"]["message"]
    assert client.get(MEDIA).json["total"] == 2


@pytest.mark.parametrize(
    "request_head, status, code",
    [
        (b"GET /health?" + b"x" * 9000 + b" HTTP/1.1\r\nHost: a\r\n\r\n", 414, "uri_too_long"),
        (
            b"GET /health HTTP/1.1\r\nHost: a\r\nX-Big: " + b"x" * 9000 + b"\r\n\r\n",
            431,
            "headers_too_large",
        ),
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "bad_request"),
        (b"GET /_cps_errors/429 HTTP/1.1\r\nHost: a\r\n\r\n", 404, "not_found"),
    ],
)
def test_nginx_answers_its_own_refusals_in_the_envelope(stack, request_head, status, code):
    with socket.create_connection(("127.0.0.1", stack.nginx.port), timeout=5) as s:
        s.sendall(request_head)
        raw = b""
        while chunk := s.recv(65536):
            raw += chunk
            if b"\r\n\r\n" in raw and raw.rstrip().endswith(b"}"):
                break
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(status).encode(), raw[:500]
    assert b"content-type: application/json" in head.lower()
    error = json.loads(body)["error"]
    assert error["code"] == code and error["details"] == {}


# ------------------------------------------------------------ /metrics


METRICS_PATHS = ("/metrics", "/metrics?format=text", "//metrics", "/%6detrics", "/x/../metrics")


def test_metrics_are_refused_as_an_unknown_path(stack):
    """The service serves /metrics (FLASK_METRICS=1) without a key, for this
    host's monitoring; through the site it is a 404 and gunicorn never sees it."""
    direct = Client(stack.gunicorn.url, source="127.0.0.19").get("/metrics")
    assert direct.status == 200 and b"cps_http_requests_total" in direct.body, direct
    client = Client(stack.nginx.url, source="127.0.0.19")
    for path in METRICS_PATHS:
        assert_envelope(client.get(path, headers={"User-Agent": "scraper"}), 404, "not_found")
    head = client.request("HEAD", "/metrics", headers={"User-Agent": "scraper"})
    assert head.status == 404, head
    assert client.get("/health", headers={"User-Agent": "scraper-done"}).status == 200
    assert '"scraper"' not in wait_for_log(stack.gunicorn.log_text, "scraper-done")


def test_metrics_open_to_an_allowed_address(stack, tmp_path):
    """The site's documented opening: an `allow` line for a Prometheus
    elsewhere lets that address, and only it, scrape through nginx."""
    shipped = SITE.read_text()
    assert shipped.count("        deny all;\n") == 1
    site = tmp_path / "site.conf"
    site.write_text(
        shipped.replace("        deny all;\n", "        allow 127.0.0.21;\n        deny all;\n")
    )
    with Nginx(stack.gunicorn.port, tmp_path / "nginx", site=site) as nginx:
        scraped = Client(nginx.url, source="127.0.0.21").get("/metrics")
        assert scraped.status == 200 and b"cps_http_requests_total" in scraped.body, scraped
        other = Client(nginx.url, source="127.0.0.22").get("/metrics")
        assert_envelope(other, 404, "not_found")


# ------------------------------------------------------------ addresses and logs


def test_gunicorn_logs_the_client_address_only_through_the_proxy(stack):
    key = create_key(stack.db, user="addresses")
    spoof = {"X-Forwarded-For": "203.0.113.7"}
    through = Client(stack.nginx.url, key, source="127.0.0.3")
    assert through.get(POSTS, headers={**spoof, "User-Agent": "via-nginx"}).status == 200
    direct = Client(stack.gunicorn.url, key, source="127.0.0.2")
    assert direct.get(POSTS, headers={**spoof, "User-Agent": "direct"}).status == 200
    log = wait_for_log(stack.gunicorn.log_text, r'"(via-nginx|direct)"$', 2)
    lines = {ua: line for line in log.splitlines() for ua in ("via-nginx", "direct") if ua in line}
    assert lines["via-nginx"].startswith("127.0.0.3 "), lines  # the client, not nginx or the spoof
    assert lines["direct"].startswith("127.0.0.2 "), lines  # not trusted: its own address
    assert "203.0.113.7" not in log
    assert wait_for_log(stack.nginx.access_log, "via-nginx").count("127.0.0.3 ") >= 1


def test_no_key_reaches_nginxs_access_log(stack):
    key = create_key(stack.db, user="logs")
    client = Client(stack.nginx.url, source="127.0.0.15")
    basic = base64.b64encode(f"{key}:".encode()).decode()
    encoded = key.replace("_", "%5F")
    sent = [
        (f"{POSTS}?apikey={urllib.parse.quote(key)}", {}),
        (f"{POSTS}?apikey={encoded}", {}),
        (f"{POSTS}?token={encoded.lower()}", {}),
        (f"{POSTS}?apikey=SVC_LIVE_{key[len('svc_live_') :]}", {}),
        (POSTS, {"Authorization": f"Basic {basic}"}),
        (POSTS, {"X-API-Key": key, "Referer": f"https://app.example/?k={key}"}),
        ("/health", {"User-Agent": f"bot {key}"}),
    ]
    for path, headers in sent:
        assert client.get(path, headers=headers).status is not None
    log = wait_for_log(stack.nginx.access_log, r"\[redacted\]", 3)
    assert key not in log and key[len("svc_live_") :] not in log
    assert key[len("svc_live_") :].lower() not in log
    assert log.count('"GET [redacted] HTTP/1.1"') >= 4
