"""What the dashboard's browser tests share: the module's gunicorn server
and a user per test, a browser tab in Auckland time with its API requests
recorded, signing in, screenshots (at phone width with the layout checks)
and the checks every view must pass (assert_clean)."""

import contextlib
import time
import uuid
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from content_publishing.app import CORS_ALLOW_HEADERS
from harness import create_key, serve
from harness.api import API, DASHBOARD
from tests.browser_support import VIEWPORT, new_page, save_picture

ZONE = "Pacific/Auckland"
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1440, "height": 900}
READ_ONLY = ["posts:read", "articles:read"]
LONG_BRAND = "northwind-traders-international-holdings"
LONG_TEXT = (
    "Five things we learned shipping the spring release: plan the week on Monday, "
    "keep drafts short, schedule for mornings, and read every reply."
)
SERVER_ENV = {
    "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "1",  # a post can be due two seconds after scheduling
    "FLASK_WEBHOOK_ALLOW_PRIVATE": "1",  # the receiver listens on 127.0.0.1
}
# Headers the browser itself adds to a fetch() (and sec-*; Chromium adds
# Cache-Control: max-age=0 to some), which never ask for a preflight.
# Everything else the page sends must be a header the service's CORS settings allow.
BROWSER_HEADERS = {
    "accept",
    "accept-encoding",
    "accept-language",
    "cache-control",
    "connection",
    "content-length",
    "host",
    "origin",
    "pragma",
    "user-agent",
}


@contextlib.contextmanager
def dashboard_server(tmp_path_factory, env=None, port=None):
    """gunicorn for one test module (its `server` fixture), with SERVER_ENV
    and `env`, on `port` if given."""
    tmp = tmp_path_factory.mktemp("dashboard")
    env = {**SERVER_ENV, **(env or {})}
    with serve(tmp, workers=2, env=env, port=port, log=tmp / "gunicorn.log") as server:
        server.tmp = tmp
        yield server


def new_user(server):
    """A new user with a key that has every scope: (name, key)."""
    name = f"u-{uuid.uuid4().hex[:8]}"
    return name, create_key(server.database, user=name)


@contextlib.contextmanager
def tab(browser, server, viewport=None, **context_options):
    """A browser tab in Auckland time, English dates, its API requests
    recorded; `context_options` (has_touch, is_mobile) go to the context."""
    options = {"timezone_id": ZONE, "locale": "en-GB", **context_options}
    if viewport:
        options["viewport"] = viewport
    page = new_page(browser, **options)
    page.api_requests = []

    def record(request):
        if request.url.startswith(server.url + API + "/") and "/dashboard" not in request.url:
            page.api_requests.append(request)

    page.on("request", record)
    try:
        yield page
    finally:
        page.context.close()


def sign_in(page, server, key):
    page.goto(server.url + DASHBOARD)
    unfold_key_sign_in(page)
    page.fill("#key-input", key)
    page.click("#sign-in-button")
    page.locator("#keybar").wait_for()
    page.locator(".view h1").wait_for()


def unfold_key_sign_in(page):
    """People sign in with email and password; the key's form is folded
    under "Sign in with an API key" (docs/accounts.md)."""
    page.locator("#person-sign-in-form").wait_for()
    if page.locator("#key-sign-in").get_attribute("open") is None:
        page.click("#key-sign-in summary")


def suggested(options, expected, timeout=15):
    """Wait until the @ suggestions (`options`, a locator) are `expected`:
    the list follows the typing a moment later, and under load it may still
    show what "@" alone found (every page and person) when the last letter
    is in."""
    deadline = time.monotonic() + timeout
    while options.all_text_contents() != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert options.all_text_contents() == expected


def shoot(page, name):
    """A full-page picture in test-artifacts/ (browser_support.save_picture: when
    PICTURES is set). The passing notice is emptied first: fixed to the
    window, it would float over the middle of the page; and the page is
    scrolled to its top, where a sticky panel (the composer's preview) sits
    in its place rather than where the window last was. Both happen with or
    without the picture, so that a test runs the same either way."""
    page.evaluate(
        "() => { document.getElementById('notice').textContent = ''; window.scrollTo(0, 0); }"
    )
    save_picture(page, f"dashboard-{name}", full_page=True)


PHONE_HEADER_MAX = 130  # px of the 844: the name and buttons, the views, the key


def shoot_at_phone_width(page, name, ready, before=None, back=VIEWPORT):
    """At 390 px, once `ready` shows: nothing is wider than the screen, the
    header is short, its scopes folded; `before(page)`, then a picture; then
    the window is `back` to its width."""
    page.set_viewport_size(PHONE)
    page.locator(ready).first.wait_for()
    # `ready` may still be the wide page's (a chart redraws for the new width
    # a moment after the resize): give the reflow up to 5 s before measuring.
    fits = f"() => document.documentElement.scrollWidth <= {PHONE['width']}"
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # only where browsers run

    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(fits, timeout=5000)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{name}: the page is {width} px wide"
    header = page.locator("header.topbar").bounding_box()
    assert header["height"] <= PHONE_HEADER_MAX, f"{name}: the header is {header['height']} px tall"
    assert page.locator("#scope-list").is_hidden() and page.locator("#scopes-toggle").is_visible()
    session_buttons = [page.locator(f"#{id}").bounding_box() for id in ("refresh", "sign-out")]
    tops = {round(box["y"]) for box in session_buttons if box}
    assert len(tops) <= 1, f"{name}: Refresh and Sign out are on different rows"
    if before:
        before(page)
    shoot(page, name)
    page.set_viewport_size(back)


def check_days_stacked(page):
    """At phone width the week is one column of days, each below the last."""
    boxes = [day.bounding_box() for day in page.locator("section.day").all()]
    assert len(boxes) == 7
    for above, below in zip(boxes, boxes[1:], strict=False):
        assert above["y"] + above["height"] <= below["y"], (above, below)


def check_tab_strip(page):
    """At phone width the status tabs are one row that scrolls sideways within
    the screen: the current tab in view, and every tab reached with Tab
    scrolled into view with its focus ring."""
    strip = page.locator(".view nav.tabs ul")
    box = strip.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    tabs = strip.locator("a.tab")
    assert len({round(b["y"]) for b in (t.bounding_box() for t in tabs.all())}) == 1

    def outside(tab):
        """What of `tab` the strip hides ("" when it shows it whole)."""
        return tab.evaluate(
            """(tab) => {
                const a = tab.getBoundingClientRect(), b = tab.closest("ul").getBoundingClientRect();
                return a.left >= b.left - 1 && a.right <= b.right + 1 ? ""
                    : `${tab.textContent} at ${a.left}-${a.right} in ${b.left}-${b.right}`;
            }"""
        )

    assert not outside(strip.locator("a.tab[aria-current=page]"))
    page.locator(".view h1").focus()  # then Tab, as a person would, to the first tab
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('tab')"):
            break
    for i in range(tabs.count()):
        focused = strip.locator("a.tab:focus")
        hidden = outside(focused)
        assert not hidden, f"focused out of view: {hidden}"
        outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid", f"tab {i} has no visible focus"
        if i < tabs.count() - 1:
            page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # and back: no trap either way
    assert page.evaluate("() => document.activeElement.classList.contains('tab')")
    strip.locator("a.tab[aria-current=page]").focus()  # back in view for the picture
    page.evaluate("() => document.activeElement.blur()")


def at(seconds):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def local_input(moment):
    """What a datetime-local input holds for `moment` in the browser's zone."""
    return moment.astimezone(ZoneInfo(ZONE)).strftime("%Y-%m-%dT%H:%M")


def assert_clean(page, server):
    """Nothing was blocked by the page's CSP, nothing came from another host,
    no script error, and every API request carried only allowed headers."""
    problems = [
        line
        for line in page.console_lines
        if "Content Security Policy" in line or line.startswith("pageerror")
    ]
    assert not problems, problems
    outside = [u for u in page.seen_urls if not u.startswith(server.url + "/")]
    assert not outside, outside
    assert page.api_requests
    for request in page.api_requests:
        sent = {name for name in request.all_headers() if not name.startswith("sec-")}
        keyless = request.url == server.url + API + "/me" or "/invites/" in request.url
        if keyless and not sent & {"x-api-key", "cookie"}:
            continue  # is this browser signed in as a person? what is this invitation?
        assert "x-api-key" in sent, request.url
        assert sent - BROWSER_HEADERS <= set(CORS_ALLOW_HEADERS), (request.url, sent)
    stored = page.evaluate("() => JSON.stringify(localStorage)")
    assert "svc_live_" not in stored  # the key lives in sessionStorage only


def wait_until_delivered(page):
    """Refresh until the redelivery reads delivered (the dispatcher records
    the outcome just after the receiver has answered)."""
    for _ in range(40):
        page.click("#refresh")
        page.wait_for_timeout(250)
        if page.locator("tbody tr .outcome-delivered").count():
            return
    raise AssertionError("the redelivery never read delivered")


def patch_answered(response):
    """Any answer to a PATCH: a move taken (200) or refused (409, 412)."""
    return response.request.method == "PATCH"


def patched(response):
    return patch_answered(response) and response.ok


def drop(page, source, target, tries=3, answered=patched):
    """Drag `source` onto `target` until the dashboard sends its PATCH (and
    it is `answered` so): on a loaded machine a drag can begin on a card
    the calendar is drawing anew, and then nothing is dropped (and nothing
    sent, so a retry is safe)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # when a test drags

    for attempt in range(tries):
        try:
            with page.expect_response(answered, timeout=5000):
                page.drag_and_drop(source, target)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
