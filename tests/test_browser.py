"""Browser tests: CORS from a real browser, and the Swagger UI docs page.

Headless Chromium (tests/browser_support.py) talks to the real service under
gunicorn. The CORS tests load tests/browser/cors.html from a second loopback
origin (same host, other port, so cross-origin): its script calls the API with
fetch() and an X-API-Key header, which makes the browser send a real preflight.
"""

import contextlib
import functools
import json
import re
import threading
import time
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness import Client, create_key, serve
from tests.browser_support import save_picture

PAGES = Path(__file__).resolve().parent / "browser"
SCENARIO_TIMEOUT_MS = 30_000  # the whole cors.html scenario (each fetch has its own 5 s limit)


def documented_operations():
    """(METHOD, path) of every operation in the OpenAPI document, which the
    docs page must render, each once."""
    from content_publishing.app import create_app
    from content_publishing.http.apidoc import build_spec

    spec = build_spec(create_app({"TESTING": True, "DATABASE": ":memory:"}))
    return {(m.upper(), path) for path, operations in spec["paths"].items() for m in operations}


DOCS_OPERATIONS = documented_operations()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def page_server():
    """Serve tests/browser/ on its own loopback origin; yields that origin."""
    handler = functools.partial(_QuietHandler, directory=str(PAGES))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@contextlib.contextmanager
def service(tmp_path, cors_origins):
    """gunicorn (2 workers) with FLASK_CORS_ORIGINS, its access log, and a key."""
    log = tmp_path / "gunicorn.log"
    with serve(tmp_path, workers=2, env={"FLASK_CORS_ORIGINS": cors_origins}, log=log) as server:
        server.key = create_key(server.database)
        server.access_log = server.log_text
        yield server


def api_get(server, path):
    """GET from Python (no browser, no CORS), with the key."""
    with Client(server.url, server.key, timeout=10) as client:
        response = client.get(path)
    assert response.status == 200, response
    return response.json


def logged(server, pattern, timeout=5.0):
    """Wait (bounded) for a line matching `pattern` in the access log; return the log.

    gunicorn writes the line just after sending the response, so poll briefly.
    """
    deadline = time.monotonic() + timeout
    while True:
        log = server.access_log()
        if re.search(pattern, log) or time.monotonic() > deadline:
            assert re.search(pattern, log), f"no {pattern!r} in the access log:\n{log}"
            return log
        time.sleep(0.05)


def run_cors_page(page, page_origin, server):
    """Open cors.html against `server` and return what its script saw."""
    fragment = urllib.parse.urlencode({"api": server.url, "key": server.key})
    page.goto(f"{page_origin}/cors.html#{fragment}")
    try:
        page.wait_for_function("() => window.corsResult !== undefined", timeout=SCENARIO_TIMEOUT_MS)
    except Exception as exc:
        raise AssertionError(
            f"cors.html did not finish: {exc}\nconsole: {page.console_lines}"
        ) from exc
    result = page.evaluate("() => window.corsResult")
    assert "crashed" not in result, result
    assert result["origin"] == page_origin
    # The DOM shows the same result.
    assert page.get_attribute("#result", "data-state") == "done"
    assert json.loads(page.text_content("#result")) == result
    return result


def assert_allowed(result, server, page):
    """Every call of cors.html succeeded and the script could read what it needed."""
    context = f"\nresult: {json.dumps(result, indent=1)}\nconsole: {page.console_lines}"
    for step in ("health", "create", "list", "unauthorized", "patch", "stalePatch", "item"):
        assert result.get(step, {}).get("ok"), f"{step} failed" + context
        assert result[step]["type"] == "cors", context  # really cross-origin

    assert result["health"]["status"] == 200

    create = result["create"]
    assert create["status"] == 201, context
    post = create["body"]
    assert post["status"] == "Draft" and post["content"] == result["content"]
    assert post["version"] == 1
    assert create["etag"] == '"1"', "ETag not readable: not exposed?" + context
    assert create["location"] == f"/functions/v1/api-v2-posts-item/{post['id']}", context
    # X-Request-ID may be sent (preflight) and read (exposed): the client's own, else a new one.
    assert create["requestId"] == result["requestId"], context
    assert re.fullmatch(r"[0-9a-f-]{36}", result["list"]["requestId"] or ""), context
    # Headers that are not exposed stay hidden from the script.
    assert create["server"] is None, context

    listing = result["list"]
    assert listing["status"] == 200, context
    assert [p["id"] for p in listing["body"]["data"]] == [post["id"]]
    assert listing["body"]["total"] == 1

    # Errors carry the CORS headers too, so a browser client can read them.
    assert result["unauthorized"]["status"] == 401, context
    assert result["unauthorized"]["body"]["error"]["code"] == "unauthorized"

    patch = result["patch"]
    assert patch["status"] == 200, context
    assert patch["body"]["content"] == result["edited"]
    assert patch["body"]["version"] == 2 and patch["etag"] == '"2"', context

    stale = result["stalePatch"]
    assert stale["status"] == 412, context
    assert stale["body"]["error"]["code"] == "precondition_failed"
    assert stale["etag"] == '"2"', context

    assert result["item"]["status"] == 200 and result["item"]["etag"] == '"2"'
    assert result["item"]["body"]["content"] == result["edited"]

    # The service itself holds the change, and the browser did send preflights.
    stored = api_get(server, f"/functions/v1/api-v2-posts-item/{post['id']}")
    assert stored["content"] == result["edited"] and stored["version"] == 2
    logged(server, r'"OPTIONS /functions/v1/api-v2-posts HTTP/1\.1" 200')
    logged(server, r'"OPTIONS /functions/v1/api-v2-posts-item/[0-9a-f-]+ HTTP/1\.1" 200')


def test_cross_origin_client_uses_the_api(page, tmp_path):
    """Default settings (any origin): a page on another origin creates, lists and edits."""
    with page_server() as origin, service(tmp_path, "*") as server:
        assert origin != server.url
        result = run_cors_page(page, origin, server)
        assert_allowed(result, server, page)


@pytest.mark.parametrize("form", ["json", "comma"])
def test_listed_origin_is_allowed(page, tmp_path, form):
    """FLASK_CORS_ORIGINS naming the page's origin (among others) lets it in."""
    with page_server() as origin:
        origins = ["http://127.0.0.1:1", origin]
        setting = json.dumps(origins) if form == "json" else ",".join(origins)
        with service(tmp_path, setting) as server:
            result = run_cors_page(page, origin, server)
            assert_allowed(result, server, page)


def test_unlisted_origin_is_refused(page, tmp_path):
    """An origin missing from FLASK_CORS_ORIGINS gets nothing: the browser refuses."""
    with page_server() as origin:
        port = origin.rsplit(":", 1)[1]
        # Same host other port, and same port other host: neither is the page's origin.
        setting = json.dumps(["http://127.0.0.1:1", f"http://localhost:{port}"])
        with service(tmp_path, setting) as server:
            result = run_cors_page(page, origin, server)
            context = f"\nresult: {json.dumps(result, indent=1)}\nconsole: {page.console_lines}"
            for step in ("health", "create", "list", "unauthorized"):
                assert result[step]["ok"] is False, f"{step} was allowed" + context
                assert result[step]["error"] == "TypeError", context  # fetch's network error
            assert "patch" not in result

            # Not a server outage: the service is up, answered the preflight without
            # allowing the origin, and the browser never sent the POST.
            assert api_get(server, "/functions/v1/api-v2-posts")["total"] == 0
            logged(server, r'"OPTIONS /functions/v1/api-v2-posts HTTP/1\.1" \d{3}')
            # The simple GET was sent and answered; only its response was withheld.
            log = logged(server, r'"GET /health HTTP/1\.1" 200 .*HeadlessChrome')
            assert not re.search(r'"POST /functions/v1/api-v2-posts', log), log
            assert any("CORS policy" in line for line in page.console_lines), context


def test_docs_page_renders_and_tries_a_call(page, tmp_path):
    """Swagger UI renders every operation from the service alone, and can call the API."""
    with service(tmp_path, "*") as server:
        page.goto(f"{server.url}/functions/v1/docs")
        page.wait_for_selector(".opblock")
        page.wait_for_function(
            f"() => document.querySelectorAll('.opblock').length >= {len(DOCS_OPERATIONS)}"
        )
        operations = page.eval_on_selector_all(
            ".opblock .opblock-summary",
            """els => els.map(el => [
                el.querySelector('.opblock-summary-method').textContent.trim(),
                el.querySelector('.opblock-summary-path').getAttribute('data-path'),
            ])""",
        )
        assert {tuple(op) for op in operations} == DOCS_OPERATIONS, operations
        assert len(operations) == len(DOCS_OPERATIONS)
        assert "Content Publishing Service" in page.text_content(".info .title")

        save_picture(page, "docs", full_page=True)

        # Authorize with the key, then "Try it out" on GET /functions/v1/api-v2-posts.
        page.click(".auth-wrapper button.authorize")
        scheme = page.locator(".modal-ux .auth-container").filter(has_text="ApiKeyHeader")
        scheme.locator("input").fill(server.key)
        scheme.locator("button.authorize").click()
        scheme.locator("h6", has_text="Authorized").wait_for()  # Swagger UI took the key
        scheme.locator("button.btn-done").click()
        page.locator(".modal-ux").wait_for(state="detached")
        # The key lives in sessionStorage (gone with the tab), never in localStorage.
        stored = page.evaluate(
            "() => [JSON.stringify(localStorage), JSON.stringify(sessionStorage)]"
        )
        assert server.key not in stored[0] and server.key in stored[1]

        operation = page.locator("#operations-posts-list_posts")
        operation.locator(".opblock-summary").click()
        operation.locator("button.try-out__btn").click()
        operation.locator("button.execute").click()
        status = operation.locator(".live-responses-table .response .response-col_status")
        status.first.wait_for()
        assert status.first.text_content().strip() == "200", page.console_lines
        body = operation.locator(".live-responses-table .response-col_description pre")
        assert '"total": 0' in body.first.text_content()
        # The curl example shows the key: mask it in the artifact.
        save_picture(
            page, "docs-try-it-out", full_page=True, mask=[operation.locator(".curl-command")]
        )

        # The page's Content-Security-Policy let everything it needs through.
        blocked = [line for line in page.console_lines if "Content Security Policy" in line]
        assert not blocked, blocked

        # The page works offline: everything it loaded came from the service itself.
        outside = [
            u
            for u in page.seen_urls
            if not u.startswith(server.url + "/") and not u.startswith("data:")
        ]
        assert not outside, outside
        logged(server, r'"GET /functions/v1/api-v2-posts\?\S* HTTP/1\.1" 200')
