"""Approvals and comments in the dashboard, in headless Chromium against
real gunicorn: a contributor submits a post from the composer, the owner
sees it under Needs review (counted in the navigation), asks for changes
with a comment, the contributor reads it in the post's thread and submits
again, the owner approves; two members in two browser contexts. Pictures
at 1440 and 390 px in test-artifacts/, on both backends."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from harness import Client, serve
from harness.api import API, DASHBOARD, ITEM
from tests.conftest import live_database_for
from tests.dashboard_support import (
    PHONE,
    SERVER_ENV,
    WIDE,
    ZONE,
    assert_clean,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)

WORKSPACE = f"{API}/workspace"


@pytest.fixture(scope="module")
def server(request, tmp_path_factory, live_backend):
    """gunicorn on each backend in turn (the reviews' If-Match and locks are
    the store's): on SQLite the dashboard's gunicorn of this pytest process
    (tests/conftest.py), on PostgreSQL one of the module's own."""
    if live_backend == "sqlite":
        yield request.getfixturevalue("dashboard_gunicorn")
        return
    tmp = tmp_path_factory.mktemp("dashboard-review")
    with live_database_for(live_backend) as database:
        with serve(
            tmp, workers=2, env=SERVER_ENV, database=database, log=tmp / "gunicorn.log"
        ) as server:
            server.tmp, server.backend = tmp, live_backend
            yield server


def member_key(api, server, name, role):
    """Invite `name` as `role` and take the invitation up: their first key."""
    url = api.post(f"{API}/members", {"name": name, "email": None, "role": role}).json["invite_url"]
    token = url.split("#/invite/")[1]
    answer = Client(server.url, None).post(f"{API}/invites-accept", {"token": token})
    assert answer.status == 201, answer
    return answer.json["key"]


def require_approvals(api):
    found = api.get(WORKSPACE)
    r = api.patch(WORKSPACE, {"approvals": "required"}, headers={"If-Match": found.headers["etag"]})
    assert r.status == 200 and r.json["approvals"] == "required", r


def test_submit_request_changes_then_approve_in_two_browsers(browser, server):
    workspace, key = new_user(server)
    api = Client(server.url, key)
    require_approvals(api)
    cleo_key = member_key(api, server, "cleo", "contributor")
    with tab(browser, server, WIDE) as cleo, tab(browser, server, WIDE) as lead:
        sign_in(cleo, server, cleo_key)
        cleo.goto(f"{server.url}{DASHBOARD}#/posts/new")
        cleo.locator("#content").fill("Our spring range, photographed by the team")
        form = cleo.locator("form.post-form")
        assert form.get_by_role("button", name="Schedule").count() == 0
        form.get_by_role("button", name="Submit for review").click()
        cleo.locator(".badges .status-in-review").wait_for()
        post_id = cleo.url.rsplit("/", 1)[1]
        assert api.get(ITEM + post_id).json["status"] == "In review"

        sign_in(lead, server, key)
        nav = lead.locator("#views-nav a[data-section=review]")
        assert nav.is_visible()
        lead.wait_for_function("() => document.getElementById('review-count').textContent === '1'")
        nav.click()
        item = lead.locator(f".review-item[data-post-id='{post_id}']")
        item.wait_for()
        assert "by cleo" in item.text_content() and "Waiting for your review" in item.text_content()
        # Nine views, the workspace and the buttons keep one row at 1440 px.
        rows = {round(lead.locator(s).bounding_box()["y"]) for s in (".product", "#refresh")}
        assert len(rows) == 1 or max(rows) - min(rows) < 20, rows
        shoot(lead, "review-needs-review")
        shoot_at_phone_width(lead, "review-needs-review-phone", ".review-item", back=WIDE)
        assert lead.locator("#menu-toggle").get_attribute("data-count") == "1"
        item.locator("a").click()
        lead.get_by_role("button", name="Request changes…").click()
        lead.fill("#changes-comment", "Name the photographer, @cleo, and add the price.")
        lead.get_by_role("button", name="Send back to draft").click()
        lead.locator(".badges .status-draft").wait_for()
        lead.locator(".comment").first.wait_for()
        lead.locator("#review-count:empty").wait_for(state="attached")  # counted again: none

        cleo.get_by_role("button", name="Refresh").click()
        comment = cleo.locator(".comment").first
        comment.wait_for()
        assert workspace in comment.text_content() and "add the price" in comment.text_content()
        assert cleo.locator("[data-field=reviewer]").text_content() == workspace
        cleo.fill("#comment-body", "Done: Ana took them, €49.")
        cleo.get_by_role("button", name="Comment").click()
        cleo.locator(".comment").nth(1).wait_for()
        cleo.get_by_role("button", name="Submit for review").click()
        cleo.locator(".badges .status-in-review").wait_for()
        assert cleo.get_by_role("button", name="Approve").count() == 0  # never her own

        lead.get_by_role("button", name="Refresh").click()
        lead.locator(".badges .status-in-review").wait_for()
        assert "€49" in lead.locator(".comment").nth(1).text_content()
        lead.get_by_role("button", name="Approve").click()
        lead.locator(".badges .status-approved").wait_for()
        stored = api.get(ITEM + post_id).json
        assert stored["status"] == "Approved" and stored["approved_by"]["name"] == workspace
        assert lead.locator("[data-field=approved-by]").text_content().startswith(workspace)
        shoot(lead, "review-approved")
        cleo.get_by_role("button", name="Refresh").click()
        cleo.locator(".badges .status-approved").wait_for()
        shoot_at_phone_width(cleo, "review-thread-phone", ".comment", back=PHONE)
        # Scheduled, it is on both members' calendars, by its author, approved by the owner.
        when = (datetime.now(UTC) + timedelta(hours=3)).isoformat()
        r = api.patch(
            ITEM + post_id,
            {"status": "Scheduled", "scheduled_at": when},
            headers={"If-Match": f'"{stored["version"]}"'},
        )
        assert r.status == 200, r
        day = (
            datetime.fromisoformat(r.json["scheduled_at"].replace("Z", "+00:00"))
            .astimezone(ZoneInfo(ZONE))
            .date()
        )
        for page in (lead, cleo):
            page.goto(f"{server.url}{DASHBOARD}#/calendar/{day.isoformat()}")
            card = page.locator(f".post-card[data-post-id='{post_id}'] .card-author")
            card.wait_for()
            assert card.text_content() == f"by cleo · approved by {workspace}"
        assert cleo.get_by_role("link", name="Set up a channel").count() == 0  # an editor's
        shoot(cleo, "review-calendar-contributor")
        lead.locator(f".post-card[data-post-id='{post_id}']").click()
        lead.get_by_role("button", name="Unschedule").click()
        lead.locator(".badges .status-approved").wait_for()  # its approval kept
        assert api.get(ITEM + post_id).json["approved_by"]["name"] == workspace
        assert_clean(lead, server)


def test_deleting_a_post_in_review_goes_back_to_needs_review(browser, server):
    """The queue has no tab for In review: a deleted one leads to Needs review."""
    _, key = new_user(server)
    api = Client(server.url, key)
    require_approvals(api)
    post = api.post(f"{API}/api-v2-posts", {"type": "personal", "content": "Withdrawn idea"}).json
    r = api.post(f"{API}/api-v2-posts-review/{post['id']}", {"action": "submit"})
    assert r.status == 200 and r.json["post"]["status"] == "In review", r
    with tab(browser, server, WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")
        page.get_by_role("button", name="Delete").click()
        page.locator("#confirm-yes").click()
        page.get_by_role("heading", name="Needs review").wait_for()
        page.get_by_text("Nothing waits for a review.").wait_for()
        assert api.get(ITEM + post["id"]).status == 404
