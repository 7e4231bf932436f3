"""The whole path in the dashboard, in headless Chromium against real
gunicorn, a dispatcher that publishes itself and the LinkedIn stand-in, on
both backends: Connect LinkedIn on a channel, LinkedIn's consent page, back
with the member shown and the token's end; a brand channel's page picker;
"Published by"; a post with an image composed and scheduled, published once
at the stand-in by the service and shown Published on the calendar; then
the connection expires, the calendar's banner asks for a reconnection, and
Reconnect signs in again.

Screenshots land in test-artifacts/dashboard-linkedin-*.png.
"""

import io
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from harness import Client, free_port, serve
from harness.api import CHANNEL, CHANNELS, DASHBOARD, ITEM, POSTS
from harness.linkedin_signin import ADA, environment, leaked, linkedin_for
from tests.browser_support import save_picture
from tests.conftest import live_database_for
from tests.dashboard_support import ZONE, new_user, shoot, sign_in, tab
from tests.dispatch_support import DISPATCH_ENV, dispatcher_starter, wait_until


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    tmp = tmp_path_factory.mktemp("dashboard-linkedin")
    with linkedin_for(url) as standin, live_database_for(live_backend) as database:
        env = {
            **environment(standin, url),
            # Due at the minute the composer names: the post goes out while the test waits.
            "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000",
        }
        with serve(
            tmp, workers=2, env=env, port=port, log=tmp / "gunicorn.log", database=database
        ) as server:
            server.tmp, server.linkedin, server.backend = tmp, standin, live_backend
            with dispatcher_starter(server) as start:
                start(
                    **{**DISPATCH_ENV, **environment(standin, url)},
                    FLASK_LINKEDIN_TIMEOUT_SECONDS="3",
                    FLASK_DISPATCH_POLL_SECONDS="0.1",
                )
                yield server


def picture():
    out = io.BytesIO()
    Image.new("RGB", (120, 80), "teal").save(out, "PNG")
    return out.getvalue()


def name(server, what):
    return f"linkedin-{what}-{server.backend}"


def consent(page, server, button="Allow"):
    """At LinkedIn's (the stand-in's) consent page: the person approves."""
    page.wait_for_url(re.compile(re.escape(server.linkedin.url) + "/oauth/v2/authorization"))
    page.get_by_role("button", name=button).click()
    page.wait_for_url(re.compile(r"#/channels"))


def test_connect_publish_and_reconnect(browser, server):
    linkedin = server.linkedin
    linkedin.accounts.auto_approve = False  # a person sees LinkedIn's page and clicks Allow
    _, key = new_user(server)
    api = Client(server.url, key)
    api.post(CHANNELS, {"type": "personal", "name": "Ada's profile", "timezone": ZONE})
    api.post(CHANNELS, {"type": "brand", "brand_id": "acme", "name": "Acme", "timezone": ZONE})
    text = f"Spring launch (finally) with a picture {server.backend}"
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/channels")
        personal = page.locator("[data-channel-id=personal]")
        personal.locator(".connection-line", has_text="Not connected").wait_for()
        shoot(page, name(server, "channels-before"))

        # Connect LinkedIn -> LinkedIn's consent -> back, with the member shown.
        personal.get_by_role("button", name="Connect LinkedIn").click()
        page.wait_for_url(re.compile(re.escape(linkedin.url)))
        page.get_by_text("Ada Lovelace").wait_for()
        # LinkedIn's page: no dashboard notice to empty first.
        save_picture(page, f"dashboard-{name(server, 'consent')}")
        consent(page, server)
        personal = page.locator("[data-channel-id=personal]")
        line = personal.locator(".connection-line")
        line.filter(has_text="Connected as Ada Lovelace").wait_for()
        assert "until" in line.text_content() and line.locator("time").count() == 1
        assert personal.locator("input[value=linkedin]").is_checked()  # Published by: this service
        assert f"urn:li:person:{ADA}" in personal.text_content()  # filled in, not typed
        page.locator("#notice", has_text="connected to LinkedIn as Ada Lovelace").wait_for()
        shoot(page, name(server, "connected"))

        # A brand: the member administers two pages; the dashboard asks which.
        page.locator("[data-channel-id=acme]").get_by_role(
            "button", name="Connect LinkedIn"
        ).click()
        consent(page, server)
        acme = page.locator("[data-channel-id=acme]")
        picker = acme.locator(".page-picker select")
        picker.wait_for()
        page.locator(".messages", has_text="pick the one Acme posts for").wait_for()
        shoot(page, name(server, "page-picker"))
        picker.select_option(label="Acme Europe")
        page.locator(
            "[data-channel-id=acme] .connection-line", has_text="Connected as Acme Europe"
        ).wait_for()
        assert api.get(CHANNEL + "acme").json["author_urn"] == "urn:li:organization:2414183"

        # The composer takes the author from the channel; a post with an image.
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#channel").wait_for()
        page.select_option("#channel", "personal")
        page.fill("#content", text)
        page.set_input_files(
            "#media-files", [{"name": "teal.png", "mimeType": "image/png", "buffer": picture()}]
        )
        page.locator(".composer-thumbs .thumb img").first.wait_for()
        author = page.locator(".preview-author")
        author.filter(has_text="Ada Lovelace").wait_for()
        assert "published by this service" in author.text_content()
        page.fill("#scheduled_at", datetime.now(ZoneInfo(ZONE)).strftime("%Y-%m-%dT%H:%M"))
        shoot(page, name(server, "composer"))
        page.get_by_role("button", name="Schedule", exact=True).click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        post_id = page.url.rsplit("/", 1)[1]

        # The service publishes it, once, with its image.
        done = wait_until(
            lambda: (p := api.get(ITEM + post_id).json)["status"] in ("Published", "Failed") and p,
            timeout=30,
            what="the post published",
        )
        assert done["status"] == "Published", done
        made = linkedin.posts_with(f"with a picture {server.backend}")
        assert len(made) == 1 and made[0].status == 201
        assert made[0].body["content"]["media"]["id"].startswith("urn:li:image:")
        page.goto(f"{server.url}{DASHBOARD}#/calendar")
        card = page.locator(".post-card, [data-post-id]", has_text="Spring launch").first
        card.wait_for()
        page.locator(".status-published").first.wait_for()
        shoot(page, name(server, "calendar-published"))
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post_id}")
        page.locator(".timeline-entry", has_text="Taken to publish on LinkedIn").wait_for()
        page.locator(".timeline-entry", has_text="Published on LinkedIn").wait_for()
        shoot(page, name(server, "post-history"))

        # The member removes the app at LinkedIn: the next post fails, the
        # connection is expired, and the calendar asks for a reconnection.
        linkedin.accounts.revoke_all()
        r = api.post(
            POSTS,
            {
                "type": "personal",
                "content": f"After the revoke {server.backend}",
                # due now, two minutes before the first: no two posts of a channel share a minute
                "scheduled_at": (
                    datetime.fromisoformat(api.get(ITEM + post_id).json["scheduled_at"])
                    - timedelta(minutes=2)
                ).isoformat(),
            },
        )
        failed = api.patch(ITEM + r.json["id"], {"status": "Scheduled"}).json
        wait_until(
            lambda: api.get(ITEM + failed["id"]).json["status"] == "Failed", what="the post failed"
        )
        page.goto(f"{server.url}{DASHBOARD}#/calendar")
        banner = page.locator(".reconnect-banner")
        banner.wait_for()
        assert "Ada's profile" in banner.text_content() and "Expired" in banner.text_content()
        shoot(page, name(server, "calendar-reconnect"))
        banner.get_by_role("button", name="Reconnect").click()
        consent(page, server)
        page.locator(
            "[data-channel-id=personal] .connection-line", has_text="Connected as Ada Lovelace"
        ).wait_for()
        page.goto(f"{server.url}{DASHBOARD}#/calendar")
        page.locator(".view h1").wait_for()
        page.wait_for_timeout(300)
        assert page.locator(".reconnect-banner").count() == 0

        # Nothing but this service and LinkedIn was reached; no script error.
        outside = [
            u for u in page.seen_urls if not u.startswith((server.url + "/", linkedin.url + "/"))
        ]
        assert not outside, outside
        assert not [line for line in page.console_lines if line.startswith("pageerror")]
        assert not [line for line in page.console_lines if "Content Security Policy" in line]
        page_text = page.content()
    logs = [p.read_text(errors="replace") for p in server.tmp.glob("*.log")]
    assert not leaked(linkedin, page_text, *logs)
