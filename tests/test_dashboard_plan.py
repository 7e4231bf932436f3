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

from harness import Client
from harness.api import API, CHANNELS, DASHBOARD, ITEM, POSTS
from tests.dashboard_support import (
    PHONE,
    WIDE,
    ZONE,
    assert_clean,
    dashboard_server,
    new_user,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)

LONG_URL = "https://example.com/events/spring-webinar-2026/registration/" + "x" * 90
TOUCH = {"has_touch": True, "is_mobile": True}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with dashboard_server(tmp_path_factory) as server:
        yield server


@pytest.fixture
def user(server):
    return new_user(server)


def next_monday(hour):
    """Monday of next week at `hour`:00 in the browser's zone: at least a day
    ahead, and the week after it wholly ahead too."""
    now = datetime.now(ZoneInfo(ZONE))
    monday = now + timedelta(days=7 - now.weekday())
    return monday.replace(hour=hour, minute=0, second=0, microsecond=0)


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
    series = made(api, "Monday tip: plan the week", "acme", monday, repeat="FREQ=WEEKLY;BYDAY=MO,TH")
    long_one = made(api, f"Register now: {LONG_URL}", "acme", monday + timedelta(days=1, hours=3))
    webinar = made(api, "Webinar next week: bring your questions", "acme")
    hiring = made(api, "We are hiring two engineers 🚀")

    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/calendar/{day_key(monday)}")
        repeat = page.locator(f".repeat-card[data-series-id='{series['series_id']}']")
        repeat.wait_for()
        # The series' first post on Monday, its Thursday as a planned repeat.
        head = page.locator(f"section[data-date='{day_key(monday)}'] [data-post-id='{series['id']}']")
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
        assert {d.get_attribute("data-post-id") for d in drafts.all()} == {webinar["id"], hiring["id"]}
        assert page.locator(".drag-hint").is_visible()
        # A long URL stays inside its card and its day.
        card = page.locator(f"[data-post-id='{long_one['id']}']")
        assert card.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        day = page.locator(f"section[data-date='{day_key(long_one_at := monday + timedelta(days=1))}']")
        assert day_key(long_one_at)
        box, cell = card.bounding_box(), day.bounding_box()
        assert box["x"] + box["width"] <= cell["x"] + cell["width"] + 0.5
        shoot(page, "plan-week")

        # A draft dropped on Wednesday's free slot is scheduled at 14:00.
        page.drag_and_drop(
            f".draft-card[data-post-id='{webinar['id']}']",
            f".slot-card[data-slot-at='{stamp(wednesday.replace(hour=14))}']",
        )
        page.locator("#notice", has_text="Scheduled for").wait_for()
        stored = api.get(ITEM + webinar["id"]).json
        assert stored["status"] == "Scheduled"
        assert datetime.fromisoformat(stored["scheduled_at"]) == wednesday.replace(hour=14)
        page.locator(f"section[data-date='{day_key(wednesday)}'] [data-post-id='{webinar['id']}']").wait_for()
        assert page.locator(".slot-card[data-channel=acme]").count() == 1  # that slot is taken
        patch = [r for r in page.api_requests if r.method == "PATCH"][-1]
        assert patch.headers["if-match"] == f'"{webinar["version"]}"'
        # One dropped on Friday: 09:00 that day, having no time of its own.
        friday = monday + timedelta(days=4)
        page.drag_and_drop(
            f".draft-card[data-post-id='{hiring['id']}']",
            f"section[data-date='{day_key(friday)}'] .day-head",
        )
        page.locator(f"section[data-date='{day_key(friday)}'] [data-post-id='{hiring['id']}']").wait_for()
        stored = api.get(ITEM + hiring["id"]).json
        assert datetime.fromisoformat(stored["scheduled_at"]) == friday
        assert page.locator(".drafts-panel").count() == 0  # no drafts left: the days take the room

        # A planned repeat opens on the post it copies, saying what editing does.
        repeat.click()
        page.wait_for_url(re.compile(rf"#/posts/{series['id']}\?repeat="))
        note = page.locator(".planned-repeat")
        note.wait_for()
        assert "Not a post yet" in note.text_content() and "What editing does" in note.text_content()
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
        assert page.input_value("#scheduled_at") == monday.replace(hour=10).strftime("%Y-%m-%dT%H:%M")
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
