"""Every person's profile in the dashboard, in headless Chromium against
real gunicorn and the LinkedIn stand-in, two members in two browser
contexts: the marketing lead sees the CEO's connected profile under
Channels (and "Connect my LinkedIn profile" for herself), drafts a post for
the CEO, warned before saving that the CEO approves it; the CEO finds it
under Needs review (approvals are off in this workspace), approves it, and
schedules it; the calendar shows it by the channel's name and the CEO's
initials, and keeps to one channel when asked. Pictures at 1440 px in
test-artifacts/."""

from datetime import UTC, datetime, timedelta

import pytest

from harness import Client, free_port, serve
from harness.api import API, CALLBACK, CHANNELS, DASHBOARD, ITEM, POSTS, STATS
from tests.dashboard_support import (
    SERVER_ENV,
    WIDE,
    assert_clean,
    at,
    local_input,
    new_user,
    shoot,
    sign_in,
    tab,
)
from tests.linkedin_support import connect_live, environment, linkedin_for


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    tmp = tmp_path_factory.mktemp("dashboard-profiles")
    with linkedin_for(url) as standin:
        env = {**SERVER_ENV, **environment(standin, url)}
        with serve(tmp, workers=2, env=env, port=port, log=tmp / "gunicorn.log") as server:
            server.tmp, server.linkedin = tmp, standin
            yield server


def member_key(api, server, name, role):
    """Invite `name` as `role` and take the invitation up: their first key."""
    url = api.post(f"{API}/members", {"name": name, "email": None, "role": role}).json["invite_url"]
    answer = Client(server.url, None).post(
        f"{API}/invites-accept", {"token": url.split("#/invite/")[1]}
    )
    assert answer.status == 201, answer
    return answer.json["key"]


def published(api, channel_id, figures):
    """A Published post on the channel per (impressions, interactions), with its stats."""
    for n, (impressions, interactions) in enumerate(figures):
        post = api.post(
            POSTS,
            {
                "channel_id": channel_id,
                "content": f"Went out on {channel_id}, {n + 1} of {len(figures)}",
            },
        ).json
        # a minute apart: no two posts of a channel share a minute
        api.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": at(60 + 60 * n)})
        done = api.post(CALLBACK, {"post_id": post["id"], "linkedin_post_id": f"urn:li:share:{n}"})
        assert done.status == 200, done
        snapshot = {"post_id": post["id"], "taken_at": done.json["published_at"]}
        snapshot.update(impressions=impressions, reactions=interactions)
        r = api.post(STATS, {"data": [snapshot]})
        assert r.status == 200 and r.json["refused"] == 0, r


def test_the_lead_drafts_for_the_ceo_who_approves_it_and_it_is_scheduled(browser, server):
    _, owner_key = new_user(server)  # the workspace's first member, who invites the others
    owner = Client(server.url, owner_key)
    ceo_name, ceo_key = "Cleo", member_key(owner, server, "Cleo", "admin")
    lead_key = member_key(owner, server, "Mark", "editor")
    ceo = Client(server.url, ceo_key)
    zone = "Pacific/Auckland"
    r = ceo.post(CHANNELS, {"type": "personal", "name": "Cleo (CEO)", "timezone": zone})
    assert r.status == 201, r
    server.linkedin.accounts.add_member("cleo-5ub", "Cleo Park")
    server.linkedin.accounts.sign_in("cleo-5ub")  # Cleo's browser, signed in to LinkedIn as her
    profile = connect_live(ceo, server.linkedin, r.json["id"])
    assert profile["connection"]["member_name"] == "Cleo Park"
    when = (datetime.now(UTC) + timedelta(days=2)).replace(minute=30, second=0, microsecond=0)
    with tab(browser, server, WIDE) as lead, tab(browser, server, WIDE) as boss:
        sign_in(lead, server, lead_key)
        lead.goto(f"{server.url}{DASHBOARD}#/channels")
        card = lead.locator(f".channel-card[data-channel-id='{profile['id']}']")
        card.wait_for()
        assert (
            "Profile of" in card.text_content() and "Connected as Cleo Park" in card.text_content()
        )
        assert card.locator(".avatar").text_content() == "CP"  # the connected member's initials
        assert (
            card.get_by_role("button", name="Connect LinkedIn").count() == 0
        )  # the CEO's to connect
        assert lead.get_by_role("button", name="Connect my LinkedIn profile").is_visible()
        shoot(lead, "profiles-channels")

        # The composer picks the CEO's profile by name and says, before saving, who approves.
        lead.goto(f"{server.url}{DASHBOARD}#/posts/new")
        lead.locator("#channel").wait_for()
        lead.select_option("#channel", label=f"Cleo (CEO) · {ceo_name}'s profile")
        warning = lead.locator(".owner-approval")
        warning.wait_for()
        assert f"{ceo_name} approves this post" in warning.text_content()
        form = lead.locator("form.post-form")
        assert form.get_by_role("button", name="Schedule").count() == 0
        lead.fill("#content", "Three lessons from our first year, in my own words")
        lead.fill("#scheduled_at", local_input(when))
        lead.locator(".preview-panel[data-fresh=true]").wait_for()
        shoot(lead, "profiles-composer")
        form.get_by_role("button", name="Submit for review").click()
        lead.locator(".badges .status-in-review").wait_for()
        post_id = lead.url.rsplit("/", 1)[1]
        stored = ceo.get(ITEM + post_id).json
        assert (stored["status"], stored["channel_id"]) == ("In review", profile["id"])

        # The CEO, approvals off in this workspace, finds it under Needs review.
        sign_in(boss, server, ceo_key)
        nav = boss.locator("#views-nav a[data-section=review]")
        boss.wait_for_function("() => document.getElementById('review-count').textContent === '1'")
        assert nav.is_visible()
        nav.click()
        item = boss.locator(f".review-item[data-post-id='{post_id}']")
        item.wait_for()
        assert (
            "Waiting for your approval" in item.text_content() and "by Mark" in item.text_content()
        )
        assert "Cleo (CEO)" in item.locator(".badge.type").text_content()
        shoot(boss, "profiles-needs-review")
        item.locator("a").click()
        assert "Once approved: scheduled for" in boss.locator(".state-note").text_content()
        boss.get_by_role("button", name="Approve").click()
        # submitted with its time, it is scheduled for it the moment it is approved
        boss.locator(".badges .status-scheduled").wait_for()
        stored = ceo.get(ITEM + post_id).json
        assert stored["status"] == "Scheduled" and stored["approved_by"]["name"] == ceo_name
        assert stored["intent"] is None
        assert stored["scheduled_at"][:16] == when.astimezone(UTC).isoformat()[:16]

        # On the lead's calendar: the channel's name and the CEO's initials, one channel kept to.
        day = local_input(when)[:10]
        lead.goto(f"{server.url}{DASHBOARD}#/calendar/{day}")
        badge = lead.locator(f".post-card[data-post-id='{post_id}'] .badge.type")
        badge.wait_for()
        assert (
            "Cleo (CEO)" in badge.text_content() and badge.locator(".avatar").text_content() == "CP"
        )
        lead.select_option("#calendar-channel", profile["id"])
        lead.wait_for_url(f"**channel={profile['id']}")
        lead.locator(f".post-card[data-post-id='{post_id}']").wait_for()
        lead.click("#refresh")  # the count beside Needs review, read again: none waits now
        lead.locator("#review-nav").wait_for(state="hidden")
        shoot(lead, "profiles-calendar")

        # The analytics compare the channels side by side: Cleo's profile and the brand page.
        published(ceo, profile["id"], [(1200, 60), (800, 20)])
        owner.post(CHANNELS, {"type": "brand", "brand_id": "acme", "name": "Acme"})
        published(owner, "acme", [(3000, 45)])
        lead.goto(f"{server.url}{DASHBOARD}#/analytics?channel=&days=30")
        table = lead.locator("#channels table")
        table.wait_for(state="attached")
        rows = [r.text_content() for r in table.locator("tbody tr").all()]
        assert rows[0].startswith("Acme") and "3,000" in rows[0] and "1.5%" in rows[0], rows
        assert rows[1].startswith("CP Cleo (CEO)") and "2,000" in rows[1] and "4.0%" in rows[1], (
            rows
        )
        shoot(lead, "profiles-analytics")
        assert_clean(lead, server)
        assert_clean(boss, server)
