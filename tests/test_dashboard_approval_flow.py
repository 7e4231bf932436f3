"""A team plans with approvals from the dashboard alone, in Chromium at 1440
and 390 px: the owner turns approvals on under Settings (the workspace's
name, its time zone, a channel's own rule, the team chat), an editor
imports 10 rows for the queue and submits them in bulk, the owner approves
them in bulk and adds them to the queue in one step, and they take the
channel's slots in the order of the CSV. A member sets their own
notifications. No screen shows a route."""

import pytest

from harness import Client
from harness.api import API, CHANNELS, DASHBOARD, ITEM, POSTS
from tests.dashboard_support import (
    PHONE,
    WIDE,
    assert_clean,
    dashboard_server,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    suggested,
    tab,
)
from tests.test_dashboard_review import member_key

WORKSPACE = f"{API}/workspace"
EVERY_DAY = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
ROUTE = "/functions/"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with dashboard_server(tmp_path_factory) as server:
        yield server


def no_route_on_screen(page):
    text = page.locator("main").inner_text()
    assert ROUTE not in text and "POST " not in text and "PATCH " not in text, text


def test_import_submit_approve_and_queue_ten_rows_from_the_dashboard(browser, server):
    _, key = new_user(server)
    owner_api = Client(server.url, key)
    slots = [{"day": d, "time": t} for d in EVERY_DAY for t in ("09:00", "12:00", "16:30")]
    assert owner_api.post(
        CHANNELS, {"type": "brand", "brand_id": "acme", "name": "Acme", "slots": slots}
    ).ok
    editor_key = member_key(owner_api, server, "Erin", "editor")

    with tab(browser, server, viewport=WIDE) as page:
        # The owner: Settings, approvals on, a name, a zone, the company page's rule.
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/members")
        page.click("#settings-link")
        page.locator("#settings-name").wait_for()
        page.fill("#settings-name", "Acme Marketing")
        page.select_option("#settings-zone", "Europe/Berlin")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('saved')"
        )
        page.select_option("#settings-approvals", "required")
        page.get_by_role("button", name="Save approvals").click()
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('approved before')"
        )
        page.select_option("#channel-approvals-acme", "required")
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('Acme: saved')"
        )
        # The pictures before the refusal below, whose banner they would show.
        shoot(page, "settings")
        shoot_at_phone_width(page, "settings-phone", "#settings-name", back=WIDE)
        page.get_by_role("button", name="Send a test message").click()
        page.locator(".messages .alert").wait_for()  # no chat yet: said in words
        no_route_on_screen(page)
        space = owner_api.get(WORKSPACE).json
        assert (space["name"], space["timezone"], space["approvals"]) == (
            "Acme Marketing",
            "Europe/Berlin",
            "required",
        )
        assert owner_api.get(f"{API}/channels-item/acme").json["approvals"] == "required"
        assert_clean(page, server)

    csv = "channel,content,queue\n" + "".join(
        f"acme,Row {n} of the plan,true\n" for n in range(1, 11)
    )
    with tab(browser, server, viewport=WIDE) as page:
        # The editor: import the rows, then submit all ten.
        sign_in(page, server, editor_key)
        page.goto(f"{server.url}{DASHBOARD}#/import")
        page.fill("#import-csv", csv)
        page.get_by_role("button", name="Import", exact=True).click()
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('10 posts imported')"
        )
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        page.locator("tbody tr").nth(9).wait_for()
        assert page.locator("tbody tr", has_text="Added to the queue").count() == 10
        assert page.locator("[data-bulk=queue]").count() == 0  # not offered: approvals apply
        page.check("#select-all")
        page.locator("[data-bulk=submit]").click()
        page.locator(".empty", has_text="No draft posts.").wait_for()
        tab_count = page.text_content("a.tab[href^='#/queue/In%20review'] .tab-count")
        assert tab_count == "10"
        no_route_on_screen(page)
        assert_clean(page, server)

    with tab(browser, server, viewport=WIDE) as page:
        # The owner: In review, all ten approved and queued in one step.
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/queue/In%20review")
        page.locator("tbody tr").nth(9).wait_for()
        shoot(page, "queue-in-review")
        shoot_at_phone_width(page, "queue-in-review-phone", "tbody tr", back=WIDE)
        page.check("#select-all")
        page.locator("[data-bulk=approve_queue]").click()
        page.locator(".empty", has_text="No in review posts.").wait_for()
        assert page.text_content("a.tab[href^='#/queue/Scheduled'] .tab-count") == "10"
        no_route_on_screen(page)
        page.click("a.tab[href^='#/queue/Scheduled']")
        page.locator("tbody tr").nth(9).wait_for()
        shoot(page, "queue-approved-and-queued")
        assert_clean(page, server)

    planned = owner_api.get(f"{POSTS}?status=Scheduled&order=scheduled_at&limit=20").json["data"]
    assert [p["content"] for p in planned] == [f"Row {n} of the plan" for n in range(1, 11)]
    assert len({p["scheduled_at"] for p in planned}) == 10
    for post in planned:
        assert owner_api.get(ITEM + post["id"]).json["approved_by"]["name"] != "Erin"


def test_a_member_sets_their_email_and_notifications(browser, server):
    _, key = new_user(server)
    owner_api = Client(server.url, key)
    editor_key = member_key(owner_api, server, "Noor", "editor")
    editor = Client(server.url, editor_key)
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, editor_key)
        page.goto(f"{server.url}{DASHBOARD}#/members")
        page.click("#my-notifications-link")
        page.locator("#my-email").wait_for()
        page.fill("#my-email", "noor@acme.test")
        page.uncheck("tr[data-event='comment.mentioned'] input[name=mail]")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('saved')"
        )
        shoot(page, "notifications")
        shoot_at_phone_width(page, "notifications-phone", "#my-email", back=WIDE)
        page.goto(f"{server.url}{DASHBOARD}#/members")
        page.locator("#my-notifications-link").wait_for()
        assert page.locator("#settings-link").count() == 0  # an editor
        assert_clean(page, server)
    me = editor.get(f"{API}/me").json["member"]["id"]
    found = next(m for m in editor.get(f"{API}/members").json["data"] if m["id"] == me)
    assert found["email"] == "noor@acme.test"
    assert "comment.mentioned" not in found["notify"] and "post.approved" in found["notify"]


def test_the_composer_keeps_unsaved_text_through_a_reload_and_asks_before_leaving(browser, server):
    _, key = new_user(server)
    api = Client(server.url, key)
    for viewport, name in ((WIDE, "composer-restored"), (PHONE, "composer-restored-phone")):
        with tab(browser, server, viewport=viewport) as page:
            sign_in(page, server, key)
            page.goto(f"{server.url}{DASHBOARD}#/posts/new")
            page.locator("#content").wait_for()
            page.fill("#content", f"Half a thought about Monday planning ({name})")
            page.reload()
            page.locator(".restored-draft").wait_for()
            assert page.input_value("#content") == f"Half a thought about Monday planning ({name})"
            shoot(page, name)
            # Leaving asks first; staying keeps the text.
            page.locator("#views-nav a[data-section=queue]").evaluate("a => a.click()")
            page.locator("#confirm[open]").wait_for()
            page.locator(
                "#confirm button[value=cancel], #confirm button:not(#confirm-yes)"
            ).first.click()
            page.wait_for_function("() => location.hash === '#/posts/new'")
            assert page.input_value("#content").startswith("Half a thought")
            # Saved: nothing is kept any more, and leaving asks nothing.
            page.get_by_role("button", name="Save draft").click()
            page.wait_for_function(
                "() => location.hash.startsWith('#/posts/') && !location.hash.endsWith('new')"
            )
            assert (
                page.evaluate(
                    "() => Object.keys(localStorage).filter(k => k.startsWith('cps.unsaved.')).length"
                )
                == 0
            )
            page.goto(f"{server.url}{DASHBOARD}#/posts/new")
            page.locator("#content").wait_for()
            assert page.locator(".restored-draft").count() == 0
            assert_clean(page, server)
    assert api.get(f"{POSTS}?status=Draft").json["total"] == 2


def test_at_in_a_comment_suggests_the_members(browser, server):
    _, key = new_user(server)
    api = Client(server.url, key)
    member_key(api, server, "Priya Raman", "editor")
    member_key(api, server, "Paul", "contributor")
    post = api.post(POSTS, {"type": "personal", "content": "A post to talk about"}).json
    for viewport, name in ((WIDE, "comment-mentions"), (PHONE, "comment-mentions-phone")):
        with tab(browser, server, viewport=viewport) as page:
            sign_in(page, server, key)
            page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")
            box = page.locator("#comment-body")
            box.wait_for()
            box.click()
            page.keyboard.type("Could you check this, @p")
            options = page.locator(".mention-option")
            suggested(options, ["@Priya Raman", "@Paul"])
            page.keyboard.type("r")
            page.wait_for_function(
                "() => document.querySelectorAll('.mention-option').length === 1"
            )
            shoot(page, name)
            page.keyboard.press("Enter")
            assert box.input_value() == "Could you check this, @Priya Raman "
            page.get_by_role("button", name="Comment", exact=True).click()
            page.locator(".comments", has_text="Could you check this, @Priya Raman").wait_for()
            assert_clean(page, server)
    found = api.get(f"{API}/api-v2-posts-comments/{post['id']}").json["data"]
    assert len(found) == 2 and all(len(c["mentions"]) == 1 for c in found)
