"""The dashboard's workspace and members, in headless Chromium against real
gunicorn: the workspace and the member in the header, the Members page
(invite with the link shown once, change a role, remove, the last owner
explained, what other roles see), and an invitation taken up in a second
browser context, whose member then sees the same calendar as the owner.
Screenshots at 1440 and 390 px in test-artifacts/."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from harness import Client, create_key
from harness.api import API, DASHBOARD, ITEM, ME, POSTS
from tests.dashboard_support import (
    PHONE,
    WIDE,
    ZONE,
    assert_clean,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)

MEMBERS = f"{API}/members"


@pytest.fixture
def server(dashboard_gunicorn):
    """The dashboard's gunicorn of this pytest process (tests/conftest.py)."""
    return dashboard_gunicorn


@pytest.fixture
def owner(server):
    """A new workspace and its owner's key: (workspace name, key)."""
    return new_user(server)


def scheduled(api, content, hours=3):
    """A post of `api`'s workspace, Scheduled `hours` from now."""
    post = api.post(POSTS, {"type": "personal", "content": content}).json
    when = (datetime.now(UTC) + timedelta(hours=hours)).isoformat()
    r = api.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": when})
    assert r.status == 200, r
    return r.json


def local_day(stamp):
    """The day of the service's UTC `stamp` in the browser's zone: the week to show."""
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment.astimezone(ZoneInfo(ZONE)).date().isoformat()


def invite_in_page(page, name, role):
    """Invite `name` as `role` from the open Members page: the link shown once."""
    page.fill("#invite-name", name)
    page.fill("#invite-email", f"{name}@example.com")
    page.select_option("#invite-role", role)
    page.get_by_role("button", name="Invite").click()
    page.locator("#invite-url").wait_for()
    return page.locator("#invite-url").input_value()


def accept_in_page(page, server, url):
    """Open the invite link in `page`, accept it: the new member's key."""
    page.goto(url)
    page.get_by_role("heading", name="You are invited").wait_for()
    page.get_by_role("button", name="Accept the invitation").click()
    page.locator("#new-key").wait_for()
    return page.locator("#new-key").input_value()


def test_invite_accept_and_two_members_share_the_calendar(browser, server, owner):
    """The owner invites Bea as an editor (the link shown once, copied), Bea
    takes it up in a browser of her own (the workspace and role named, her
    first key shown once, the tab signed in with it), and both see the
    owner's post, by its author, on the same calendar."""
    workspace, key = owner
    api = Client(server.url, key)
    post = scheduled(api, "Spring launch: our team's first post together")
    with tab(browser, server, WIDE, permissions=["clipboard-read", "clipboard-write"]) as lead:
        sign_in(lead, server, key)
        assert lead.locator("#workspace-name").text_content() == workspace
        assert lead.locator("#member-name").text_content() == workspace  # its owner, same name
        assert lead.locator("#member-role").text_content() == "owner"
        lead.get_by_role("link", name="Members").click()
        lead.get_by_role("heading", name="Members").wait_for()
        url = invite_in_page(lead, "bea", "editor")
        assert url.startswith(f"{server.url}{DASHBOARD}#/invite/")
        lead.get_by_role("button", name="Copy").click()
        lead.get_by_text("Copied.").wait_for()
        assert lead.evaluate("() => navigator.clipboard.readText()") == url
        lead.locator("tr[data-member=bea]").wait_for()
        shoot(lead, "members-invite")
        lead.get_by_role("button", name="Done").click()
        assert lead.locator("#invite-url").count() == 0  # shown once: gone from the page

        with tab(browser, server, WIDE) as bea:
            bea_key = accept_in_page(bea, server, url)
            assert bea.get_by_role("heading", name=f"Welcome to {workspace}").is_visible()
            assert "bea" in bea.locator(".invite-who").text_content()
            assert bea.locator(".invite-who .role-badge").text_content() == "editor"
            shoot(bea, "invite-accepted")
            bea.get_by_role("button", name="I have kept it: open the calendar").click()
            bea.locator("#keybar").wait_for()
            assert bea.locator("#member-name").text_content() == "bea"
            assert bea.locator("#member-role").text_content() == "editor"
            assert bea.locator("#workspace-name").text_content() == workspace
            me = Client(server.url, bea_key).get(ME).json
            assert (me["member"]["name"], me["member"]["role"]) == ("bea", "editor")
            assert me["workspace"]["name"] == workspace

            # Both calendars show the same post, with its author.
            for page in (lead, bea):
                page.goto(f"{server.url}{DASHBOARD}#/calendar/{local_day(post['scheduled_at'])}")
                card = page.locator(f".post-card[data-post-id='{post['id']}']")
                card.wait_for()
                assert card.locator(".card-author").text_content() == f"by {workspace}"
            # Bea's post reaches the owner's open calendar, by her name.
            hers = scheduled(
                Client(server.url, bea_key), "Bea's first: the launch recap", hours=3.1
            )
            lead.get_by_role("button", name="Refresh").click()
            card = lead.locator(f".post-card[data-post-id='{hers['id']}']")
            card.wait_for()
            assert card.locator(".card-author").text_content() == "by bea"
            shoot(lead, "members-calendar-owner")
            shoot(bea, "members-calendar-editor")
            bea.locator(f".post-card[data-post-id='{post['id']}']").click()
            assert bea.locator("[data-field=author]").text_content() == workspace

            # An invitation opened in a signed-in tab and left: back to the calendar, signed in.
            lead.goto(f"{server.url}{DASHBOARD}#/invite/not-accepted")
            lead.get_by_role("heading", name="You are invited").wait_for()
            lead.evaluate("() => { location.hash = '#/members'; }")
            lead.locator("tr[data-member=bea]").wait_for()
            assert lead.locator("#member-role").text_content() == "owner"

            # The link worked once: opened again, it says so.
            bea.goto(url)
            bea.get_by_role("button", name="Accept the invitation").click()
            alert = bea.locator("[data-code=invite_used]")
            alert.wait_for()
            assert "used already" in alert.text_content()
            assert_clean(lead, server)


def test_roles_changed_last_owner_explained_and_a_member_removed(browser, server, owner):
    """The owner makes Cai a contributor, is told why they cannot step down
    (the last owner), removes Cai (confirmed), whose open tab is then signed
    out; a contributor's Members page lists everyone with no actions, and
    the owner's draft offers them Duplicate, not Edit or Delete."""
    workspace, key = owner
    api = Client(server.url, key)
    made = api.post(MEMBERS, {"name": "cai", "email": None, "role": "editor"}).json
    post = api.post(POSTS, {"type": "personal", "content": "The owner's draft"}).json
    with tab(browser, server, WIDE) as cai:
        cai_key = accept_in_page(cai, server, made["invite_url"])
        cai.get_by_role("button", name="I have kept it: open the calendar").click()
        cai.locator("#keybar").wait_for()
        with tab(browser, server, WIDE) as lead:
            sign_in(lead, server, key)
            lead.goto(f"{server.url}{DASHBOARD}#/members")
            row = lead.locator("tr[data-member=cai]")
            row.wait_for()
            row.get_by_label("Role of cai").select_option("contributor")
            lead.get_by_text("cai is now contributor.").wait_for()
            assert api.get(MEMBERS).json["data"][1]["role"] == "contributor"

            lead.get_by_label(f"Role of {workspace}").select_option("viewer")
            alert = lead.locator("[data-code=last_owner]")
            alert.wait_for()
            assert "a workspace keeps at least one owner" in alert.text_content()
            assert "make another member owner first" in alert.text_content()
            assert api.get(ME).json["member"]["role"] == "owner"  # nothing changed
            lead.locator(f"#role-{api.get(ME).json['member']['id']}").wait_for()
            assert lead.get_by_label(f"Role of {workspace}").input_value() == "owner"
            shoot(lead, "members-last-owner")

            # The contributor sees who is in, and no way to change it.
            cai.reload()
            cai.locator("#member-role").wait_for()
            assert cai.locator("#member-role").text_content() == "contributor"
            cai.goto(f"{server.url}{DASHBOARD}#/members")
            cai.locator("tr[data-member=cai]").wait_for()
            assert cai.locator("#invite-name").count() == 0
            assert cai.locator(".members-table select, .members-table button").count() == 0
            assert "your role is contributor" in cai.locator("[data-read-only]").text_content()
            shoot_at_phone_width(cai, "members-contributor-phone", "tr[data-member=cai]")
            # Another's post: no Edit or Delete, and why; channels are an editor's.
            cai.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")
            cai.locator("[data-contributor]").wait_for()
            actions = cai.locator(".action-bar .actions").text_content()
            assert "Duplicate" in actions and "Edit" not in actions and "Delete" not in actions
            cai.goto(f"{server.url}{DASHBOARD}#/channels")
            cai.get_by_role("heading", name="Channels").wait_for()
            assert cai.get_by_role("button", name="New channel").count() == 0

            lead.get_by_role("button", name="Remove cai").click()
            assert (
                "Every key of theirs stops working" in lead.locator("#confirm-text").text_content()
            )
            lead.locator("#confirm-yes").click()
            lead.get_by_text("cai was removed").wait_for()
            assert api.get(MEMBERS).json["data"][1]["removed_at"]
            assert Client(server.url, cai_key).get(ME).status == 401
            cai.get_by_role("button", name="Refresh").click()
            cai.locator("#sign-in-problem [role=alert]").wait_for()
            lead.locator("details.removed-members summary").click()
            lead.locator(".removed-members tr[data-member=cai]").wait_for()
            shoot_at_phone_width(lead, "members-phone", "tr[data-member=cai]", back=WIDE)


def test_an_admin_cannot_touch_owners_and_a_viewer_sees_the_header_at_phone_width(
    browser, server, owner
):
    """An admin's role choices leave out owner, an owner's row has no
    actions for them, and they make Eli a viewer; a viewer's header names the workspace and the role at
    390 px, and a viewer cannot reach the invite form."""
    workspace, key = owner
    api = Client(server.url, key)
    admin = api.post(MEMBERS, {"name": "dia", "email": None, "role": "admin"}).json
    viewer = api.post(MEMBERS, {"name": "eli", "email": None, "role": "editor"}).json
    with tab(browser, server, WIDE) as page:
        accept_in_page(page, server, admin["invite_url"])
        page.get_by_role("button", name="I have kept it: open the calendar").click()
        page.locator("#keybar").wait_for()
        page.goto(f"{server.url}{DASHBOARD}#/members")
        page.locator(f"tr[data-member='{workspace}']").wait_for()
        choices = page.locator("#invite-role option").all_text_contents()
        assert choices == ["admin", "editor", "contributor", "viewer"]
        owner_row = page.locator(f"tr[data-member='{workspace}']")
        assert owner_row.locator("select, button").count() == 0
        assert page.locator("tr[data-member=eli] select").count() == 1
        page.locator("tr[data-member=eli]").get_by_label("Role of eli").select_option("viewer")
        page.get_by_text("eli is now viewer.").wait_for()
    with tab(browser, server, PHONE) as page:
        accept_in_page(page, server, viewer["invite_url"])
        shoot(page, "invite-accepted-phone")
        page.get_by_role("button", name="I have kept it: open the calendar").click()
        page.locator("#keybar").wait_for()
        assert page.locator("#workspace-name").is_visible()
        assert page.locator("#member-role").text_content() == "viewer"
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"]
        shoot_at_phone_width(page, "header-viewer-phone", ".view h1", back=PHONE)
        page.goto(f"{server.url}{DASHBOARD}#/members")
        page.locator("tr[data-member=eli]").wait_for()
        assert page.locator("#invite-name").count() == 0


def test_the_header_names_the_workspace_for_an_older_key(browser, server):
    """A key made with `keys create --user` belongs to its workspace's owner:
    the header says so, and a key with members:manage missing sees no form."""
    name, _ = new_user(server)
    key = create_key(server.database, user=name, scopes=["posts:read", "posts:write"])
    with tab(browser, server) as page:
        sign_in(page, server, key)
        assert page.locator("#workspace-name").text_content() == name
        page.goto(f"{server.url}{DASHBOARD}#/members")
        page.locator(f"tr[data-member='{name}']").wait_for()
        assert page.locator("#invite-name").count() == 0
        assert page.locator("#scopes-toggle").text_content() == "2 of 7 scopes"
