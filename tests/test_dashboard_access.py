"""The dashboard's keys and access, a second tab's stale edit, articles and
deliveries, in headless Chromium against real gunicorn (tests/dashboard_support.py
has the shared server, tab and checks; test_dashboard.py the posts, calendar,
queue and keyboard)."""

import re

import pytest

from harness import Answer, Client, Dispatcher, Receiver, create_key, flask_cli
from harness.api import API, DASHBOARD, ITEM, POSTS
from tests.dashboard_support import (
    READ_ONLY,
    SERVER_ENV,
    assert_clean,
    at,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
    unfold_key_sign_in,
    wait_until_delivered,
)


@pytest.fixture
def server(dashboard_gunicorn):
    """The dashboard's gunicorn of this pytest process (tests/conftest.py)."""
    return dashboard_gunicorn


@pytest.fixture
def user(server):
    """A new user per test, with a key that has every scope: (name, key)."""
    return new_user(server)


def test_refused_keys_are_explained_and_forgotten(browser, server, user):
    """A malformed key is refused at sign-in; a key revoked while the page is
    open sends the person back to sign in, with the service's reason."""
    _, key = user
    with tab(browser, server) as page:
        page.goto(server.url + DASHBOARD)
        page.locator("#signin-email:focus").wait_for()  # people sign in by email
        shoot(page, "sign-in")
        unfold_key_sign_in(page)
        page.fill("#key-input", "svc_live_short")
        page.click("#sign-in-button")
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
        assert visible == ["Calendar", "Queue", "Analytics", "Channels", "Articles", "Members"]
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
        page.click("#confirm-yes")  # leaving the edit that was not saved asks first

        def open_scopes(page):
            toggle = page.locator("#scopes-toggle")
            assert toggle.text_content() == "2 of 7 scopes"
            toggle.focus()
            page.keyboard.press("Enter")
            assert toggle.get_attribute("aria-expanded") == "true"
            assert page.locator("#scope-list").is_visible()
            page.keyboard.press("Space")
            assert toggle.get_attribute("aria-expanded") == "false"
            assert page.locator("#scope-list").is_hidden()
            page.keyboard.press("Enter")
            missing = page.locator("#scope-list .scope-missing")
            assert missing.count() == 5 and missing.first.is_visible()
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
