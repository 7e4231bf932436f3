"""The dashboard's analytics as a social-media manager uses them: the
Analytics page (totals, the weekly chart, the best times to post with the
heatmap in the channel's zone, the top posts, each chart's figures as a
table), adding the suggested slot to the channel, the CSV, a post's own
chart, and impressions on the calendar's cards.

Made data with a clear best hour: ten weeks of a brand channel in
Europe/Berlin, whose Tuesday 09:00 posts engage about four times as well as
the rest, for a user of each test's own. The posts are published in the
past, so they are made in process, with the service's clock moved, in the
database that real gunicorn serves to headless Chromium in Auckland time, at
1440 px and at 390 px. Screenshots land in
test-artifacts/dashboard-analytics-*.png.
"""

import csv
import io
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock
from zoneinfo import ZoneInfo

import pytest

from content_publishing import timestamps
from content_publishing.app import create_app
from content_publishing.store.db import dispose_db
from harness import Client, create_key
from harness.api import CHANNEL, DASHBOARD, POSTS
from tests.analytics_support import channel, figures, publish_at, send
from tests.conftest import Caller
from tests.dashboard_support import (
    PHONE,
    WIDE,
    assert_clean,
    shoot,
    shoot_at_phone_width,
    sign_in,
    tab,
)

BERLIN = ZoneInfo("Europe/Berlin")
WEEKS = 10
# Each week's posts, Berlin time: (weekday 0-6, hour, engagement, what it says).
WEEK = [
    (1, 9, 0.082, "Tuesday tip: three questions to ask before you hit publish."),
    (0, 14, 0.021, "Monday recap: what shipped last week and what is next."),
    (2, 11, 0.019, "Behind the scenes: how our support team triages tickets."),
    (3, 16, 0.023, "Customer story: how Northwind cut onboarding time in half."),
    (4, 10, 0.018, "Friday reading list: five articles our team loved."),
]
WIGGLE = [0.0, 0.004, -0.003, 0.006, -0.005, 0.002, -0.001, 0.005, -0.004, 0.003]


class MovedClock:
    """The in-process service's clock, moved as tests/conftest.py's Clock
    moves it, for a database made before the module's server starts."""

    def __init__(self):
        self.offset = timedelta(0)

    def advance(self, seconds):
        self.offset += timedelta(seconds=seconds)


def made_workspace(path, user):
    """`user`'s made data in the database at `path`: (key, posts)."""
    app = create_app({"TESTING": True, "DATABASE": str(path)})
    result = app.test_cli_runner().invoke(
        args=["keys", "create", "--user", user]
        + [
            arg
            for scope in ("posts:read", "posts:write", "posts:publish")
            for arg in ("--scope", scope)
        ]
    )
    assert result.exit_code == 0, result.output
    key = result.output.strip().splitlines()[-1]
    api = Caller(app.test_client(), key)
    clock = MovedClock()
    real = timestamps.now
    try:
        with mock.patch.object(timestamps, "now", lambda: real() + clock.offset):
            posts = _publish_ten_weeks(api, clock)
    finally:
        with app.app_context():
            dispose_db()
    return key, posts


def _publish_ten_weeks(api, clock):
    channel(api, "northwind", "Europe/Berlin", name="Northwind")
    slots = [{"day": "mon", "time": "10:00"}, {"day": "wed", "time": "14:00"}]
    assert api.patch(CHANNEL + "northwind", json={"slots": slots}).status_code == 200
    today = datetime.now(BERLIN).date()
    monday = today - timedelta(days=today.weekday() + 7 * WEEKS)
    plan = []
    for week in range(WEEKS):
        for day, hour, rate, text in WEEK:
            date = monday + timedelta(weeks=week, days=day)
            moment = datetime(date.year, date.month, date.day, hour, 10, tzinfo=BERLIN)
            wiggle = WIGGLE[(week + day) % 10] * (1 if rate > 0.05 else 0.3)
            plan.append((moment, rate + wiggle, text))
    posts = publish_at(
        api, clock, [m for m, _, _ in plan], "northwind", content=lambda n, _: plan[n][2]
    )
    now = datetime.now(UTC) - timedelta(minutes=1)
    snapshots = []
    for post, (moment, rate, _) in zip(posts, plan, strict=True):
        base = 800 + int(post["id"][:4], 16) % 900
        for age, share in (
            (timedelta(hours=1), 0.25),
            (timedelta(days=1), 0.8),
            (timedelta(days=7), 1.0),
        ):
            taken = min(moment + age, now)
            impressions = int(base * share)
            snapshots.append(
                {
                    "post_id": post["id"],
                    "taken_at": taken.isoformat(),
                    **figures(impressions, round(impressions * rate)),
                }
            )
    send(api, snapshots)
    return posts


@pytest.fixture
def server(dashboard_gunicorn):
    """The dashboard's gunicorn of this pytest process (tests/conftest.py)."""
    return dashboard_gunicorn


@pytest.fixture
def workspace(server):
    """A user of this test's own with ten weeks of made data: (user, key, posts)."""
    user = f"maria-{uuid.uuid4().hex[:6]}"
    key, posts = made_workspace(server.database, user)
    return user, key, posts


def open_analytics(page, server, key, address="#/analytics"):
    sign_in(page, server, key)
    page.goto(f"{server.url}{DASHBOARD}{address}")
    page.locator(".chart-figure svg.heatmap").wait_for()
    page.locator(".chart-figure svg.line-chart").wait_for()


def test_the_analytics_page_shows_the_best_hour_and_adds_it_to_the_channel(
    browser, server, workspace
):
    _, key, _ = workspace
    with tab(browser, server, viewport=WIDE) as page:
        open_analytics(page, server, key)
        assert page.locator("#analytics-channel").input_value() == "northwind"  # the first channel
        tiles = page.locator(".tiles").inner_text()
        assert "POSTS PUBLISHED" in tiles.upper() and "ENGAGEMENT RATE" in tiles.upper()
        assert "Europe/Berlin" in page.locator(".analytics-span").inner_text()
        # The best time: Tuesday 09:00 in the channel's zone, and only it.
        slots = page.locator(".suggested-slot")
        assert slots.count() == 1
        assert (
            slots.first.get_attribute("data-day") == "tue"
            and slots.first.get_attribute("data-time") == "09:00"
        )
        assert "Tue 09:00" in slots.first.inner_text()
        # The heatmap marks it; the other hours with posts are drawn, the rest empty.
        assert page.locator(".heatmap .cell-suggested").count() == 1
        assert page.locator(".heatmap [data-cell='tue-9'] .cell-mark").count() == 1
        assert page.locator(".heatmap .cell-box:not(.cell-empty)").count() == len(WEEK)
        # The weekly chart: two lines over every week; the top posts: ten bars, Tuesday's first.
        assert page.locator(".line-chart polyline.impressions").count() >= 1
        assert page.locator(".line-chart polyline.engagement").count() >= 1
        assert page.locator(".bar-chart .bar").count() == 10
        assert page.locator(".bar-chart .bar-label").first.text_content().startswith("Tuesday tip")
        # Every chart has its figures in a table, read by screen readers even while hidden.
        assert page.locator("svg.chart[aria-hidden='true']").count() == 3
        weeks = page.locator("#weekly-table tbody tr")
        assert weeks.count() in (13, 14, 15)  # the 90 days, in weeks
        heat_rows = page.locator("#heatmap-table tbody tr")
        assert heat_rows.count() == len(WEEK)
        assert "Tue 09:00" in heat_rows.nth(1).inner_text()
        shoot(page, "analytics")

        # The figures behind a chart, shown on request.
        page.click("#top-posts .chart-toggle")
        table = page.locator("#top-posts-table")
        assert table.is_visible() and table.locator("tbody tr").count() == 10
        assert page.locator("#top-posts .chart-toggle").get_attribute("aria-expanded") == "true"
        table.scroll_into_view_if_needed()
        shoot(page, "analytics-top-table")

        # "Add these slots to the channel", confirmed: a PATCH of the channel on its version.
        before = Client(server.url, key).get(CHANNEL + "northwind").json
        page.click("#add-slots")
        assert "Tue 09:00" in page.locator("#confirm-text").inner_text()
        with page.expect_response(lambda r: r.request.method == "PATCH" and r.ok):
            page.click("#confirm-yes")
        page.locator(".slot-kept").wait_for()
        after = Client(server.url, key).get(CHANNEL + "northwind").json
        assert {"day": "tue", "time": "09:00"} in after["slots"]
        assert len(after["slots"]) == len(before["slots"]) + 1
        patch = [r for r in page.api_requests if r.method == "PATCH"][-1]
        assert patch.headers["if-match"] == f'"{before["version"]}"'
        assert "Added to Northwind's slots: Tue 09:00" in page.locator("#notice").inner_text()
        assert page.locator("#add-slots").count() == 0  # nothing left to add
        assert_clean(page, server)


def test_the_analytics_page_at_phone_width(browser, server, workspace):
    _, key, _ = workspace
    with tab(browser, server, viewport=PHONE, has_touch=True, is_mobile=True) as page:
        open_analytics(page, server, key)

        def check(page):
            heat = page.locator("svg.heatmap").bounding_box()
            assert heat["height"] > heat["width"]  # hours down the page, days across
            assert heat["width"] <= PHONE["width"]
            for chart in page.locator("svg.chart").all():
                box = chart.bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, box

        shoot_at_phone_width(
            page, "analytics-phone", ".chart-figure svg.bar-chart", check, back=PHONE
        )
        assert_clean(page, server)


def test_all_channels_and_a_key_that_cannot_add_slots(browser, server, workspace):
    reader = create_key(server.database, user=workspace[0], scopes=["posts:read"])
    with tab(browser, server, viewport=WIDE) as page:
        open_analytics(page, server, reader)
        assert page.locator("#add-slots").count() == 0
        assert "lacks posts:write" in page.locator(".best-times").inner_text()
        page.select_option("#analytics-channel", "")
        page.wait_for_url("**#/analytics?channel=&days=90")
        page.locator(".best-times", has_text="Choose a channel").wait_for()
        assert page.locator(".heatmap .cell-suggested").count() == 0
        page.select_option("#analytics-days", "30")
        page.wait_for_url("**days=30")
        page.locator(".chart-figure svg.line-chart").wait_for()
        assert page.locator("#weekly-table tbody tr").count() in (5, 6)
        assert_clean(page, server)


def test_the_csv_download(browser, server, workspace):
    _, key, _ = workspace
    with tab(browser, server, viewport=WIDE) as page:
        open_analytics(page, server, key)
        with page.expect_download() as found:
            page.click("text=Download CSV")
        text = Path(found.value.path()).read_text(encoding="utf-8")
        assert text.startswith("\ufeffsection,")
        rows = list(csv.DictReader(io.StringIO(text[1:], newline="")))
        slot = [row for row in rows if row["section"] == "suggested_slot"]
        assert [(row["day"], row["time"]) for row in slot] == [("tue", "09:00")]
        assert found.value.suggested_filename.startswith("analytics-northwind-")


def test_a_posts_chart_and_the_calendars_impressions(browser, server, workspace):
    _, key, posts = workspace
    client = Client(server.url, key)
    best = next(p for p in posts if p["content"].startswith("Tuesday tip"))
    stored = client.get(f"{POSTS}?order=-impressions&limit=1").json["data"][0]
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/{best['id']}")
        section = page.locator(".post-stats")
        section.locator("svg.line-chart").wait_for()
        assert "On LinkedIn" in section.inner_text()
        assert section.locator("circle.impressions").count() == 3  # 1 hour, 1 day and 7 days after
        assert section.locator("#post-snapshots-table tbody tr").count() == 3
        shoot(page, "analytics-post")
        shoot_at_phone_width(page, "analytics-post-phone", ".post-stats svg.line-chart", back=WIDE)

        # The calendar's week of the most seen post: its card says how often it was seen.
        day = datetime.fromisoformat(stored["scheduled_at"]).astimezone(
            ZoneInfo("Pacific/Auckland")
        )
        page.goto(f"{server.url}{DASHBOARD}#/calendar/{day:%Y-%m-%d}")
        card = page.locator(f"[data-post-id='{stored['id']}'] .card-stats")
        card.wait_for()
        seen = stored["stats"]["impressions"]
        assert card.inner_text().startswith(
            f"{seen / 1000:.1f}k impressions · ".replace(".0k", "k")
        )
        assert page.locator(".card-stats").count() >= 4
        page.locator(f"[data-post-id='{stored['id']}']").scroll_into_view_if_needed()
        shoot(page, "analytics-calendar")
        assert_clean(page, server)


def test_published_posts_by_their_figures_in_the_queue(browser, server, workspace):
    _, key, _ = workspace
    with tab(browser, server, viewport=WIDE) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/queue/Published")
        page.locator("#queue-sort").wait_for()
        page.select_option("#queue-sort", "-engagement")
        page.click(".queue-filters button[type=submit]")
        page.wait_for_url("**sort=-engagement**")
        first = page.locator("tbody tr").first
        # The sorted page replaces the one shown (in the order of the
        # service's default) a moment after the URL has changed.
        first.filter(has_text="Tuesday tip").wait_for()
        cells = first.locator("td[data-label='Engagement']").inner_text()
        assert cells.endswith("%") and float(cells.rstrip("%")) > 7
        shoot(page, "analytics-queue-sorted")
        assert_clean(page, server)
