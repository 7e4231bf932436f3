"""The dashboard's plan, as a social-media manager uses it: the calendar
with the repeats of recurring posts, the free queue slots and the drafts to
drag onto it; the first steps of an empty workspace; the composer's channel,
counting and refusals; bulk queue, reschedule and channel; history in
sentences; the phone's menu; the delivery log.

Headless Chromium against real gunicorn, one server for the module, in
Pacific/Auckland time; at 1440 px and at 390 px (the phone, with touch),
every change read back through the API. Screenshots land in
test-artifacts/dashboard-plan-*.png.
"""

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from harness import Answer, Client, Dispatcher, Receiver
from harness.api import API, CHANNELS, DASHBOARD, ITEM, POSTS
from tests.dashboard_support import (
    PHONE,
    SERVER_ENV,
    WIDE,
    ZONE,
    assert_clean,
    drop,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)

LONG_URL = "https://example.com/events/spring-webinar-2026/registration/" + "x" * 90
TOUCH = {"has_touch": True, "is_mobile": True}


@pytest.fixture
def server(dashboard_gunicorn):
    """The dashboard's gunicorn of this pytest process (tests/conftest.py)."""
    return dashboard_gunicorn


@pytest.fixture
def user(server):
    return new_user(server)


def next_monday(hour):
    """Monday of next week at `hour`:00 in the browser's zone: at least a day
    ahead, and the week after it wholly ahead too."""
    now = datetime.now(ZoneInfo(ZONE))
    monday = now + timedelta(days=7 - now.weekday())
    return monday.replace(hour=hour, minute=0, second=0, microsecond=0)


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def days_ahead(days, hour):
    """`days` days from today at `hour`:00 in the browser's zone: a slot day
    picked from today, so that which slot is free first never depends on
    the day of the week a test runs."""
    now = datetime.now(ZoneInfo(ZONE))
    return (now + timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)


def day_key(moment):
    return moment.astimezone(ZoneInfo(ZONE)).strftime("%Y-%m-%d")


def iso(moment):
    return moment.astimezone(UTC).isoformat()


def stamp(moment):
    """The service's UTC text for `moment`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def made(api, content, brand=None, at=None, **extra):
    body = {"type": "brand", "brand_id": brand} if brand else {"type": "personal"}
    post = api.post(POSTS, {**body, "content": content, **extra}).json
    if at:
        r = api.patch(ITEM + post["id"], {"status": "Scheduled", "scheduled_at": iso(at)})
        assert r.status == 200, r
        post = r.json
    return post


def acme(api, **extra):
    body = {
        "type": "brand",
        "brand_id": "acme",
        "name": "Acme Corp",
        "timezone": ZONE,
        "author_urn": "urn:li:organization:42",
        "slots": [{"day": "mon", "time": "10:00"}, {"day": "wed", "time": "14:00"}],
        **extra,
    }
    r = api.post(CHANNELS, body)
    assert r.status == 201, r
    return r.json


def test_the_calendar_shows_repeats_free_slots_and_drafts_to_drag_on(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    acme(api)
    monday = next_monday(9)
    thursday, wednesday = monday + timedelta(days=3), monday + timedelta(days=2)
    series = made(
        api, "Monday tip: plan the week", "acme", monday, repeat="FREQ=WEEKLY;BYDAY=MO,TH"
    )
    long_one = made(api, f"Register now: {LONG_URL}", "acme", monday + timedelta(days=1, hours=3))
    webinar = made(api, "Webinar next week: bring your questions", "acme")
    hiring = made(api, "We are hiring two engineers 🚀")

    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/calendar/{day_key(monday)}")
        repeat = page.locator(f".repeat-card[data-series-id='{series['series_id']}']")
        repeat.wait_for()
        # The series' first post on Monday, its Thursday as a planned repeat.
        head = page.locator(
            f"section[data-date='{day_key(monday)}'] [data-post-id='{series['id']}']"
        )
        assert head.count() == 1
        assert repeat.get_attribute("data-repeat-at") == stamp(thursday)
        assert page.locator(f"section[data-date='{day_key(thursday)}'] .repeat-card").count() == 1
        assert "Planned" in repeat.text_content()
        # The free slots, faint: Monday 10:00 and Wednesday 14:00 of Acme.
        slots = page.locator(".slot-card[data-channel=acme]")
        assert slots.count() == 2
        assert [s.get_attribute("data-slot-at") for s in slots.all()] == [
            stamp(monday.replace(hour=10)),
            stamp(wednesday.replace(hour=14)),
        ]
        # The drafts beside it; the hint says they can be dragged.
        drafts = page.locator(".drafts-panel .draft-card")
        assert {d.get_attribute("data-post-id") for d in drafts.all()} == {
            webinar["id"],
            hiring["id"],
        }
        assert page.locator(".drag-hint").is_visible()
        # A long URL stays inside its card and its day.
        card = page.locator(f"[data-post-id='{long_one['id']}']")
        assert card.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        day = page.locator(
            f"section[data-date='{day_key(long_one_at := monday + timedelta(days=1))}']"
        )
        assert day_key(long_one_at)
        box, cell = card.bounding_box(), day.bounding_box()
        assert box["x"] + box["width"] <= cell["x"] + cell["width"] + 0.5
        shoot(page, "plan-week")

        # A draft dropped on Wednesday's free slot is scheduled at 14:00.
        drop(
            page,
            f".draft-card[data-post-id='{webinar['id']}']",
            f".slot-card[data-slot-at='{stamp(wednesday.replace(hour=14))}']",
        )
        page.locator("#notice", has_text="Scheduled for").wait_for()
        stored = api.get(ITEM + webinar["id"]).json
        assert stored["status"] == "Scheduled"
        assert datetime.fromisoformat(stored["scheduled_at"]) == wednesday.replace(hour=14)
        page.locator(
            f"section[data-date='{day_key(wednesday)}'] [data-post-id='{webinar['id']}']"
        ).wait_for()
        assert page.locator(".slot-card[data-channel=acme]").count() == 1  # that slot is taken
        patch = [r for r in page.api_requests if r.method == "PATCH"][-1]
        assert patch.headers["if-match"] == f'"{webinar["version"]}"'
        # One dropped on Friday: 09:00 that day, having no time of its own.
        friday = monday + timedelta(days=4)
        drop(
            page,
            f".draft-card[data-post-id='{hiring['id']}']",
            f"section[data-date='{day_key(friday)}'] .day-head",
        )
        page.locator(
            f"section[data-date='{day_key(friday)}'] [data-post-id='{hiring['id']}']"
        ).wait_for()
        stored = api.get(ITEM + hiring["id"]).json
        assert datetime.fromisoformat(stored["scheduled_at"]) == friday
        assert page.locator(".drafts-panel").count() == 0  # no drafts left: the days take the room

        # A planned repeat opens on the post it copies, saying what editing does.
        repeat.click()
        page.wait_for_url(re.compile(rf"#/posts/{series['id']}\?repeat="))
        note = page.locator(".planned-repeat")
        note.wait_for()
        assert (
            "Not a post yet" in note.text_content() and "What editing does" in note.text_content()
        )
        assert "first post" in note.text_content()  # moving it moves every repeat's time of day
        shoot(page, "plan-repeat")

        # The month: every Monday and Thursday of the series.
        page.goto(f"{server.url}{DASHBOARD}#/calendar/month/{day_key(monday + timedelta(days=14))}")
        page.locator(".month-day .repeat-card").nth(3).wait_for()
        assert page.locator(".slot-card").count() == 0  # free slots are the week's
        shoot(page, "plan-month")

        # A free slot opens the composer at its time, on its channel.
        page.goto(f"{server.url}{DASHBOARD}#/calendar/{day_key(monday)}")
        page.locator(".slot-card[data-channel=acme]").first.click()
        page.wait_for_url(re.compile(r"#/posts/new\?at="))
        page.locator("#channel").wait_for()
        assert page.input_value("#channel") == "acme"
        assert page.input_value("#scheduled_at") == monday.replace(hour=10).strftime(
            "%Y-%m-%dT%H:%M"
        )
        assert_clean(page, server)

    # On a phone (touch): no drag, and nothing says to drag.
    made(api, "Case study: how Acme plans a month of posts")
    with tab(browser, server, viewport=PHONE, **TOUCH) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/calendar/{day_key(monday)}")
        page.locator(".repeat-card").first.wait_for()
        assert page.locator(".drag-hint").count() == 0
        assert "Open one" in page.text_content(".drafts-panel")
        assert page.locator("[draggable=true]").count() == 0
        shoot_at_phone_width(page, "plan-week-phone", ".repeat-card")
        assert_clean(page, server)


def test_an_empty_workspace_shows_its_first_steps_and_the_channel_form_helps(browser, server, user):
    name, key = user
    api = Client(server.url, key)
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        steps = page.locator(".first-run-full")
        steps.wait_for()
        assert page.locator(".week").count() == 0  # the steps, not an empty calendar
        assert [s.get_attribute("data-step") for s in steps.locator(".first-step").all()] == [
            "1",
            "2",
            "3",
        ]
        assert steps.locator(".first-step-done").count() == 0
        text = steps.text_content()
        assert "posting times" in text and "Write a post" in text and "LinkedIn author" in text
        shoot(page, "plan-first-run")
        assert page.locator(".calendar-legend").is_hidden()  # nothing to tell apart yet
        shoot_at_phone_width(page, "plan-first-run-phone", ".first-run-full", back=WIDE)

        # Step 1: the channel form, with its help.
        steps.get_by_role("link", name="Set up a channel").click()
        page.wait_for_url(re.compile(r"#/channels\?new=personal$"))
        page.locator(".channel-form").wait_for()
        page.select_option("#ch-type", "brand")
        # The brand id follows the name as a slug until it is edited by hand.
        page.fill("#ch-name", "Acme Nordics — Ünïted")
        assert page.input_value("#ch-brand_id") == "acme-nordics-united"
        page.fill("#ch-brand_id", "acme-nordics")
        page.fill("#ch-name", "Acme Nordics")
        assert page.input_value("#ch-brand_id") == "acme-nordics"
        # Where the organization's number is: the page's admin address.
        assert "linkedin.com/company/12345678/admin" in page.text_content("#ch-author-hint")
        page.fill("#ch-author_urn", "https://www.linkedin.com/company/12345678/admin/")
        page.fill("#ch-timezone", "Europe/Berlin")
        page.fill("#slot-mon", "09:00")
        page.locator(".slot-day[data-day=mon] button", has_text="Add").click()
        page.fill("#slot-wed", "14:30")  # typed, never "Add"ed
        shoot(page, "plan-channel-form")
        page.get_by_role("button", name="Create channel").click()
        page.locator(".channel-card[data-channel-id='acme-nordics']").wait_for()
        page.locator("#notice", has_text="Wed 14:30").wait_for()
        stored = api.get(f"{API}/channels-item/acme-nordics").json
        assert stored["name"] == "Acme Nordics" and stored["type"] == "brand"
        assert stored["author_urn"] == "urn:li:organization:12345678"
        assert sorted((s["day"], s["time"]) for s in stored["slots"]) == [
            ("mon", "09:00"),
            ("wed", "14:30"),
        ]

        # Back on the calendar: the steps above it, two of three done.
        page.get_by_role("link", name="Calendar", exact=True).click()
        compact = page.locator(".first-run:not(.first-run-full)")
        compact.wait_for()
        page.locator(".week").wait_for()
        assert compact.locator(".first-step-done").count() == 2
        assert "2 of 3 done" in compact.text_content()
        shoot(page, "plan-first-run-started")
        assert_clean(page, server)

    # On a phone the views are a menu: every name whole, none cut short.
    with tab(browser, server, viewport=PHONE, **TOUCH) as page:
        sign_in(page, server, key)
        page.locator(".week").wait_for()
        menu = page.locator("#menu-toggle")
        assert menu.is_visible() and page.locator("#views-nav").is_hidden()
        assert menu.get_attribute("aria-expanded") == "false"
        menu.click()
        links = page.locator("#views-nav a")
        assert links.first.is_visible() and menu.get_attribute("aria-expanded") == "true"
        for link in links.all():
            assert link.evaluate("(a) => a.scrollWidth <= a.clientWidth"), link.text_content()
        assert "Deliveries" in page.text_content("#views-nav")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        shoot(page, "plan-menu-phone")
        page.locator("#views-nav a", has_text="Queue").click()
        page.wait_for_url(re.compile(r"#/queue$"))
        page.locator(".view h1", has_text="Queue").wait_for()
        assert page.locator("#views-nav").is_hidden()  # chosen: the menu closes
        assert_clean(page, server)


EMOJI = "👩‍💻"  # one character to a reader: three code points, five UTF-16 units


def test_composer_channel_counting_and_spacing_refusals(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    acme(api, name="Acme", timezone="Europe/Berlin", author_urn=None, min_gap_minutes=120)
    launch_at = next_monday(21)  # Monday 21:00 Auckland: 09:00 in Berlin
    launch = made(api, "Launch recap: what we shipped", "acme", launch_at)
    long_snippet = "a" * 88 + EMOJI * 2 + " end"
    made(api, long_snippet)
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        # The only channel is the default, though it is a brand page.
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#channel").wait_for()
        assert page.input_value("#channel") == "acme"
        assert page.is_checked("input[name=type][value=brand]")

        # Counted as a reader counts (an emoji is one) and as LinkedIn does
        # (UTF-16 units of the escaped text), the same in counter and preview.
        page.fill("#content", f"{EMOJI * 10} hi")
        counter = page.locator("#content-count")
        same = """() => document.querySelector('.preview-count .linkedin-count')?.textContent
            === document.querySelector('#content-count .linkedin-count').textContent"""
        page.locator(".preview-panel[data-fresh=true]").wait_for()  # the service's answer
        page.wait_for_function(same)
        assert counter.text_content().startswith("13 characters · 53 of 3,000")
        # The author is missing: how to fix it here (connect the channel to
        # LinkedIn, which fills it in), with a link to the channels.
        warning = page.locator(".preview-warnings [data-code=author_unknown]")
        assert "LinkedIn author" in warning.text_content()
        assert "Connect it to LinkedIn" in warning.text_content()
        assert warning.locator("a").get_attribute("href") == "#/channels"
        assert "PATCH" not in warning.text_content()

        # Over 3,000: nothing cut, the counter red, the preview warning.
        over = "Spring launch (beta) is here. " * 104  # 3,120 characters, more once escaped
        page.fill("#content", over)
        assert page.input_value("#content") == over
        assert page.get_attribute("#content", "maxlength") is None
        page.locator(".preview-warnings [data-code=over_length]").wait_for()
        page.locator(".preview-panel[data-fresh=true]").wait_for()
        page.wait_for_function(same)
        assert "counter-over" in counter.get_attribute("class")
        assert "too many" in counter.text_content()
        shoot(page, "plan-composer-over")
        shoot_at_phone_width(page, "plan-composer-over-phone", "[data-code=over_length]", back=WIDE)

        # A time that breaks the spacing rule: said in the channel's zone, the
        # clashing post named and linked.
        page.fill("#content", "Quick follow-up on the launch")
        page.fill("#scheduled_at", (launch_at + timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M"))
        page.get_by_role("button", name="Schedule", exact=True).click()
        clash = page.locator(f".form-problem .conflict-posts [data-post-id='{launch['id']}']")
        clash.wait_for()
        problem = page.text_content(".form-problem")
        assert "at least 120 minutes apart" in problem
        asked = (launch_at + timedelta(minutes=30)).astimezone(ZoneInfo("Europe/Berlin"))
        assert f"{asked:%a} {asked.day} {asked:%b}, 09:30 (Europe/Berlin)" in problem
        assert "09:00 (Europe/Berlin)" in clash.text_content()
        assert clash.locator("a").get_attribute("href") == f"#/posts/{launch['id']}"
        assert "Launch recap" in clash.text_content()
        assert "T08:30:00" not in problem  # no raw UTC stamp
        shoot(page, "plan-composer-conflict")

        # The channel last used is the next post's default.
        assert api.post(CHANNELS, {"type": "brand", "brand_id": "globex", "name": "Globex"}).ok
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#channel option[value=globex]").wait_for(state="attached")
        assert page.input_value("#channel") == "acme"  # where the last post was saved
        page.select_option("#channel", "globex")
        page.fill("#content", "A first post for Globex")
        page.get_by_role("button", name="Save draft").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.locator("#channel option[value=globex]").wait_for(state="attached")
        assert page.input_value("#channel") == "globex"

        # A snippet never cuts an emoji in two.
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        snippet = page.locator("tbody tr a", has_text="aaaa")
        snippet.wait_for()
        assert snippet.text_content() == "a" * 88 + EMOJI + "…"
        assert_clean(page, server)


def test_bulk_queue_reschedule_change_channel_then_move_to_the_next_slot(browser, server, user):
    name, key = user
    api = Client(server.url, key)
    # Slots on the day after tomorrow at 10:00 and two days later at 14:00:
    # whatever today is, those are the channel's first two free slots.
    first_slot = days_ahead(2, 10)
    second_slot = days_ahead(4, 14)
    acme(
        api,
        slots=[
            {"day": WEEKDAYS[first_slot.weekday()], "time": "10:00"},
            {"day": WEEKDAYS[second_slot.weekday()], "time": "14:00"},
        ],
    )
    first, second = (made(api, f"Tip {n}: plan your week", "acme") for n in (1, 2))
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/queue/Draft")
        page.locator("tbody tr").nth(1).wait_for()
        page.check("#select-all")
        # Add to queue: each takes the channel's next free slot.
        with page.expect_response(lambda r: r.url.endswith("/api-v2-posts-queue")):
            page.locator("[data-bulk=queue]").click()
        page.locator(".empty", has_text="No draft posts.").wait_for()
        times = sorted(api.get(ITEM + p["id"]).json["scheduled_at"] for p in (first, second))
        assert [datetime.fromisoformat(t) for t in times] == [first_slot, second_slot]
        queued = [r for r in page.api_requests if r.url.endswith("/api-v2-posts-queue")]
        assert len(queued) == 2 and all(r.headers.get("if-match") for r in queued)

        # Reschedule by 2 days: the same time of day, two days later.
        page.click("a.tab[href^='#/queue/Scheduled']")
        page.locator("tbody tr").nth(1).wait_for()
        page.check("#select-all")
        page.locator("[data-bulk=shift]").click()
        page.fill("#bulk-days", "2")
        shoot(page, "plan-bulk-reschedule")
        shoot_at_phone_width(page, "plan-bulk-reschedule-phone", "#bulk-days", back=WIDE)
        page.get_by_role("button", name="Move", exact=True).click()
        page.locator("#notice", has_text="2 of 2 moved by 2 days").wait_for()
        times = sorted(api.get(ITEM + p["id"]).json["scheduled_at"] for p in (first, second))
        assert [datetime.fromisoformat(t) for t in times] == [
            first_slot + timedelta(days=2),
            second_slot + timedelta(days=2),
        ]

        # Change channel: the first to the personal profile.
        page.locator(f"tr[data-post-id='{first['id']}'] input[type=checkbox]").check()
        page.locator("[data-bulk=channel]").click()
        page.select_option("#bulk-channel", "personal")
        page.get_by_role("button", name="Change channel", exact=True).click()
        page.locator("#notice", has_text="1 of 1 moved to").wait_for()
        stored = api.get(ITEM + first["id"]).json
        assert (stored["type"], stored["brand_id"]) == ("personal", None)
        assert api.get(ITEM + second["id"]).json["brand_id"] == "acme"

        # Move to… the next free slot, from the keyboard: the first slot is free again.
        page.goto(f"{server.url}{DASHBOARD}#/posts/{second['id']}")
        page.get_by_role("button", name="Move to…").click()
        take = page.locator("[data-next-slot]")
        take.wait_for()
        assert take.get_attribute("data-next-slot") == stamp(first_slot)
        shoot(page, "plan-move-to")
        take.focus()
        page.keyboard.press("Enter")
        page.locator("#notice", has_text="next free slot").wait_for()
        assert (
            datetime.fromisoformat(api.get(ITEM + second["id"]).json["scheduled_at"]) == first_slot
        )

        # Its history, in sentences, times in the reader's zone and UTC on hover.
        entries = page.locator(".timeline-entry")
        entries.nth(3).wait_for()
        sentences = [e.locator(".timeline-sentence").text_content() for e in entries.all()]
        assert len(sentences) == 4, sentences
        assert sentences[0] == f"Created as a draft by {name} ({key[:13]}…)."
        assert sentences[1].startswith("Added to the queue: its channel's slot of ")
        assert sentences[2].startswith("Moved to ")  # by two days
        assert re.fullmatch(
            rf"Moved to {first_slot:%a},? {first_slot.day} {first_slot:%b}.*, 10:00 by {name} \(svc_live_\w{{4}}…\)\.",
            sentences[-1],
        ), sentences[-1]
        moved = entries.nth(len(sentences) - 1).locator(".timeline-sentence time")
        assert moved.get_attribute("title").endswith("UTC")
        shoot(page, "plan-history")
        shoot_at_phone_width(page, "plan-history-phone", ".timeline-entry", back=WIDE)
        assert_clean(page, server)


def test_the_delivery_log_keeps_the_next_attempt_and_the_error_apart(browser, server, user):
    _, key = user
    api = Client(server.url, key)
    env = {**SERVER_ENV, "FLASK_WEBHOOK_RETRY_SCHEDULE": "0,3600", "FLASK_PUBLIC_URL": server.url}
    with (
        Receiver(script=lambda arrival: Answer(500, body=b"upstream down")) as receiver,
        Dispatcher(server.database, env=env, log=server.tmp / "dispatcher-plan.log"),
    ):
        r = api.post(f"{API}/webhooks", {"url": receiver.url, "events": ["post.published"]})
        assert r.status == 201, r
        post = made(api, "Delivered later", at=datetime.now(UTC) + timedelta(hours=1))
        body = {"post_id": post["id"], "linkedin_post_id": "urn:li:share:1"}
        assert api.post(f"{API}/make-post-callback", body).status == 200
        receiver.wait_for(lambda arrivals: len(arrivals) >= 1, what="the first attempt")
        with tab(browser, server, viewport=WIDE) as page:
            sign_in(page, server, key)
            page.goto(f"{server.url}{DASHBOARD}#/deliveries")
            cell = page.locator("tbody td[data-label='Next / last error']")
            for _ in range(40):  # the dispatcher records the outcome just after the answer
                if cell.locator(".next-attempt").count() and cell.locator(".error-text").count():
                    break
                page.click("#refresh")
                page.wait_for_timeout(250)
            nxt, error = cell.locator(".next-attempt"), cell.locator(".error-text")
            assert "500" in error.text_content()
            assert (
                nxt.bounding_box()["y"] + nxt.bounding_box()["height"] <= error.bounding_box()["y"]
            )
            shoot(page, "plan-deliveries")
            shoot_at_phone_width(page, "plan-deliveries-phone", "tbody tr", back=WIDE)
            assert_clean(page, server)


def test_the_composers_count_is_the_services(browser, server, user):
    """The composer counts before the preview answers with the dashboard's
    own copy of the escaping (js/text.js); on every text of the service's
    escaping and length tables it gives the service's commentary and count."""
    from content_publishing.linkedin import commentary_length, escape
    from tests.test_linkedin import ESCAPES
    from tests.test_linkedin_escaping import ADVERSARIAL, URL_EXTENTS
    from tests.test_linkedin_length import FITS, TOO_LONG

    texts = [content for content, _ in ESCAPES + ADVERSARIAL + FITS + TOO_LONG]
    texts += [text for text, _ in URL_EXTENTS]
    texts += [f"{EMOJI} #été (@[Zoë](urn:li:person:z1)) «@[A_B](urn:li:organization:7)»"]
    _, key = user
    with tab(browser, server) as page:
        sign_in(page, server, key)
        found = page.evaluate(
            """async (texts) => {
                const text = await import("/functions/v1/dashboard/assets/js/text.js");
                return texts.map((t) => [text.linkedinEscape(t), text.linkedinLength(t)]);
            }""",
            texts,
        )
        assert_clean(page, server)
    for content, (commentary, length) in zip(texts, found, strict=True):
        assert (commentary, length) == (escape(content), commentary_length(content)), content
