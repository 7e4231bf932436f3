"""The publishing dashboard (/functions/v1/dashboard) in headless Chromium
against real gunicorn, with the automation's side (claims, callbacks, failure
reports) played through the API by harness.Client.

The browser runs in Pacific/Auckland, so that a post's local day differs
from its UTC day and the calendar is seen to use the browser's time zone.
Screenshots of every view, at 1280 px and at phone width, land in
test-artifacts/dashboard-*.png.
"""

import contextlib
import re
import uuid
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from blueprints.dashboard import FILES
from content_publishing.app import CORS_ALLOW_HEADERS
from harness import Answer, Client, Dispatcher, Receiver, create_key, flask_cli, rfc3339, serve
from tests.browser_support import ARTIFACTS, VIEWPORT, new_page

ZONE = "Pacific/Auckland"
PHONE = {"width": 390, "height": 844}
API = "/functions/v1"
POSTS = f"{API}/api-v2-posts"
ITEM = f"{API}/api-v2-posts-item/"
DASHBOARD = f"{API}/dashboard"
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dashboard")
    with serve(tmp, workers=2, env=SERVER_ENV, log=tmp / "gunicorn.log") as server:
        server.tmp = tmp
        yield server


@pytest.fixture
def user(server):
    """A new user per test, with a key that has every scope: (name, key)."""
    name = f"u-{uuid.uuid4().hex[:8]}"
    return name, create_key(server.database, user=name)


@contextlib.contextmanager
def tab(browser, server, viewport=None):
    """A browser tab in Auckland time, English dates, its API requests recorded."""
    options = {"timezone_id": ZONE, "locale": "en-GB"}
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
    page.fill("#key-input", key)
    page.click("#sign-in-button")
    page.locator("#keybar").wait_for()
    page.locator(".view h1").wait_for()


def shoot(page, name):
    """A full-page picture in test-artifacts/. The passing notice is emptied
    first: fixed to the window, it would float over the middle of the page."""
    page.evaluate("() => { document.getElementById('notice').textContent = ''; }")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{name}.png"), full_page=True)


PHONE_HEADER_MAX = 130  # px of the 844: the name and buttons, the views, the key


def shoot_at_phone_width(page, name, ready, before=None):
    """At 390 px, once `ready` shows: nothing is wider than the screen, the
    header is short, its scopes folded; `before(page)`, then a picture."""
    page.set_viewport_size(PHONE)
    page.locator(ready).first.wait_for()
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
    page.set_viewport_size(VIEWPORT)


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
        assert "x-api-key" in sent, request.url
        assert sent - BROWSER_HEADERS <= set(CORS_ALLOW_HEADERS), (request.url, sent)
    stored = page.evaluate("() => JSON.stringify(localStorage)")
    assert "svc_live_" not in stored  # the key lives in sessionStorage only


@pytest.mark.parametrize("lead", [60, 900, 0])
def test_the_page_carries_the_services_lead_time(app, client, lead):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = lead
    html = client.get(DASHBOARD).get_data(as_text=True)
    assert f'<meta name="schedule-min-lead-seconds" content="{lead}">' in html


def test_page_needs_no_key_and_sends_a_strict_policy(client):
    page = client.get(DASHBOARD)
    assert page.status_code == 200 and "Publishing dashboard" in page.get_data(as_text=True)
    csp = page.headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    assert "script-src 'self';" in csp and "style-src 'self';" in csp
    assert "connect-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["X-Content-Type-Options"] == "nosniff"

    # No inline script or style anywhere, and nothing from another host.
    for path in FILES.rglob("*"):
        if path.suffix not in (".html", ".js", ".css"):
            continue
        text = path.read_text()
        assert not re.search(r"https?://", text), path
        for blocked in (".innerHTML", "style=", 'setAttribute("style"', "eval("):
            assert blocked not in text, (path, blocked)
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), path
    for asset, kind in (
        ("dashboard.css", "text/css"),
        ("js/main.js", "text/javascript"),
        ("js/views/post.js", "text/javascript"),
        ("icon.svg", "image/svg+xml"),
    ):
        r = client.get(f"{DASHBOARD}/assets/{asset}")
        assert r.status_code == 200 and r.mimetype == kind, asset
    assert client.get(f"{DASHBOARD}/assets/../../app.py").status_code == 404
    assert client.get(f"{DASHBOARD}/assets/nothing.js").status_code == 404


def test_schedule_watch_it_go_out_and_fail(browser, server, user):
    """Create and schedule in the page, see the post on its local day, watch it
    become due, claimed (Publishing) and Published with its live link; a second
    post fails with its error; retry, unschedule and delete through the page."""
    _, key = user
    api = Client(server.url, key)
    with tab(browser, server) as page:
        sign_in(page, server, key)
        granted = page.locator("#scope-list .scope-granted")
        assert granted.count() == 6, page.text_content("#scope-list")

        # Create a brand post as a draft.
        page.get_by_role("link", name="New post").click()
        page.check("input[name=type][value=brand]")
        page.fill("#brand_id", "acme-corp")
        page.fill("#content", "Our spring launch is live: see what is new.")
        shoot(page, "post-form")
        page.fill("#media_urls", "ftp://files.example/launch.png")
        page.get_by_role("button", name="Save draft").click()
        alert = page.locator(".form-problem [role=alert]")
        alert.wait_for()  # the service's 400, in its own words, naming the field
        assert "media_urls.0" in alert.text_content()
        assert alert.text_content().count("Must be an absolute http or https URL") == 1
        assert page.get_attribute("#media_urls", "aria-invalid") == "true"
        page.fill("#media_urls", "https://files.example/launch.png")
        page.get_by_role("button", name="Save draft").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        post_id = page.url.rsplit("/", 1)[1]
        page.locator("[data-field=version]").wait_for()
        assert page.text_content("[data-field=version]") == "1"

        # The picker opens under its button, which shows as pressed while it
        # is open; Cancel closes it and gives focus back to the button.
        opener = page.get_by_role("button", name="Schedule…")
        assert opener.get_attribute("aria-expanded") == "false"
        opener.click()
        assert opener.get_attribute("aria-expanded") == "true"
        page.get_by_role("button", name="Cancel").click()
        assert page.locator(".schedule-panel").count() == 0
        assert opener.get_attribute("aria-expanded") == "false"
        assert page.evaluate("() => document.activeElement.textContent") == "Schedule…"
        # The picker refuses a time inside the lead time without sending it.
        opener.click()
        patches_before = [r for r in page.api_requests if r.method == "PATCH"]
        # The server's lead time (1 s here) reached the page.
        assert "At least 1 second from now" in page.text_content("#schedule-hint")
        page.fill("#schedule-at", local_input(datetime.now(UTC) - timedelta(minutes=5)))
        page.click(".schedule-panel button[type=submit]")
        page.locator(".schedule-panel [role=alert]", has_text="at least 1 second").wait_for()
        assert [r for r in page.api_requests if r.method == "PATCH"] == patches_before
        panel = page.locator(".schedule-panel").bounding_box()
        content = page.locator(".content-block").bounding_box()
        assert (panel["x"], panel["width"]) == (content["x"], content["width"])  # aligned
        shoot(page, "schedule-too-soon")

        # Two days ahead at 08:30 in Auckland: the previous day in UTC.
        day = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=2)).replace(
            hour=8, minute=30, second=0, microsecond=0
        )
        page.fill("#schedule-at", day.strftime("%Y-%m-%dT%H:%M"))
        page.click(".schedule-panel button[type=submit]")
        page.locator(".view .badge.status", has_text="Scheduled").wait_for()
        assert page.text_content("[data-field=version]") == "2"
        stored = api.get(ITEM + post_id).json
        assert stored["status"] == "Scheduled"
        assert stored["scheduled_at"] == rfc3339(day)

        # Two more that day: a personal post, and one for a brand with a long name.
        neighbours = []
        for hour, body in (
            (12, {"type": "personal", "content": LONG_TEXT}),
            (17, {"type": "brand", "brand_id": LONG_BRAND, "content": "Hiring: three roles."}),
        ):
            made = api.post(POSTS, body).json
            when = rfc3339(day.replace(hour=hour, minute=15))
            assert api.patch(ITEM + made["id"], {"status": "Scheduled", "scheduled_at": when}).ok
            neighbours.append(made["id"])

        # In the calendar on its local day, brand named, UTC on hover.
        page.get_by_role("link", name="Show in calendar").click()
        column = page.locator(f"section.day[data-date='{day:%Y-%m-%d}']")
        card = column.locator(f"[data-post-id='{post_id}']")
        card.wait_for()
        assert "type-brand" in card.get_attribute("class")
        assert "acme-corp" in card.text_content() and "08:30" in card.text_content()
        utc_day = day.astimezone(UTC)
        title = card.locator("time").get_attribute("title")
        assert f"{utc_day:%H:%M}" in title and "UTC" in title and f" {utc_day.day} " in title
        assert utc_day.day != day.day  # the local day is not the UTC day
        # Personal and brand side by side, in order of time; a long brand name
        # is cut short on one line, whole in the pill's tooltip.
        cards = column.locator(".post-card")
        assert [c.get_attribute("data-post-id") for c in cards.all()] == [post_id, *neighbours]
        assert "type-personal" in cards.nth(1).get_attribute("class")
        pill = cards.nth(2).locator(".badge.type")
        assert LONG_BRAND in pill.get_attribute("title") and LONG_BRAND in pill.text_content()
        assert pill.bounding_box()["height"] < 26  # one line, not broken mid-word
        assert pill.locator("strong").evaluate("(el) => el.scrollWidth > el.clientWidth")
        # A day with posts is wide enough to read; the empty ones give it room.
        assert column.bounding_box()["width"] >= 240, column.bounding_box()
        shoot(page, "calendar")
        page.goto(f"{server.url}{DASHBOARD}#/queue/Scheduled")
        page.locator(f"tr[data-post-id='{neighbours[-1]}']").wait_for()
        assert page.locator("tbody tr").count() == 3
        shoot(page, "queue-scheduled")

        # The automation's side: move it two seconds ahead, with a second post.
        assert api.patch(ITEM + post_id, {"scheduled_at": at(2)}).status == 200
        other = api.post(POSTS, {"type": "personal", "content": "Weekly digest #42"}).json
        r = api.patch(ITEM + other["id"], {"status": "Scheduled", "scheduled_at": at(2)})
        assert r.status == 200, r

        # Watch it become due, then claimed.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post_id}")
        page.locator(".state-note", has_text="due now").wait_for()
        claimed = api.post(f"{API}/api-v2-posts-claim", {"limit": 10, "lease_seconds": 600}).json
        assert {p["id"] for p in claimed["data"]} == {post_id, other["id"]}
        page.get_by_role("button", name="Refresh").click()
        page.locator(".view .badge.status", has_text="Publishing").wait_for()
        assert re.search(r"\d+ min( \d+ s)? left", page.text_content(".state-note"))
        assert page.locator(".view .actions button").count() == 0  # in the automation's hands
        shoot(page, "post-publishing")
        page.goto(f"{server.url}{DASHBOARD}#/queue/Publishing")
        row = page.locator(f"tr[data-post-id='{post_id}']")
        row.wait_for()
        assert re.search(r"\d+ min( \d+ s)? left", row.text_content())
        assert page.text_content(".tab[aria-current=page] .tab-count") == "2"
        assert page.title() == "Queue · Publishing dashboard"
        shoot(page, "queue-publishing")

        # Published after the callback, with the live link; the other one failed.
        live = "https://www.linkedin.com/feed/update/urn:li:share:7012345678901234567"
        r = api.post(
            f"{API}/make-post-callback",
            {
                "post_id": post_id,
                "linkedin_post_id": "urn:li:share:7012345678901234567",
                "live_url": live,
            },
        )
        assert r.status == 200, r
        error = "LinkedIn answered 429: the daily limit for this member is reached."
        r = api.patch(ITEM + other["id"], {"status": "Failed", "last_error": error})
        assert r.status == 200, r
        page.click("a.tab[href='#/queue/Published']")
        row = page.locator(f"tr[data-post-id='{post_id}']")
        row.wait_for()
        assert row.locator("a", has_text="View live post").get_attribute("href") == live
        shoot(page, "queue-published")
        page.click("a.tab[href='#/queue/Failed']")
        page.locator(f"tr[data-post-id='{other['id']}']", has_text=error).wait_for()
        shoot(page, "queue-failed")

        # Its page shows the error; retry it, unschedule it, delete it.
        page.click(f"tr[data-post-id='{other['id']}'] a")
        page.locator(".state-failed", has_text=error).wait_for()
        shoot(page, "post-failed")
        page.get_by_role("button", name="Retry…").click()
        page.fill("#schedule-at", local_input(datetime.now(UTC) + timedelta(hours=3)))
        page.click(".schedule-panel button[type=submit]")
        page.locator(".view .badge.status", has_text="Scheduled").wait_for()
        page.get_by_role("button", name="Unschedule").click()
        page.locator(".view .badge.status", has_text="Draft").wait_for()
        # The pressed button is gone with the old version: focus starts at the top.
        assert page.evaluate("() => document.activeElement.tagName") == "H1"
        page.get_by_role("button", name="Delete").click()
        page.click("#confirm-yes")
        page.wait_for_url(re.compile(r"#/queue/Draft$"))
        assert api.get(ITEM + other["id"]).status == 404
        changes = [r for r in page.api_requests if r.method in ("PATCH", "DELETE")]
        assert changes and all(r.headers.get("if-match") for r in changes)
        creates = [
            r
            for r in page.api_requests
            if r.method == "POST" and r.post_data != "[]" and not r.url.endswith("-preview")
        ]  # the preview is a dry run that stores nothing
        assert creates and all(r.headers.get("idempotency-key") for r in creates)

        # At phone width: the published post with its live link, this week, the queue.
        for view, ready, name in (
            (f"#/posts/{post_id}", ".state-published a", "post-published-phone"),
            ("#/calendar", f"[data-post-id='{post_id}']", "calendar-phone"),
            ("#/queue/Published", f"tr[data-post-id='{post_id}']", "queue-phone"),
        ):
            page.goto(f"{server.url}{DASHBOARD}{view}")
            check = {"calendar-phone": check_days_stacked, "queue-phone": check_tab_strip}
            shoot_at_phone_width(page, name, ready, check.get(name))
        assert_clean(page, server)


def test_an_open_view_refreshes_by_itself(browser, server, user):
    """What the automation does shows up without pressing Refresh: the page
    reads again every 10 seconds (the browser's clock is run forward)."""
    _, key = user
    api = Client(server.url, key)
    with tab(browser, server) as page:
        page.clock.install()
        sign_in(page, server, key)
        page.get_by_role("link", name="Queue", exact=True).click()
        page.click("a.tab[href='#/queue/Draft']")
        page.locator(".empty", has_text="No draft posts.").wait_for()
        shoot(page, "queue-empty")
        post = api.post(POSTS, {"type": "personal", "content": "Made elsewhere"}).json
        page.clock.run_for(10_500)
        page.locator(f"tr[data-post-id='{post['id']}']").wait_for()
        assert page.text_content(".tab[aria-current=page] .tab-count") == "1"


def test_queue_pages_through_the_api_with_counts_from_total(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    for n in range(23):
        assert api.post(POSTS, {"type": "personal", "content": f"Draft {n}"}).status == 201
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        pager = page.locator(".view .pager")
        pager.locator("text=1–20 of 23").wait_for()
        assert page.locator("tbody tr").count() == 20
        assert page.text_content(".tab[aria-current=page] .tab-count") == "23"
        shoot(page, "queue-draft")
        pager.get_by_role("link", name="Next ›").click()
        pager.locator("text=21–23 of 23").wait_for()
        assert page.locator("tbody tr").count() == 3
        assert "offset=20" in page.url
        drafts = [r for r in page.api_requests if "status=Draft&limit=20" in r.url]
        assert drafts[-1].url.endswith("status=Draft&limit=20&offset=20")


def test_keyboard_reaches_everything_with_visible_focus(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    post = api.post(POSTS, {"type": "personal", "content": "Keyboard first"}).json
    assert api.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": at(600)}).ok
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.reload()  # signed in again from sessionStorage; focus starts at the top
        page.locator(f"[data-post-id='{post['id']}']").wait_for()
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => [document.activeElement.textContent, getComputedStyle(document.activeElement).outlineStyle]"
        )
        assert focused == ["Skip to content", "solid"], focused
        page.keyboard.press("Enter")
        assert page.evaluate("() => document.activeElement.tagName") == "H1"
        for _ in range(30):  # tab to the post's card in the calendar and open it
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.dataset.postId") == post["id"]:
                break
        else:
            pytest.fail("the post's card cannot be reached with Tab")
        outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid"
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(f"#/posts/{post['id']}$"))
        page.wait_for_function("() => document.activeElement.textContent === 'Post'")
        # Every form control has a label.
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#content").wait_for()
        unlabelled = page.evaluate(
            """() => [...document.querySelectorAll('input, textarea, select')]
                .filter(el => !el.labels.length && !el.getAttribute('aria-label'))
                .map(el => el.id || el.name)"""
        )
        assert not unlabelled, unlabelled


def test_refused_keys_are_explained_and_forgotten(browser, server, user):
    """A malformed key is refused at sign-in; a key revoked while the page is
    open sends the person back to sign in, with the service's reason."""
    _, key = user
    with tab(browser, server) as page:
        page.goto(server.url + DASHBOARD)
        page.locator("#key-input:focus").wait_for()
        shoot(page, "sign-in")
        page.fill("#key-input", "svc_live_short")
        page.get_by_role("button", name="Sign in").click()
        alert = page.locator("#sign-in-problem [role=alert]")
        alert.wait_for()
        assert "The service does not accept this key." in alert.text_content()
        assert "The API key is malformed." in alert.text_content()

        sign_in(page, server, key)
        # Scopes come from GET /me: signing in sends no probing writes.
        assert [r.method for r in page.api_requests if r.method != "GET"] == []
        assert [r for r in page.api_requests if r.url == server.url + API + "/me"]
        # The docs page reads the same sessionStorage item.
        assert page.evaluate("() => sessionStorage.getItem('cps.apiKey')") == key
        flask_cli(server.database, "keys", "revoke", key)
        page.get_by_role("button", name="Refresh").click()
        alert.wait_for()
        assert "The API key has been revoked." in alert.text_content()
        assert page.locator("#keybar").is_hidden() and page.locator(".view").count() == 0
        assert page.evaluate("() => sessionStorage.getItem('cps.apiKey')") is None
        shoot(page, "key-revoked")


def test_read_only_key_sees_no_edit_actions_and_a_forced_edit_is_explained(browser, server, user):
    name, key = user
    post = Client(server.url, key).post(POSTS, {"type": "personal", "content": "Look only"}).json
    read_only = create_key(server.database, user=name, scopes=READ_ONLY)
    with tab(browser, server) as page:
        sign_in(page, server, read_only)
        granted = page.locator("#scope-list .scope-granted").all_text_contents()
        assert [t.split(" (")[0] for t in granted] == READ_ONLY
        visible = page.locator("#views-nav li:not([hidden]) a").all_text_contents()
        assert visible == ["Calendar", "Queue", "Channels", "Articles"]
        assert page.locator("text=New post").count() == 0

        page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")
        page.locator("[data-field=version]").wait_for()
        assert page.locator(".view .actions").count() == 0
        for action in ("Edit", "Schedule…", "Delete"):
            assert page.locator(f".view >> text={action}").count() == 0, action
        assert "lacks posts:write and posts:publish" in page.text_content(".action-bar")
        shoot(page, "read-only-post")
        page.get_by_role("link", name="Articles", exact=True).click()
        page.locator(".view h1", has_text="Articles").wait_for()
        assert page.get_by_role("link", name="New article").count() == 0

        # Forced: the edit address itself. The service refuses; the page says why.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}/edit")
        page.locator(".alert-warning", has_text="lacks posts:write").wait_for()
        page.fill("#content", "Changed without the scope")
        page.get_by_role("button", name="Save changes").click()
        alert = page.locator(".form-problem [role=alert]")
        alert.wait_for()
        text = alert.text_content()
        assert "This key is not allowed to do that." in text
        assert "This API key lacks the scope posts:write." in text  # the envelope's message
        assert "It needs the posts:write scope" in text
        shoot(page, "read-only-forced-edit")

        # At phone width: the scopes fold behind a button that the keyboard opens.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")

        def open_scopes(page):
            toggle = page.locator("#scopes-toggle")
            assert toggle.text_content() == "2 of 6 scopes"
            toggle.focus()
            page.keyboard.press("Enter")
            assert toggle.get_attribute("aria-expanded") == "true"
            assert page.locator("#scope-list").is_visible()
            page.keyboard.press("Space")
            assert toggle.get_attribute("aria-expanded") == "false"
            assert page.locator("#scope-list").is_hidden()
            page.keyboard.press("Enter")
            missing = page.locator("#scope-list .scope-missing")
            assert missing.count() == 4 and missing.first.is_visible()
            page.evaluate("() => document.activeElement.blur()")

        shoot_at_phone_width(page, "read-only-phone", ".action-bar .hint", open_scopes)
        assert page.locator("#scope-list").is_visible()  # wide again: the chips show
    stored = Client(server.url, key).get(ITEM + post["id"]).json
    assert stored["content"] == "Look only" and stored["version"] == 1


def test_second_tab_saving_a_stale_edit_gets_the_412_message(browser, server, user):
    _, key = user
    post = Client(server.url, key).post(POSTS, {"type": "personal", "content": "First words"}).json
    edit = f"{server.url}{DASHBOARD}#/posts/{post['id']}/edit"
    with tab(browser, server) as first:
        second = first.context.new_page()
        for page in (first, second):
            sign_in(page, server, key)  # sessionStorage is per tab
            page.goto(edit)
            page.locator("#content").wait_for()

        first.bring_to_front()  # the person switches tabs
        first.fill("#content", "Words from the first tab")
        first.get_by_role("button", name="Save changes").click()
        first.locator("[data-field=version]", has_text="2").wait_for()

        second.bring_to_front()
        second.fill("#content", "Words from the second tab")
        second.get_by_role("button", name="Save changes").click()
        alert = second.locator(".form-problem [role=alert]")
        alert.wait_for()
        assert "Changed elsewhere; reload." in alert.text_content()
        assert "The record has changed: its current version is 2." in alert.text_content()
        shoot(second, "edit-412")
        alert.locator("button", has_text="Reload").click()
        second.locator("#content").wait_for()
        assert second.input_value("#content") == "Words from the first tab"
    assert (
        Client(server.url, key).get(ITEM + post["id"]).json["content"] == "Words from the first tab"
    )


def test_articles_create_edit_publish(browser, server, user):
    _, key = user
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.get_by_role("link", name="Articles", exact=True).click()
        page.get_by_role("link", name="New article").click()
        page.fill("#title", "Why we schedule")
        page.fill("#body", "# Notes\n\nMarkdown is fine.")
        page.fill("#tags", "howto, scheduling")
        shoot(page, "article-form")
        page.get_by_role("button", name="Create draft").click()
        page.locator(".view h1", has_text="Why we schedule").wait_for()
        page.get_by_role("link", name="Edit", exact=True).click()
        page.fill("#title", "Why we schedule posts")
        page.get_by_role("button", name="Save changes").click()
        page.locator(".view h1", has_text="Why we schedule posts").wait_for()
        page.get_by_role("button", name="Publish", exact=True).click()
        page.locator(".view .badge.status", has_text="Published").wait_for()
        # The body as written, in a source block; times with their UTC line.
        assert page.text_content(".view pre.source-text") == "# Notes\n\nMarkdown is fine."
        published = page.locator(".view .field", has=page.locator("dt", has_text="Published at"))
        assert "UTC" in published.locator(".utc").text_content()
        shoot(page, "article")
        page.get_by_role("link", name="Articles", exact=True).click()
        row = page.locator("tbody tr", has_text="Why we schedule posts")
        row.wait_for()
        assert "Published" in row.text_content() and "scheduling" in row.text_content()
        assert page.text_content(".tab[aria-current=page] .tab-count") == "1"
        shoot(page, "articles")
        shoot_at_phone_width(page, "articles-phone", "tbody tr")
        assert_clean(page, server)


def test_deliveries_filter_and_redeliver(browser, server, user):
    """A delivery that failed (the receiver answered 500) is found with the
    outcome filter and sent again; the second time the receiver accepts it."""
    _, key = user
    api = Client(server.url, key)
    answers = iter([Answer(500, body=b"upstream down"), Answer(500, body=b"upstream down")])
    dispatch_env = {
        **SERVER_ENV,
        "FLASK_WEBHOOK_RETRY_SCHEDULE": "0,0.2",
        "FLASK_PUBLIC_URL": server.url,
    }
    with (
        Receiver(script=lambda arrival: next(answers, Answer(200))) as receiver,
        Dispatcher(server.database, env=dispatch_env, log=server.tmp / "dispatcher.log"),
    ):
        r = api.post(f"{API}/webhooks", {"url": receiver.url, "events": ["post.published"]})
        assert r.status == 201, r
        post = api.post(POSTS, {"type": "personal", "content": "Delivered twice"}).json
        assert api.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": at(60)}).ok
        r = api.post(
            f"{API}/make-post-callback",
            {
                "post_id": post["id"],
                "linkedin_post_id": "urn:li:share:1",
                "live_url": "https://www.linkedin.com/feed/update/urn:li:share:1",
            },
        )
        assert r.status == 200, r
        receiver.wait_for(lambda arrivals: len(arrivals) >= 2, what="two failed attempts")

        with tab(browser, server) as page:
            sign_in(page, server, key)
            page.get_by_role("link", name="Deliveries", exact=True).click()
            page.select_option("#filter-outcome", "failed")
            page.get_by_role("button", name="Apply").click()
            page.wait_for_url(re.compile(r"outcome=failed"))
            row = page.locator("tbody tr", has_text="post.published")
            row.wait_for()
            page.wait_for_function("() => document.querySelectorAll('tbody tr').length === 1")
            row.locator("summary").click()
            assert "upstream down" in row.text_content()
            shoot(page, "deliveries-failed")

            row.locator("button", has_text="Redeliver").click()
            page.locator("#notice", has_text="Queued again").wait_for()
            receiver.wait_for(lambda arrivals: len(arrivals) >= 3, what="the redelivery")
            page.get_by_role("link", name="Clear").click()
            wait_until_delivered(page)
            # The redelivery says which delivery it sends again; nothing empty is blank.
            again = page.locator("tbody tr:has(.outcome-delivered)")
            first = page.locator("tbody tr:has(.outcome-failed)")
            note = again.locator(".redelivery")
            assert "Re-sends the failed delivery of" in note.text_content()
            original = first.get_attribute("data-delivery-id")
            assert note.get_attribute("data-redelivery-of") == original
            assert first.locator(".redelivery").count() == 0
            assert again.locator("td[data-label='Next / last error']").text_content() == "—"
            created = again.locator("td[data-label=Created] time").bounding_box()
            assert created["height"] < 30  # the date on one line at 1280 px
            table, filters = (page.locator(s).bounding_box() for s in ("table", "form.filters"))
            assert table["x"] + table["width"] <= filters["x"] + filters["width"] + 0.5
            shoot(page, "deliveries")
            shoot_at_phone_width(page, "deliveries-phone", "tbody tr")
            assert_clean(page, server)


def wait_until_delivered(page):
    """Refresh until the redelivery reads delivered (the dispatcher records
    the outcome just after the receiver has answered)."""
    for _ in range(40):
        page.click("#refresh")
        page.wait_for_timeout(250)
        if page.locator("tbody tr .outcome-delivered").count():
            return
    raise AssertionError("the redelivery never read delivered")
