"""The dashboard as a content planner: the composer (channel
picker, images uploaded to the media library, the LinkedIn preview, the
repeat picker, Save draft / Schedule / Add to queue in one step), the post's
history, and the month calendar with drag-to-reschedule.

Headless Chromium against real gunicorn, one server for the module, in
Pacific/Auckland time as tests/test_dashboard.py; screenshots at 1280 px and
at phone width land in test-artifacts/dashboard-planner-*.png.
"""

import io
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from PIL import Image
from pypdf import PdfWriter

from content_publishing.linkedin import escape
from harness import Client
from harness.api import API, CHANNELS, DASHBOARD, ITEM, POSTS
from tests.dashboard_support import (
    WIDE,
    ZONE,
    assert_clean,
    drop,
    new_user,
    patch_answered,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)


@pytest.fixture
def server(dashboard_gunicorn):
    """The dashboard's gunicorn of this pytest process (tests/conftest.py),
    whose media URLs are on its own origin: the page's policy shows those."""
    return dashboard_gunicorn


@pytest.fixture
def user(server):
    return new_user(server)


def loaded_widths(page, selector):
    """The natural widths of the pictures `selector` finds, once the browser
    has fetched them all (a broken picture is complete too, with width 0):
    a thumbnail's <img> shows before its picture has arrived."""
    page.wait_for_function(
        "(selector) => [...document.querySelectorAll(selector)].every((img) => img.complete)",
        arg=selector,
    )
    return page.locator(selector).evaluate_all("(imgs) => imgs.map((img) => img.naturalWidth)")


def png(color, size=(64, 48)):
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def brand_channel(api, brand, **extra):
    body = {"type": "brand", "brand_id": brand, "name": f"{brand.title()} page", **extra}
    r = api.post(CHANNELS, body)
    assert r.status == 201, r
    return r.json


def next_local(weekday, hour):
    """The next `weekday` (0 = Monday) at `hour`:00 in the browser's zone, at least a day ahead."""
    now = datetime.now(ZoneInfo(ZONE))
    day = now + timedelta(days=1 + (weekday - now.weekday() - 1) % 7)
    return day.replace(hour=hour, minute=0, second=0, microsecond=0)


LONG = (
    "Spring launch (finally): our planner ships today with recurring posts, a queue, "
    "and a preview_of every post as LinkedIn shows it. Thank you to everyone who tried "
    "the beta and wrote to us #launch. Read the notes at https://example.com/notes_(v2) "
    "and tell us what to build next!"
)


def test_compose_with_images_preview_repeat_and_schedule(browser, server, user):
    name, key = user
    api = Client(server.url, key)
    brand_channel(api, "acme-corp", author_urn="urn:li:organization:42")
    when = next_local(0, 9)  # a Monday, 09:00 Auckland
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#channel").wait_for()
        # The picker names the channels; choosing one fills in the type and brand.
        assert "Acme-Corp page (acme-corp)" in page.locator("#channel").text_content()
        page.select_option("#channel", "acme-corp")
        assert page.is_checked("input[name=type][value=brand]")
        assert page.input_value("#brand_id") == "acme-corp"
        page.fill("#content", LONG)
        # The preview: the author, the first 210 characters and "…see more".
        preview = page.locator(".preview-panel")
        page.locator(".preview-panel[data-fresh=true]").wait_for()  # the service's answer
        text = preview.locator(".preview-text").text_content()
        assert text == LONG[:210] + "…see more"
        assert "urn:li:organization:42" in preview.text_content()
        assert preview.locator("[data-code]").count() == 0
        # The counter: characters, and the one count LinkedIn applies (the
        # escaped text), the same in the counter and the preview.
        counter = page.locator("#content-count")
        page.wait_for_function(
            """() => document.querySelector('.preview-count .linkedin-count')?.textContent
                === document.querySelector('#content-count .linkedin-count').textContent"""
        )
        escaped = int(counter.locator(".linkedin-count").text_content().split(" of ")[0])
        assert counter.text_content().startswith(f"{len(LONG)} characters")
        assert escaped > len(LONG)  # ( ) _ and ! … are escaped; the URL and #launch are not
        preview.locator(".see-more").click()
        assert preview.locator(".preview-text").text_content() == LONG

        # Two images picked: uploaded to the media library, shown as thumbnails.
        page.set_input_files(
            "#media-files",
            [
                {"name": "red.png", "mimeType": "image/png", "buffer": png("red")},
                {"name": "blue.png", "mimeType": "image/png", "buffer": png("blue")},
            ],
        )
        page.locator(".composer-thumbs .thumb img").nth(1).wait_for()
        urls = page.input_value("#media_urls").split("\n")
        assert len(urls) == 2 and all(u.startswith(f"{server.url}/media/") for u in urls)
        assert loaded_widths(page, ".composer-thumbs img") == [64, 64]
        # Media and a URL: LinkedIn will show no link card, and the preview says so.
        preview.locator("[data-code=link_preview_hidden]").wait_for()
        # One removed again.
        page.locator(".composer-thumbs .thumb-remove").nth(1).click()
        assert page.input_value("#media_urls") == urls[0]

        # Every week on Monday and Thursday, four times.
        page.select_option("#repeat-freq", "WEEKLY")
        page.check("input[name=repeat-day][value=MO]")
        page.check("input[name=repeat-day][value=TH]")
        page.select_option("#repeat-end", "count")
        page.fill("#repeat-count", "4")
        page.fill("#scheduled_at", when.strftime("%Y-%m-%dT%H:%M"))
        shoot(page, "planner-composer")
        page.get_by_role("button", name="Schedule", exact=True).click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        post_id = page.url.rsplit("/", 1)[1]
        page.locator(".view .badge.status", has_text="Scheduled").wait_for()

        stored = api.get(ITEM + post_id).json
        assert stored["status"] == "Scheduled" and stored["brand_id"] == "acme-corp"
        assert stored["content"] == LONG and stored["media_urls"] == [urls[0]]
        assert stored["repeat"] == "FREQ=WEEKLY;BYDAY=MO,TH;COUNT=4"
        assert datetime.fromisoformat(stored["scheduled_at"]) == when
        assert stored["series_id"] and stored["occurrence"] == 1

        # The post view: the picture, the repeat, and the history as a timeline.
        page.locator(".view .repeat-badge").wait_for()
        assert loaded_widths(page, ".post-media .li-media-one img") == [64]
        history = page.locator(".timeline-entry")
        history.nth(1).wait_for()
        assert [e.get_attribute("data-action") for e in history.all()] == [
            "created",
            "scheduled",
        ]
        # Each entry a sentence: what, when in the reader's zone (UTC on hover), by whom.
        assert f"Created as a draft by {name} (svc_live_" in history.nth(0).text_content()
        scheduled = history.nth(1)
        assert re.search(
            rf"Scheduled for {when:%a},? {when.day} {when:%b}", scheduled.text_content()
        )
        assert f"09:00 by {name} (svc_live_" in scheduled.text_content()
        assert "Draft → Scheduled" in scheduled.text_content()
        stamp = scheduled.locator(".timeline-sentence time")
        assert stamp.get_attribute("title").endswith("UTC")
        assert datetime.fromisoformat(stamp.get_attribute("datetime")) == when
        shoot(page, "planner-post-history")
        shoot_at_phone_width(page, "planner-post-history-phone", ".timeline-entry")

        # At phone width the composer is one column, the preview under the
        # text and images, above the time and the buttons that schedule.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post_id}/edit")
        page.locator(".preview-text").wait_for()

        def stacked(page):
            text = page.locator("#content").bounding_box()
            aside = page.locator(".preview-panel").bounding_box()
            buttons = page.locator(".post-form .actions").bounding_box()
            assert text["y"] + text["height"] <= aside["y"]
            assert aside["y"] + aside["height"] <= page.locator("#scheduled_at").bounding_box()["y"]
            assert aside["y"] + aside["height"] <= buttons["y"]

        shoot_at_phone_width(page, "planner-composer-phone", ".preview-text", stacked)
        assert_clean(page, server)


def test_save_draft_then_add_to_queue_and_refusals(browser, server, user):
    """Save draft makes a Draft; Add to queue takes the channel's next free slot;
    a channel without slots is refused with the service's reason, and the
    draft it saved is kept (no second post on the next try)."""
    _, key = user
    api = Client(server.url, key)
    slot = next_local(2, 10)  # a Wednesday, 10:00 Auckland
    r = api.post(
        CHANNELS,
        {
            "type": "personal",
            "name": "Me",
            "timezone": ZONE,
            "slots": [{"day": "wed", "time": "10:00"}],
        },
    )
    assert r.status == 201, r
    brand_channel(api, "no-slots")
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.fill("#content", "A plain draft")
        page.get_by_role("button", name="Save draft").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        draft = api.get(ITEM + page.url.rsplit("/", 1)[1]).json
        assert draft["status"] == "Draft" and draft["type"] == "personal"

        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.fill("#content", "Queued for the next slot")
        page.get_by_role("button", name="Add to queue").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        page.locator(".view .badge.status", has_text="Scheduled").wait_for()
        queued = api.get(ITEM + page.url.rsplit("/", 1)[1]).json
        assert datetime.fromisoformat(queued["scheduled_at"]) == slot.astimezone(UTC)
        page.locator(".timeline-entry[data-action=queued]").wait_for()

        # A brand channel with no slots: the queue is refused, the draft kept.
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.select_option("#channel", "no-slots")
        page.fill("#content", "Nowhere to go")
        page.get_by_role("button", name="Add to queue").click()
        alert = page.locator(".form-problem [role=alert]")
        alert.wait_for()
        assert "saved as a draft" in page.text_content(".form-problem")
        shoot(page, "planner-queue-refused")
        page.get_by_role("button", name="Add to queue").click()  # again: same post
        page.locator(".form-problem [role=alert]").wait_for()
        drafts = api.get(f"{POSTS}?status=Draft&type=brand").json
        assert [p["content"] for p in drafts["data"]] == ["Nowhere to go"]
        assert_clean(page, server)


def test_month_calendar_compose_for_a_day_and_drag_to_reschedule(browser, server, user):
    """The month shows recurring posts marked and their pictures; a drag to
    another day is a PATCH with If-Match, read back through the API; a guard's
    409 and a stale version's 412 are shown and the card goes back."""
    _, key = user
    api = Client(server.url, key)
    brand_channel(api, "acme-corp", min_gap_minutes=120)
    zone = ZoneInfo(ZONE)
    now = datetime.now(zone)
    first = (now.replace(day=1) + timedelta(days=40)).replace(day=1)  # the month after next
    day = first.replace(day=10, hour=9, minute=0, second=0, microsecond=0)
    r = api.request("POST", f"{API}/media", png("green"), headers={"Content-Type": "image/png"})
    assert r.status == 201, r
    image = r.json["url"]

    def scheduled(content, at, **extra):
        body = {"type": "brand", "brand_id": "acme-corp", "content": content, **extra}
        made = api.post(POSTS, body).json
        r = api.patch(ITEM + made["id"], {"status": "Scheduled", "scheduled_at": at.isoformat()})
        assert r.status == 200, r
        return r.json

    weekly = scheduled("Weekly tips", day, repeat="FREQ=WEEKLY;COUNT=3", media_urls=[image])
    other = scheduled("Launch recap", day.replace(day=11, hour=10))
    date = lambda d: f"{first:%Y-%m}-{d:02d}"  # noqa: E731
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.get_by_role("link", name="Month").click()
        page.goto(f"{server.url}{DASHBOARD}#/calendar/month/{date(10)}")
        card = page.locator(f"section[data-date='{date(10)}'] [data-post-id='{weekly['id']}']")
        card.wait_for()
        assert card.locator(".repeat-badge").count() == 1
        assert card.locator(".thumb img").evaluate("(img) => img.complete && img.src") == image
        assert page.locator(".month-day").count() in (35, 42)
        shoot(page, "planner-month")

        # Dragged to the 12th: the same time of day, that day.
        drop(
            page,
            f"[data-post-id='{weekly['id']}']",
            f"section[data-date='{date(12)}'] .day-head",
        )
        page.locator(f"section[data-date='{date(12)}'] [data-post-id='{weekly['id']}']").wait_for()
        page.locator("#notice", has_text="Moved to").wait_for()
        moved = api.get(ITEM + weekly["id"]).json
        assert datetime.fromisoformat(moved["scheduled_at"]) == day.replace(day=12)
        assert moved["version"] == weekly["version"] + 1
        patches = [r for r in page.api_requests if r.method == "PATCH"]
        assert patches and patches[-1].headers["if-match"] == f'"{weekly["version"]}"'

        # To the 11th, an hour before "Launch recap": the 2-hour gap refuses it.
        drop(
            page,
            f"[data-post-id='{weekly['id']}']",
            f"section[data-date='{date(11)}'] .day-head",
            answered=patch_answered,
        )
        alert = page.locator(".messages [role=alert]")
        alert.wait_for()
        assert alert.get_attribute("data-status") == "409"
        # In words: the rule, the time in the channel's zone, the post it clashes with.
        clash = alert.locator(f".conflict-posts [data-post-id='{other['id']}'] a")
        clash.wait_for()
        assert clash.get_attribute("href") == f"#/posts/{other['id']}"
        assert "at least 120 minutes apart" in alert.text_content()
        assert (
            f"{(day.replace(day=11, hour=10)).astimezone(UTC):%a %-d %b, %H:%M} (UTC)"
            in alert.text_content()
        )
        page.locator(f"section[data-date='{date(12)}'] [data-post-id='{weekly['id']}']").wait_for()
        assert (
            page.locator(f"section[data-date='{date(11)}'] [data-post-id='{weekly['id']}']").count()
            == 0
        )
        assert api.get(ITEM + weekly["id"]).json["scheduled_at"] == moved["scheduled_at"]
        shoot(page, "planner-month-refused")

        # Changed elsewhere meanwhile: the page's version is stale, a 412.
        # The tab reads as hidden meanwhile, so that the view's refresh every
        # 10 s (which a visible tab does) cannot fetch the new version between
        # the edit and the drop: on a loaded machine a drag can take seconds.
        page.evaluate(
            "() => Object.defineProperty(document, 'hidden', {value: true, configurable: true})"
        )
        assert api.patch(ITEM + weekly["id"], {"content": "Weekly tips, edited"}).status == 200
        drop(
            page,
            f"[data-post-id='{weekly['id']}']",
            f"section[data-date='{date(13)}'] .day-head",
            answered=patch_answered,
        )
        page.locator(".messages [role=alert][data-status='412']").wait_for()
        page.evaluate("() => delete document.hidden")  # visible again: the prototype's getter
        page.locator(f"section[data-date='{date(12)}'] [data-post-id='{weekly['id']}']").wait_for()
        stored = api.get(ITEM + weekly["id"]).json
        assert stored["scheduled_at"] == moved["scheduled_at"]
        assert api.get(ITEM + other["id"]).json["version"] == other["version"]

        # A day's "+" opens the composer for that day, at 09:00.
        page.get_by_role("link", name=re.compile(r"Compose for \w+ 14 ")).click()
        page.wait_for_url(re.compile(rf"#/posts/new\?date={date(14)}$"))
        assert page.input_value("#scheduled_at") == f"{date(14)}T09:00"

        page.goto(f"{server.url}{DASHBOARD}#/calendar/month/{date(10)}")
        shoot_at_phone_width(page, "planner-month-phone", f"[data-post-id='{weekly['id']}']")
        assert_clean(page, server)


def pdf(pages):
    """A PDF of `pages` blank A4 pages, as a spreadsheet tool would export one."""
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def media_order(page):
    return page.input_value("#media_urls").split("\n")


BOXES = """(selector) => [...document.querySelectorAll(selector)].map((e) => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
})"""


def boxes_of(page, selector):
    """The boxes of what `selector` finds, read in one go in the page: the
    preview is drawn again when the service's answer comes, which would
    detach an element read a moment later."""
    return page.evaluate(BOXES, selector)


def cell_boxes(page):
    return boxes_of(page, ".preview-panel .li-media .li-cell")


def test_compose_three_images_in_order_with_alt_text_a_mention_and_a_first_comment(
    browser, server, user
):
    """Three images uploaded, put in order by dragging and from the keyboard,
    each with its alt text (one kept in the media library, one the post's own,
    one missing and nudged); a plain "@Name" tagged from the preview's
    warning; a first comment counted as LinkedIn counts it; the preview's grid
    as LinkedIn lays out 1, 2, 3, 4 and 5 images. Read back through the API."""
    _, key = user
    api = Client(server.url, key)
    r = api.post(
        CHANNELS, {"type": "personal", "name": "Dana Reyes", "author_urn": "urn:li:person:dana1"}
    )
    assert r.status == 201, r
    colours = {"red": (64, 48), "green": (48, 64), "blue": (64, 64)}
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.fill("#content", "Thanks @Jane Doe for the photos of our spring offsite!")
        page.set_input_files(
            "#media-files",
            [
                {"name": f"{c}.png", "mimeType": "image/png", "buffer": png(c, size)}
                for c, size in colours.items()
            ],
        )
        rows = page.locator(".media-list .media-row")
        rows.nth(2).wait_for()
        red, green, blue = media_order(page)
        assert loaded_widths(page, ".media-list img") == [64, 48, 64]
        # Every image starts without alt text: each row is nudged.
        assert page.locator(".media-row.alt-missing").count() == 3
        assert "No alt text yet" in rows.nth(0).text_content()

        # The first image's alt text kept in the media library, for every post.
        page.fill("#alt-0", "Red banner reading Spring offsite 2026")
        rows.nth(0).get_by_role("button", name="Keep it in the media library").click()
        rows.nth(0).locator(".alt-hint", has_text="From your media library").wait_for()
        red_id = red.rsplit("/", 1)[1].split(".")[0]
        assert api.get(f"{API}/media-item/{red_id}").json["alt_text"] == (
            "Red banner reading Spring offsite 2026"
        )
        # The second's for this post only; the third left without.
        page.fill("#alt-1", "The team on the green hill")
        assert "For this post only" in rows.nth(1).text_content()
        assert page.locator(".media-row.alt-missing").count() == 1

        # Dragged: the third image onto the first takes its place.
        page.drag_and_drop(
            ".media-row:nth-child(3) .media-grip", ".media-row:nth-child(1) .media-grip"
        )
        page.wait_for_function(
            "(blue) => document.getElementById('media_urls').value.startsWith(blue)", arg=blue
        )
        assert media_order(page) == [blue, red, green]
        # From the keyboard: the first image (now the red one) one place later,
        # and the button keeps focus on its new row to be pressed again.
        page.get_by_role("button", name="Move image 2 later").focus()
        page.keyboard.press("Enter")
        assert media_order(page) == [blue, green, red]
        focused = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
        assert focused == "Move image 3 earlier"  # the last row has no later
        assert "moved to place 3 of 3" in page.text_content(".upload-status")
        # Each alt text went with its image.
        assert page.input_value("#alt-1") == "The team on the green hill"
        assert page.input_value("#alt-2") == "Red banner reading Spring offsite 2026"

        # The first comment, counted as LinkedIn counts it (escaped).
        comment = "Full album: example.com/offsite_(2026) and the recap (5 min read)"
        page.fill("#first_comment", comment)
        counter = page.locator("#first-comment-count")
        assert counter.locator(".linkedin-count").text_content() == (
            f"{len(escape(comment))} of 1,250"
        )
        assert len(escape(comment)) == len(comment) + 5  # _ ( ) ( ): escaped, no URL here

        # The preview: the mention that tags no one, with a way to tag her.
        preview = page.locator(".preview-panel")
        mention = preview.locator("[data-code=plain_mention]")
        mention.wait_for()
        assert "“@Jane Doe” tags no one" in mention.text_content()
        missing = preview.locator("[data-code=alt_text_missing]", has_text="Image 1 has no alt")
        missing.get_by_role("button", name="Describe image 1").click()
        assert page.evaluate("() => document.activeElement.id") == "alt-0"
        page.locator(".preview-panel[data-fresh=true]").wait_for()
        # Three images as LinkedIn lays them out: one large on top, two below.
        grid = preview.locator(".li-media")
        assert grid.get_attribute("class") == "li-media li-media-three"
        top, left, right = cell_boxes(page)
        assert abs(top["width"] - (left["width"] + right["width"])) <= 3
        assert left["y"] >= top["y"] + top["height"] and abs(left["y"] - right["y"]) < 1
        alts = grid.locator("img").evaluate_all("(imgs) => imgs.map((img) => img.alt)")
        assert alts == ["", "The team on the green hill", "Red banner reading Spring offsite 2026"]
        assert preview.locator(".li-comment-text").text_content() == comment
        shoot(page, "composer-three-images")
        shoot_at_phone_width(page, "composer-three-images-phone", ".media-row", back=WIDE)

        mention.get_by_label("LinkedIn URN of Jane Doe").fill("jane")
        mention.get_by_role("button", name="Tag Jane Doe").click()
        assert "Paste Jane Doe's URN" in mention.locator(".mention-error").text_content()
        mention.get_by_label("LinkedIn URN of Jane Doe").fill("urn:li:person:jane-42")
        mention.get_by_role("button", name="Tag Jane Doe").click()
        assert page.input_value("#content") == (
            "Thanks @[Jane Doe](urn:li:person:jane-42) for the photos of our spring offsite!"
        )
        page.locator(".preview-panel[data-fresh=true]").wait_for()
        page.wait_for_function(
            "() => !document.querySelector('.preview-panel [data-code=plain_mention]')"
        )
        # The preview shows the tag as LinkedIn does: her name alone, marked.
        tagged = preview.locator(".preview-text .li-mention")
        assert tagged.text_content() == "Jane Doe"
        assert tagged.get_attribute("title") == "urn:li:person:jane-42"
        assert preview.locator(".preview-text").text_content() == (
            "Thanks Jane Doe for the photos of our spring offsite!"
        )
        shoot(page, "composer-mention-tagged")

        page.get_by_role("button", name="Save draft").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        post_id = page.url.rsplit("/", 1)[1]
        stored = api.get(ITEM + post_id).json
        assert stored["media_urls"] == [blue, green, red]
        # The red image's alt text is the library's (null: the item's own).
        assert stored["media_alt"] == [None, "The team on the green hill", None]
        assert stored["first_comment"] == comment
        assert stored["content"].startswith("Thanks @[Jane Doe](urn:li:person:jane-42) ")

        # The post's page: the grid, each image's alt text, the first comment.
        page.locator(".post-media .li-media-three").wait_for()
        alt_list = page.locator(".alt-list li")
        assert [li.text_content() for li in alt_list.all()] == [
            "Image 1: no alt text (Edit to describe it)",
            "Image 2: The team on the green hill",
            "Image 3: Red banner reading Spring offsite 2026",
        ]
        assert "Posted by the automation right after the post" in page.text_content(
            ".first-comment"
        )
        shoot(page, "post-three-images")

        # The grid for 1, 2, 4 and 5 images, as LinkedIn lays them out.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post_id}/edit")
        page.locator(".media-row").nth(2).wait_for()
        page.get_by_text("Media URLs: add images or a document by link").click()
        more = [
            api.request("POST", f"{API}/media", png(c), headers={"Content-Type": "image/png"}).json[
                "url"
            ]
            for c in ("orange", "purple")
        ]
        for urls, layout in (
            ([blue], "one"),
            ([blue, green], "two"),
            ([blue, green, red, more[0]], "four"),
            ([blue, green, red, *more], "more"),
        ):
            page.fill("#media_urls", "\n".join(urls))
            grid.and_(page.locator(f".li-media-{layout}")).wait_for()
            boxes = cell_boxes(page)
            assert len(boxes) == min(len(urls), 4)
            if layout == "one":
                [post] = boxes_of(page, ".preview-panel .li-post")
                assert boxes[0]["width"] >= post["width"] - 3
            if layout == "two":
                assert abs(boxes[0]["y"] - boxes[1]["y"]) < 1
            if layout in ("four", "more"):  # two by two
                assert abs(boxes[0]["y"] - boxes[1]["y"]) < 1
                assert abs(boxes[2]["x"] - boxes[0]["x"]) < 1 and boxes[2]["y"] > boxes[0]["y"]
        assert preview.locator(".li-more").text_content() == "+1"
        # Taken out and put back, the green image kept the words written for it.
        assert page.input_value("#alt-1") == "The team on the green hill"
        page.locator(".preview-panel[data-fresh=true]").wait_for()
        shoot(page, "composer-five-images")
        assert_clean(page, server)


def test_a_document_post_with_its_title_scheduled_and_shown_as_a_card(browser, server, user):
    """A PDF dropped in: its row with its pages, the title proposed from the
    file name and edited, images refused beside it; the preview's document
    card with the title and page count; the missing title nudged and warned
    of, with a way to it; scheduled, then the post's page. Read back."""
    _, key = user
    api = Client(server.url, key)
    brand_channel(api, "acme-corp", author_urn="urn:li:organization:42")
    when = next_local(1, 10)  # a Tuesday, 10:00 Auckland
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.select_option("#channel", "acme-corp")
        page.fill("#content", "Our Q3 in ten slides: what worked, what did not, and what is next.")
        page.set_input_files(
            "#media-files",
            {"name": "q3-report_final.pdf", "mimeType": "application/pdf", "buffer": pdf(10)},
        )
        row = page.locator(".media-row[data-kind=document]")
        row.wait_for()
        assert "10 pages · q3-report_final.pdf" in row.text_content()
        assert page.input_value("#document_title") == "q3 report final"
        [url] = media_order(page)
        assert url.startswith(f"{server.url}/media/") and url.endswith(".pdf")

        # A post carries one document or images: an image beside it is refused.
        page.set_input_files(
            "#media-files", {"name": "chart.png", "mimeType": "image/png", "buffer": png("red")}
        )
        refusal = page.locator(".media-problem [role=alert]")
        refusal.wait_for()
        assert "chart.png: the post has a document" in refusal.text_content()
        assert media_order(page) == [url]

        # No title: the row and the preview say it is needed, with a way to it.
        page.fill("#document_title", "")
        assert "Needed to schedule" in row.text_content()
        preview = page.locator(".preview-panel")
        warning = preview.locator("[data-code=document_title_missing]")
        warning.wait_for()
        warning.get_by_role("button", name="Give it a title").click()
        assert page.evaluate("() => document.activeElement.id") == "document_title"
        page.keyboard.type("Q3 in ten slides")
        card = preview.locator(".li-document")
        card.locator(".li-document-title", has_text="Q3 in ten slides").wait_for()
        assert card.locator(".li-document-pages").text_content() == " • 10 pages"
        assert card.locator(".li-page-count").text_content() == "1 / 10"
        page.wait_for_function(
            "() => !document.querySelector('.preview-panel [data-code=document_title_missing]')"
        )
        page.fill("#first_comment", "Questions welcome below (we read every one)")
        page.fill("#scheduled_at", when.strftime("%Y-%m-%dT%H:%M"))
        shoot(page, "composer-document")
        shoot_at_phone_width(page, "composer-document-phone", ".li-document", back=WIDE)

        page.get_by_role("button", name="Schedule", exact=True).click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        post_id = page.url.rsplit("/", 1)[1]
        stored = api.get(ITEM + post_id).json
        assert stored["status"] == "Scheduled"
        assert stored["media_urls"] == [url] and stored["media_alt"] == [None]
        assert stored["document_title"] == "Q3 in ten slides"
        assert stored["first_comment"] == "Questions welcome below (we read every one)"
        # The service hands LinkedIn the document with its title.
        plan = api.post(f"{API}/api-v2-posts-preview", {"post_id": post_id}).json
        assert plan["linkedin_request"]["body"]["content"]["media"]["title"] == "Q3 in ten slides"

        # The post's page: the card, its title and pages, the first comment.
        card = page.locator(".post-media .li-document")
        card.locator(".li-document-pages", has_text="10 pages").wait_for()
        assert card.locator(".li-document-title").text_content() == "Q3 in ten slides"
        assert page.locator(".first-comment .content-block").text_content() == (
            "Questions welcome below (we read every one)"
        )
        shoot(page, "post-document")
        shoot_at_phone_width(page, "post-document-phone", ".li-document", back=WIDE)
        assert_clean(page, server)


def test_the_preview_shows_links_with_the_channels_utm_tags(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    brand_channel(api, "tagged", utm="utm_source=linkedin&utm_campaign={channel}")
    text = "New post: https://example.com/launch?ref=1 today, and https://example.com"
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#channel").wait_for()
        page.select_option("#channel", "tagged")
        page.fill("#content", text)
        page.locator(".preview-panel[data-fresh=true]").wait_for()
        tags = "utm_source=linkedin&utm_campaign=tagged"
        assert page.locator(".preview-panel .preview-text").text_content() == (
            f"New post: https://example.com/launch?ref=1&{tags} today, "
            f"and https://example.com/?{tags}"
        )
        assert page.input_value("#content") == text  # the text itself stays as written
        shoot(page, "composer-utm-tags")
        page.get_by_role("button", name="Save draft").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        assert api.get(ITEM + page.url.rsplit("/", 1)[1]).json["content"] == text
        assert_clean(page, server)


def test_the_composer_inserts_a_hashtag_set_in_one_click_and_saves_one(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    saved = {"name": "SaaS launch", "hashtags": ["#B2B", "#Analytics", "#SaaS"]}
    assert api.post(f"{API}/hashtag-sets", saved).status == 201
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.fill("#content", "Our launch is live #saas")
        page.get_by_role("button", name="+ SaaS launch").click()
        # The set's hashtags the text lacks, at the cursor (the end); #SaaS is there as #saas.
        assert page.input_value("#content") == "Our launch is live #saas #B2B #Analytics"
        page.locator(".preview-panel[data-fresh=true]").wait_for()
        shown = page.locator(".preview-panel .li-hashtag").all_text_contents()
        assert shown == ["#saas", "#B2B", "#Analytics"]
        shoot(page, "composer-hashtag-sets")
        shoot_at_phone_width(page, "composer-hashtag-sets-phone", ".hashtag-field")

        # The text's hashtags saved as a new set, offered at once.
        page.fill("#content", "We are hiring! #Hiring #jobs_2026 #hiring")
        page.fill("#hashtag-set-name", "Hiring")
        page.get_by_role("button", name="Save the text's hashtags as a set").click()
        page.get_by_role("button", name="+ Hiring").wait_for()
        sets = {s["name"]: s["hashtags"] for s in api.get(f"{API}/hashtag-sets").json["data"]}
        assert sets == {"SaaS launch": saved["hashtags"], "Hiring": ["#Hiring", "#jobs_2026"]}
        # A name taken already: the service's refusal, in words.
        page.fill("#hashtag-set-name", "Hiring")
        page.get_by_role("button", name="Save the text's hashtags as a set").click()
        page.get_by_text("named 'Hiring' already").wait_for()
        assert len(api.get(f"{API}/hashtag-sets").json["data"]) == 2
        assert_clean(page, server)


def test_recycle_a_published_post_and_set_the_channels_wait_and_utm(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    slots = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    body = {"type": "brand", "brand_id": "evergreen", "name": "Evergreen", "slots": slots}
    assert api.post(CHANNELS, body).status == 201
    post = api.post(
        POSTS,
        {
            "type": "brand",
            "brand_id": "evergreen",
            "content": "Our five planning tips",
            "scheduled_at": (datetime.now(UTC) + timedelta(hours=2)).isoformat(),
        },
    ).json
    assert api.patch(ITEM + post["id"], {"status": "Scheduled"}).status == 200
    r = api.post(
        f"{API}/make-post-callback", {"post_id": post["id"], "linkedin_post_id": "urn:li:share:7"}
    )
    assert r.status == 200, r
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")
        page.get_by_role("button", name="Recycle").click()
        page.locator(".recycle-ask").wait_for()  # it asks first: queue, or a draft
        assert page.locator("#recycle-draft").is_visible()
        assert api.get(f"{POSTS}?status=Scheduled").json["total"] == 0
        page.click("#recycle-queue")
        page.wait_for_url(
            lambda url: re.search(r"#/posts/[0-9a-f-]{36}$", url) and post["id"] not in url
        )
        copy_id = page.url.rsplit("/", 1)[1]
        assert copy_id != post["id"]
        copy = api.get(ITEM + copy_id).json
        assert copy["recycled_from"] == post["id"] and copy["status"] == "Scheduled"
        page.get_by_role("link", name="the published post").wait_for()
        history = page.locator(".timeline-entry[data-action=recycled]")
        history.wait_for()
        assert history.text_content().startswith(
            page.locator(".timeline-when").first.text_content()
        )
        assert "Recycled from a published post, queued for" in history.text_content()
        shoot(page, "post-recycled")

        # The channel's wait and UTM tags, set in its form.
        page.goto(f"{server.url}{DASHBOARD}#/channels")
        card = page.locator(".channel-card[data-channel-id=evergreen]")
        card.get_by_role("button", name="Edit").click()
        page.fill("#ch-recycle_after_days", "30")
        page.fill("#ch-utm", "utm_source=linkedin&utm_campaign={channel}")
        page.get_by_role("button", name="Save channel").click()
        page.locator("#notice", has_text=" saved.").wait_for()
        stored = api.get(f"{API}/channels-item/evergreen").json
        assert stored["recycle_after_days"] == 30
        assert stored["utm"] == "utm_source=linkedin&utm_campaign={channel}"
        assert "utm_campaign={channel}" in card.locator(".channel-utm").text_content()
        shoot_at_phone_width(page, "channel-recycle-utm-phone", ".channel-utm")

        # Recycled again within the wait: the service's word on when it may go out.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{post['id']}")
        page.get_by_role("button", name="Recycle").click()
        page.click("#recycle-queue")
        alert = page.locator(".alert-error", has_text="may go out from")
        alert.wait_for()
        assert "30 days" in alert.text_content()
        assert len(api.get(f"{POSTS}?brand_id=evergreen").json["data"]) == 2
        assert_clean(page, server)
