"""The publishing dashboard (/functions/v1/dashboard) in headless Chromium
against real gunicorn, with the automation's side (claims, callbacks, failure
reports) played through the API by harness.Client.

The browser runs in Pacific/Auckland, so that a post's local day differs
from its UTC day and the calendar is seen to use the browser's time zone.
Screenshots of every view, at 1280 px and at phone width, land in
test-artifacts/dashboard-*.png.
"""

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from content_publishing.http.dashboard import FILES
from harness import Client, rfc3339
from harness.api import API, DASHBOARD, ITEM, POSTS
from tests.dashboard_support import (
    LONG_BRAND,
    LONG_TEXT,
    ZONE,
    assert_clean,
    at,
    check_days_stacked,
    check_tab_strip,
    local_input,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)


@pytest.fixture
def server(dashboard_gunicorn):
    """The dashboard's gunicorn of this pytest process (tests/conftest.py)."""
    return dashboard_gunicorn


@pytest.fixture
def user(server):
    """A new user per test, with a key that has every scope: (name, key)."""
    return new_user(server)


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
        assert granted.count() == 7, page.text_content("#scope-list")

        # Create a brand post as a draft.
        page.get_by_role("link", name="New post").click()
        page.check("input[name=type][value=brand]")
        page.fill("#brand_id", "acme-corp")
        page.fill("#content", "Our spring launch is live: see what is new.")
        shoot(page, "post-form")
        page.get_by_text("Media URLs: add images or a document by link").click()
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
