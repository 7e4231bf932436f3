"""@ in the composer: the workspace's pages (its channels' authors) and the
people its posts already mention are suggested, and picking one writes the
LinkedIn mention with its URN, so that a known URN is never pasted again.

Headless Chromium against real gunicorn (the module's server, as
tests/test_dashboard_planner.py); a screenshot lands in
test-artifacts/dashboard-mention-suggestions.png.
"""

import pytest

from harness import Client
from harness.api import CHANNELS, DASHBOARD, POSTS
from tests.dashboard_support import assert_clean, new_user, shoot, sign_in, suggested, tab


@pytest.fixture
def server(dashboard_gunicorn):
    return dashboard_gunicorn


def test_at_suggests_the_pages_and_the_people_past_posts_mention(browser, server):
    _, key = new_user(server)
    api = Client(server.url, key)
    page_channel = {
        "type": "brand",
        "brand_id": "acme",
        "name": "Acme Robotics",
        "author_urn": "urn:li:organization:4242",
    }
    assert api.post(CHANNELS, page_channel).status == 201
    earlier = "Thank you @[Jane Doe](urn:li:person:Ab12-cd) for the talk!"
    assert api.post(POSTS, {"type": "personal", "content": earlier}).status == 201
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        content = page.locator("#content")
        content.click()
        content.press_sequentially("Great day with @do")
        options = page.locator("#content-mentions .mention-option")
        suggested(options, ["@Jane Doe person"])  # a word of the name
        shoot(page, "mention-suggestions")
        content.press("Enter")
        content.press_sequentially("and @acm")
        suggested(options, ["@Acme Robotics page"])
        options.first.click()
        assert page.input_value("#content") == (
            "Great day with @[Jane Doe](urn:li:person:Ab12-cd) "
            "and @[Acme Robotics](urn:li:organization:4242) "
        )
        # The preview shows them as LinkedIn does: the names, no URNs.
        preview = page.locator(".preview-panel .preview-text")
        page.wait_for_function(
            "() => document.querySelector('.preview-panel .preview-text')?.textContent"
            ".includes('Acme Robotics')"
        )
        assert "urn:li" not in preview.text_content()
        assert_clean(page, server)
