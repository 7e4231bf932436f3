"""People in the dashboard (docs/accounts.md), in headless Chromium against
real gunicorn, a dispatcher and an SMTP sink, with two browser contexts (two
browsers): an invitation mailed, opened and taken up with a password; a
second tab signed in by the cookie; keys made on the keys page; sign out
everywhere ending both browsers; a phone-width sign-in; an account in two
workspaces switching between them in the header; the second factor set
up on the account page, then asked for at sign-in. Screenshots of
each go to test-artifacts/ (and docs/images/)."""

import contextlib
import re
import sqlite3

import pytest

from harness import Client, Dispatcher, create_key
from harness.api import DASHBOARD, POSTS
from harness.smtp_sink import SmtpSink
from tests.dashboard_support import PHONE, dashboard_server, shoot, tab

PASSWORD = "a long and private phrase"


@pytest.fixture(scope="module")
def mail():
    with SmtpSink() as sink:
        yield sink


@pytest.fixture(scope="module")
def server(tmp_path_factory, mail):
    env = {"FLASK_SMTP_URL": mail.url, "FLASK_MAIL_FROM": "Publishing <p@example.com>"}
    with dashboard_server(tmp_path_factory, env=env) as server:
        dispatcher = Dispatcher(
            server.database,
            name="accounts",
            log=server.tmp / "dispatcher.log",
            env={**env, "FLASK_PUBLIC_URL": server.url, "FLASK_DISPATCH_POLL_SECONDS": "0.2"},
        )
        with dispatcher:
            yield server


def mailed_link(mail, address):
    (message,) = mail.wait_for(lambda found: [m for m in found if address in m.envelope_to])
    return re.search(r"(http\S+#/\S+)", message.get_content())[1]


def signed_in_as(page, name):
    page.locator("#member-name", has_text=name).wait_for()
    page.locator(".view h1").wait_for()


def test_an_invited_person_joins_by_mail_and_is_signed_in_in_every_tab(browser, server, mail):
    owner = create_key(server.database, user="studio")
    with Client(server.url, owner) as client:
        r = client.post(
            "/functions/v1/members", {"name": "Ivy", "email": "ivy@example.com", "role": "editor"}
        )
        assert r.status == 201, r
    link = mailed_link(mail, "ivy@example.com")
    assert "#/invite/" in link
    with tab(browser, server) as first, tab(browser, server) as other_browser:
        first.goto(link)
        first.locator("#invite-about", has_text="studio invites you").wait_for()
        first.fill("#invite-password", PASSWORD)
        shoot(first, "accounts-invitation")
        first.click("#accept-invite")
        signed_in_as(first, "Ivy")
        # Hashed by gunicorn with the service's own parameters (RFC 9106's,
        # argon2-cffi's default), whatever the in-process tests use.
        with contextlib.closing(sqlite3.connect(server.database)) as db:
            [(stored,)] = db.execute(
                "SELECT password_hash FROM accounts WHERE email = 'ivy@example.com'"
            ).fetchall()
        assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$"), stored[:32]

        # A second tab, as a notification mail's link opens one: signed in.
        second = first.context.new_page()
        second.goto(f"{server.url}{DASHBOARD}#/queue")
        signed_in_as(second, "Ivy")

        # Keys for an automation, shown once, bounded by the editor's role.
        first.goto(f"{server.url}{DASHBOARD}#/keys")
        first.locator("#key-form").wait_for()
        assert first.locator("#scope-members-manage").is_disabled()
        first.check("#scope-posts-read")
        first.click("#make-key")
        key = first.locator("#new-key").input_value()
        assert key.startswith("svc_live_")
        first.locator("#keys-table tbody tr").nth(1).wait_for()  # the new one and the invitation's
        shoot(first, "accounts-keys")
        with Client(server.url, key) as automation:
            assert automation.get("/functions/v1/me").json["member"]["name"] == "Ivy"

        # The other browser signs in with the email and the password.
        other_browser.goto(server.url + DASHBOARD)
        other_browser.fill("#signin-email", "ivy@example.com")
        other_browser.fill("#signin-password", PASSWORD)
        shoot(other_browser, "accounts-sign-in")
        other_browser.click("#person-sign-in-button")
        signed_in_as(other_browser, "Ivy")

        first.goto(f"{server.url}{DASHBOARD}#/account")
        first.locator("#sessions-table tbody tr").nth(1).wait_for()
        # A person sees their role, never a key's scopes (those are the Keys page's).
        assert first.locator("#scope-list").is_hidden()
        assert first.locator("#scopes-toggle").is_hidden()
        shoot(first, "accounts-account")
        first.click("#sign-out-everywhere")
        first.click("#confirm-yes")
        first.locator("#person-sign-in-form").wait_for()
        # The other tab, still showing the queue, asks again: a person is
        # told they were signed out, in words of them rather than of a key.
        second.goto(f"{server.url}{DASHBOARD}#/calendar")
        problem = second.locator("#person-problem .alert")
        problem.wait_for()
        assert problem.locator(".alert-title").inner_text() == "You are signed out."
        assert "Sign in again" in problem.inner_text() and "key" not in problem.inner_text()
        shoot(second, "accounts-signed-out")
        second.set_viewport_size(PHONE)
        assert second.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        shoot(second, "accounts-signed-out-phone")
        for page in (second, other_browser):
            page.reload()
            page.locator("#person-sign-in-form").wait_for()
            assert page.locator("#keybar").is_hidden()


def test_a_phone_width_sign_in_with_an_emailed_link(browser, server, mail):
    owner = create_key(server.database, user="phone-studio")
    with Client(server.url, owner) as client:
        r = client.post(
            "/functions/v1/members", {"name": "Pat", "email": "pat@example.com", "role": "viewer"}
        )
        assert r.status == 201, r
    mailed_link(mail, "pat@example.com")  # the invitation; Pat signs in by a link instead
    with tab(browser, server, viewport=PHONE) as page:
        page.goto(server.url + DASHBOARD)
        page.fill("#signin-email", "pat@example.com")
        page.click("#email-link")
        page.locator("#link-sent", has_text="on its way").wait_for()
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        shoot(page, "accounts-phone-sign-in")
        link = mail.wait_for(
            lambda found: [
                m
                for m in found
                if "pat@example.com" in m.envelope_to and "#/link/" in m.get_content()
            ]
        )[0]
        page.goto(re.search(r"(http\S+#/link/\S+)", link.get_content())[1])
        signed_in_as(page, "Pat")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_an_account_in_two_workspaces_switches_between_them(browser, server, mail):
    """Wren is invited to two workspaces and takes up both in one browser:
    the header then offers both, and switching shows the other one's posts."""
    drafts = {}
    for space in ("north", "south"):
        with Client(server.url, create_key(server.database, user=space)) as client:
            r = client.post(
                "/functions/v1/members",
                {"name": "Wren", "email": "wren@example.com", "role": "editor"},
            )
            assert r.status == 201, r
            made = client.post(POSTS, {"type": "personal", "content": f"Notes of {space}"})
            assert made.status == 201, made
            drafts[space] = made.json["id"]

    def wrens(found):
        mine = [m for m in found if "wren@example.com" in m.envelope_to]
        return mine if len(mine) == 2 else None

    by_space = {
        space: re.search(r"(http\S+#/\S+)", m.get_content())[1]
        for m in mail.wait_for(wrens)
        for space in drafts
        if space in m.get_content()
    }
    with tab(browser, server) as page:
        page.goto(by_space["north"])
        page.fill("#invite-password", PASSWORD)
        page.click("#accept-invite")
        signed_in_as(page, "Wren")
        assert page.locator("#workspace-switch").count() == 0  # one workspace: its name
        row = page.locator("header.topbar .topbar-row").bounding_box()["height"]
        page.goto(by_space["south"])  # signed in: accepting links the account
        page.locator("#invite-about", has_text="south").wait_for()
        page.click("#accept-invite")
        switch = page.locator("#workspace-switch")
        switch.wait_for()
        page.goto(f"{server.url}{DASHBOARD}#/calendar")
        page.locator(f"[data-post-id='{drafts['south']}']").wait_for()
        assert page.locator(f"[data-post-id='{drafts['north']}']").count() == 0
        names = [o.strip() for o in switch.locator("option").all_text_contents()]
        assert sorted(names) == ["north", "south"]

        switch.select_option(label="north")
        page.locator(f"[data-post-id='{drafts['north']}']").wait_for()
        assert page.locator(f"[data-post-id='{drafts['south']}']").count() == 0
        assert page.locator("#workspace-switch option:checked").text_content() == "north"
        header = page.locator("header.topbar .topbar-row").bounding_box()
        assert header["height"] <= row + 4, (header, row)  # still one row of views
        assert page.url.endswith("#/calendar")  # the same view, in the other workspace
        shoot(page, "accounts-workspace-switch")
        # The switch is the session's: another tab of the browser is in north too.
        other = page.context.new_page()
        other.goto(f"{server.url}{DASHBOARD}#/calendar")
        other.locator(f"[data-post-id='{drafts['north']}']").wait_for()


def test_the_second_factor_is_set_up_on_the_account_page_then_asked_for(browser, server, mail):
    """Tess turns on an authenticator app on her account page (pyotp plays
    the app): a wrong code is refused and leaves it off, the right one
    shows the recovery codes once; signing in again then asks for a code."""
    import pyotp

    owner = create_key(server.database, user="factor-studio")
    with Client(server.url, owner) as client:
        r = client.post(
            "/functions/v1/members", {"name": "Tess", "email": "tess@example.com", "role": "viewer"}
        )
        assert r.status == 201, r
    with tab(browser, server) as page:
        page.goto(mailed_link(mail, "tess@example.com"))
        page.fill("#invite-password", PASSWORD)
        page.click("#accept-invite")
        signed_in_as(page, "Tess")
        page.goto(f"{server.url}{DASHBOARD}#/account")
        page.locator("#factor-title", has_text="off").wait_for()
        page.click("#factor-begin")
        page.locator("#factor-secret").wait_for()
        assert page.locator("#second-factor svg").count() == 1  # the QR code to scan
        totp = pyotp.TOTP(page.locator("#factor-secret").input_value())
        wrong = "000000" if totp.now() != "000000" else "111111"
        page.fill("#factor-code", wrong)
        page.click("#factor-confirm")
        page.locator("#second-factor [role=alert]").wait_for()
        assert page.locator("#recovery-codes").count() == 0
        page.fill("#factor-code", totp.now())
        page.click("#factor-confirm")
        codes = page.locator("#recovery-codes li")
        codes.first.wait_for()
        assert codes.count() == 10 and len(set(codes.all_text_contents())) == 10
        shoot(page, "accounts-second-factor")
        page.reload()  # shown once: the page now only says it is on
        page.locator("#factor-title", has_text="on").wait_for()
        assert page.locator("#recovery-codes").count() == 0

        page.click("#sign-out")
        page.fill("#signin-email", "tess@example.com")
        page.fill("#signin-password", PASSWORD)
        page.click("#person-sign-in-button")
        page.locator("#signin-code").wait_for()  # the code is asked for
        page.fill("#signin-code", totp.now())
        page.click("#person-sign-in-button")
        signed_in_as(page, "Tess")
