"""The dashboard's planning views: queue search, channel
filter and bulk actions; the Channels view with its weekly slot editor and
guards; webhook endpoints managed in the Deliveries view; CSV import with
per-row errors, its template with every column, and posts imported with a
document, its title and a first comment.

Headless Chromium against real gunicorn, one server for the module; every
change is read back through the API. Screenshots at 1280 px and at phone
width land in test-artifacts/dashboard-*.png.
"""

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfWriter

from harness import Client
from harness.api import API, CHANNELS, DASHBOARD, ITEM, POSTS
from harness.paths import ROOT
from tests.dashboard_support import (
    assert_clean,
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
    return new_user(server)


def later(hours):
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def rows(page):
    return page.locator("tbody tr")


def wait_for_rows(page, *posts):
    """Wait until the table shows exactly these posts. Counting rows is not
    enough: a filter that swaps one row for another keeps the count."""
    page.wait_for_function(
        """ids => {
            const shown = [...document.querySelectorAll('tbody tr')].map(r => r.dataset.postId);
            return shown.length === ids.length && ids.every(id => shown.includes(id));
        }""",
        arg=[p["id"] for p in posts],
    )


def test_queue_search_channel_filter_and_bulk_actions(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    assert api.post(CHANNELS, {"type": "brand", "brand_id": "acme", "name": "Acme"}).ok

    def make(content, brand=None, status=None, hours=3):
        body = {"type": "brand", "brand_id": brand} if brand else {"type": "personal"}
        post = api.post(POSTS, {**body, "content": content}).json
        if status:
            r = api.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": later(hours)})
            assert r.status == 200, r
            post = r.json
        if status == "Failed":
            post = api.patch(ITEM + post["id"], {"status": "Failed", "last_error": "429"}).json
        return post

    sale = make("Spring sale starts Monday")
    make("Autumn notes from the team")
    spring_brand = make("Spring news from Acme", brand="acme")
    other_brand = make("Other brand spring", brand="globex")
    due = [make(f"Scheduled spring {n}", status="Scheduled", hours=3 + n) for n in range(2)]
    failed = make("Failed spring post", status="Failed")

    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        rows(page).nth(3).wait_for()
        # Search: every word must occur in the post, in any case.
        page.fill("#queue-q", "SPRING")
        page.get_by_role("button", name="Search", exact=True).click()
        page.wait_for_url(re.compile(r"q=SPRING"))
        wait_for_rows(page, sale, spring_brand, other_brand)
        assert page.text_content(".tab[aria-current=page] .tab-count") == "3"
        assert page.text_content("a.tab[href^='#/queue/Scheduled'] .tab-count") == "2"
        # One brand's channel: only its posts, counts included.
        page.select_option("#queue-channel", "acme")
        page.get_by_role("button", name="Search", exact=True).click()
        page.wait_for_url(re.compile(r"channel=acme"))
        wait_for_rows(page, spring_brand)
        page.select_option("#queue-channel", "personal")
        page.get_by_role("button", name="Search", exact=True).click()
        page.wait_for_url(re.compile(r"channel=personal"))
        wait_for_rows(page, sale)
        assert "Spring sale" in rows(page).first.text_content()
        shoot(page, "queue-search")
        page.get_by_role("link", name="Clear").click()

        # Scheduled: select all, unschedule; both are Drafts again.
        page.click("a.tab[href='#/queue/Scheduled']")
        rows(page).nth(1).wait_for()
        bar = page.locator(".bulk-bar")
        assert bar.locator("button").first.is_disabled()
        page.check("#select-all")
        assert bar.locator(".bulk-count").text_content() == "2 selected"
        shoot(page, "queue-bulk")
        bar.locator("[data-bulk=unschedule]").click()
        page.locator(".empty", has_text="No scheduled posts.").wait_for()
        assert {api.get(ITEM + p["id"]).json["status"] for p in due} == {"Draft"}
        patches = [r for r in page.api_requests if r.method == "PATCH"]
        assert len(patches) == 2 and all(r.headers.get("if-match") for r in patches)

        # Failed: retry, a few minutes from now.
        page.click("a.tab[href='#/queue/Failed']")
        page.locator(f"tr[data-post-id='{failed['id']}'] input[type=checkbox]").check()
        page.locator("[data-bulk=retry]").click()
        page.locator(".empty", has_text="No failed posts.").wait_for()
        retried = api.get(ITEM + failed["id"]).json
        assert retried["status"] == "Scheduled" and retried["last_error"] is None

        # Drafts: duplicate two, then delete one of them.
        page.click("a.tab[href='#/queue/Draft']")
        # The Draft view drawn (the Failed one, now empty, had a search box
        # too: one filled before the redraw is lost with it).
        page.locator("a.tab[href^='#/queue/Draft'][aria-current=page]").wait_for()
        rows(page).first.wait_for()
        page.fill("#queue-q", "autumn")
        page.get_by_role("button", name="Search", exact=True).click()
        page.wait_for_function("() => document.querySelectorAll('tbody tr').length === 1")
        page.check("#select-all")
        page.locator("[data-bulk=duplicate]").click()
        page.wait_for_function("() => document.querySelectorAll('tbody tr').length === 2")
        autumn = api.get(f"{POSTS}?q=autumn").json["data"]
        assert [p["content"] for p in autumn] == ["Autumn notes from the team"] * 2
        page.locator(f"tr[data-post-id='{autumn[0]['id']}'] input[type=checkbox]").check()
        page.locator("[data-bulk=delete]").click()
        page.click("#confirm-yes")
        page.wait_for_function("() => document.querySelectorAll('tbody tr').length === 1")
        assert api.get(ITEM + autumn[0]["id"]).status == 404
        shoot_at_phone_width(page, "queue-bulk-phone", "tbody tr")
        assert_clean(page, server)


def test_channels_view_slots_and_guards(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.get_by_role("link", name="Channels", exact=True).click()
        page.locator(".empty", has_text="No channels yet").wait_for()
        page.get_by_role("button", name="New channel").click()
        page.select_option("#ch-type", "brand")
        page.fill("#ch-brand_id", "acme-corp")
        page.fill("#ch-name", "Acme Corp")
        page.fill("#ch-author_urn", "urn:li:person:abc")  # wrong form for a brand
        page.fill("#ch-timezone", "Europe/Berlin")
        for day, at in (("mon", "09:00"), ("mon", "13:30"), ("wed", "14:30")):
            page.fill(f"#slot-{day}", at)
            page.locator(f".slot-day[data-day={day}] button", has_text="Add").click()
        page.locator(".slot-day[data-day=mon] .slot-time[data-time='13:30']").wait_for()
        page.fill("#ch-min_gap_minutes", "90")
        page.fill("#ch-daily_cap", "3")
        page.get_by_role("button", name="Create channel").click()
        alert = page.locator(".channel-form [role=alert]")
        alert.wait_for()
        assert "author_urn" in alert.text_content()
        assert page.get_attribute("#ch-author_urn", "aria-invalid") == "true"
        page.fill("#ch-author_urn", "urn:li:organization:42")
        shoot(page, "channels-form")
        page.get_by_role("button", name="Create channel").click()
        card = page.locator(".channel-card[data-channel-id='acme-corp']")
        card.wait_for()
        stored = api.get(f"{API}/channels-item/acme-corp").json
        assert stored["name"] == "Acme Corp" and stored["timezone"] == "Europe/Berlin"
        assert stored["author_urn"] == "urn:li:organization:42"
        assert sorted((s["day"], s["time"]) for s in stored["slots"]) == [
            ("mon", "09:00"),
            ("mon", "13:30"),
            ("wed", "14:30"),
        ]
        assert (stored["min_gap_minutes"], stored["daily_cap"]) == (90, 3)

        # The next week's slots, in the channel's zone.
        card.locator("summary").click()
        card.locator(".upcoming li").first.wait_for()
        assert card.locator(".upcoming li").count() == 3
        assert "Europe/Berlin" in card.locator(".upcoming").text_content()

        # Edit: one slot fewer, no daily cap.
        card.get_by_role("button", name="Edit").click()
        page.get_by_role("button", name="Remove Mon 13:30").click()
        page.fill("#ch-daily_cap", "")
        page.get_by_role("button", name="Save channel").click()
        page.locator("#notice", has_text=" saved.").wait_for()
        stored = api.get(f"{API}/channels-item/acme-corp").json
        assert len(stored["slots"]) == 2 and stored["daily_cap"] is None
        shoot(page, "channels")
        shoot_at_phone_width(page, "channels-phone", ".channel-card")

        card.get_by_role("button", name="Delete").click()
        page.click("#confirm-yes")
        page.locator(".empty", has_text="No channels yet").wait_for()
        assert api.get(f"{API}/channels-item/acme-corp").status == 404
        assert_clean(page, server)


def test_deliveries_add_ping_disable_and_delete_an_endpoint(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.get_by_role("link", name="Deliveries", exact=True).click()
        page.get_by_role("button", name="Add endpoint").click()
        page.fill("#endpoint-url", "ftp://nowhere")
        page.get_by_role("button", name="Create endpoint").click()
        page.locator(".endpoint-form [role=alert]").wait_for()
        assert page.get_attribute("#endpoint-url", "aria-invalid") == "true"
        page.fill("#endpoint-url", "http://127.0.0.1:9/hook")
        page.fill("#endpoint-description", "n8n on this host")
        page.get_by_role("button", name="Create endpoint").click()
        secret = page.locator(".secret-box [data-secret]")
        secret.wait_for()
        assert secret.text_content().startswith("whsec_")
        endpoint = api.get(f"{API}/webhooks").json["data"][0]
        assert endpoint["url"] == "http://127.0.0.1:9/hook" and "secret" not in endpoint
        assert "post.due" not in endpoint["events"] and "post.published" in endpoint["events"]
        shoot(page, "deliveries-secret")
        page.get_by_role("button", name="I have copied it").click()
        assert page.locator(".secret-box").count() == 0  # shown once: gone for good

        card = page.locator(f".endpoint-card[data-endpoint-id='{endpoint['id']}']")
        card.get_by_role("button", name="Send test ping").click()
        page.locator("#notice", has_text="Test ping queued").wait_for()
        page.locator("tbody tr", has_text="ping").wait_for()
        log = api.get(f"{API}/webhook-deliveries?event_type=ping").json["data"]
        assert len(log) == 1 and log[0]["endpoint_id"] == endpoint["id"]
        shoot(page, "deliveries-endpoints")

        card.get_by_role("button", name="Disable").click()
        card.get_by_role("button", name="Enable").wait_for()
        assert card.get_by_role("button", name="Send test ping").is_disabled()
        assert api.get(f"{API}/webhooks-item/{endpoint['id']}").json["enabled"] is False
        shoot_at_phone_width(page, "deliveries-endpoints-phone", ".endpoint-card")
        card.get_by_role("button", name="Delete").click()
        page.click("#confirm-yes")
        page.locator(".endpoints .empty").wait_for()
        assert api.get(f"{API}/webhooks-item/{endpoint['id']}").status == 404
        assert_clean(page, server)


def test_csv_import_shows_every_bad_row_then_imports(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    when = (datetime.now(UTC) + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    bad = (
        "\ufefftype,brand_id,content,scheduled_at\n"
        'personal,,"Hello, world",\n'
        "company,,Wrong type,\n"
        f"brand,,No brand,{when}\n"
        "personal,,Too soon,2001-01-01T00:00:00Z\n"
    )
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        page.get_by_role("link", name="Import CSV").click()
        page.set_input_files(
            "#import-file", {"name": "posts.csv", "mimeType": "text/csv", "buffer": bad.encode()}
        )
        page.wait_for_function("() => document.getElementById('import-csv').value.length > 0")
        page.get_by_role("button", name="Import", exact=True).click()
        errors = page.locator(".import-errors tbody tr")
        errors.first.wait_for()
        named = {row.get_attribute("data-row") for row in errors.all()}
        assert named == {"2", "3", "4"}, page.text_content(".import-errors")
        assert "type" in errors.first.text_content()
        assert api.get(POSTS).json["total"] == 0  # all or nothing
        shoot(page, "import-errors")
        shoot_at_phone_width(page, "import-errors-phone", ".import-errors")

        # The example and the template name every column, the new ones too.
        header = (
            "type,brand_id,content,scheduled_at,media_urls,queue,repeat,"
            "document_title,first_comment"
        )
        assert page.get_attribute("#import-csv", "placeholder").startswith(header + "\n")
        with page.expect_download() as download:
            page.click("#import-template")
        raw = download.value.path().read_bytes()
        assert raw.startswith(b"\xef\xbb\xbf")  # a byte-order mark: Excel reads it as UTF-8
        template = raw.decode("utf-8-sig")
        assert template.splitlines()[0] == header and "Q3 in ten slides" in template
        # The docs show the same template, local time and all.
        documented = (ROOT / "docs" / "planning.md").read_text()
        assert all(line in documented for line in template.splitlines()), template
        assert "2030-01-07 09:00" in template

        # A document post with its title and a first comment, scheduled.
        writer = PdfWriter()
        writer.add_blank_page(width=595, height=842)
        document = io.BytesIO()
        writer.write(document)
        r = api.request(
            "POST", f"{API}/media", document.getvalue(), headers={"Content-Type": "application/pdf"}
        )
        assert r.status == 201, r
        good = (
            "type,content,scheduled_at,media_urls,document_title,first_comment\n"
            'personal,"Hello, world",,,,\n'
            f'personal,Later,{when},media:{r.json["id"]},Q3 in ten slides,"Questions (welcome)"\n'
        )
        page.fill("#import-csv", good)
        page.get_by_role("button", name="Import", exact=True).click()
        page.locator(".import-posts li").nth(1).wait_for()
        stored = api.get(f"{POSTS}?order=scheduled_at").json["data"]
        assert sorted((p["content"], p["status"]) for p in stored) == [
            ("Hello, world", "Draft"),
            ("Later", "Scheduled"),
        ]
        [imported] = [p for p in stored if p["content"] == "Later"]
        assert imported["document_title"] == "Q3 in ten slides"
        assert imported["first_comment"] == "Questions (welcome)"
        assert imported["media_urls"][0].endswith(f"/media/{r.json['id']}.pdf")
        imports = [r for r in page.api_requests if r.url.endswith("/api-v2-posts-import")]
        assert all(r.headers["content-type"] == "text/csv" for r in imports)
        assert all(r.headers.get("idempotency-key") for r in imports)
        assert_clean(page, server)
