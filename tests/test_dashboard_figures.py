"""Figures entered by hand: a post published on a channel that is not
connected to LinkedIn here has nobody collecting its figures, so its page
offers a form for them; what is entered becomes a stats snapshot, shown at
once and read back through the API; a figure out of range is refused naming
it. A post of a connected channel has no such form.

Headless Chromium against real gunicorn (the module's server, as
tests/test_dashboard_planner.py); a screenshot lands in
test-artifacts/dashboard-figures-entry.png.
"""

import re
import time
from datetime import UTC, datetime, timedelta

import pytest

from harness import Client
from harness.api import CALLBACK, DASHBOARD, IMPORT, STATS
from tests.dashboard_support import assert_clean, new_user, shoot, sign_in, tab


@pytest.fixture
def server(dashboard_gunicorn):
    return dashboard_gunicorn


def published_post(api):
    """A personal post, scheduled two seconds ahead, reported published."""
    at = datetime.now(UTC) + timedelta(seconds=2)
    made = api.post(
        IMPORT,
        {"posts": [{"type": "personal", "content": "Hello", "scheduled_at": at.isoformat()}]},
    )
    assert made.status == 201, made
    post_id = made.json["data"][0]["id"]
    time.sleep(max(0, (at - datetime.now(UTC)).total_seconds()) + 0.5)
    done = api.post(CALLBACK, {"post_id": post_id, "linkedin_post_id": "urn:li:share:7"})
    assert done.status == 200, done
    return post_id


def test_figures_are_entered_for_a_post_nobody_collects_them_for(browser, server):
    _, key = new_user(server)
    api = Client(server.url, key)
    post_id = published_post(api)
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post_id}")
        stats = page.locator(".post-stats")
        stats.locator("text=No figures yet").wait_for()
        stats.locator("summary", has_text="Enter figures").click()

        # Out of range: refused naming the figure, nothing kept.
        page.fill("#figures-impressions", "-5")
        page.get_by_role("button", name="Save figures").click()
        refusal = stats.locator(".form-problem [role=alert]")
        refusal.wait_for()
        assert "impressions" in refusal.text_content()
        assert api.get(f"{STATS}/{post_id}").json["latest"] is None

        page.fill("#figures-impressions", "1200")
        page.fill("#figures-reactions", "30")
        page.fill("#figures-comments", "6")
        page.get_by_role("button", name="Save figures").click()
        stats.locator(".tiles").wait_for()
        shoot(page, "figures-entry")
        tiles = stats.locator(".tiles").text_content()
        assert "1,200" in tiles and "30" in tiles
        latest = api.get(f"{STATS}/{post_id}").json["latest"]
        assert (latest["impressions"], latest["reactions"], latest["comments"]) == (1200, 30, 6)
        assert latest["reshares"] is None and latest["clicks"] is None  # not entered: unknown
        taken = datetime.fromisoformat(latest["taken_at"])
        assert abs((datetime.now(UTC) - taken).total_seconds()) < 120  # "as of" now, to the minute
        assert re.search(r"As of", stats.text_content())
        assert_clean(page, server)
