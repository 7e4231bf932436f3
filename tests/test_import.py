"""Bulk import: CSV as spreadsheets write it, or JSON; all or nothing, with
every bad row named."""

import csv
import io

import pytest

from harness.api import CHANNELS, IMPORT, POSTS
from tests.conftest import assert_error

CSV = {"Content-Type": "text/csv"}
BOM = "\ufeff"


def spreadsheet(
    rows, header=("type", "brand_id", "content", "scheduled_at", "media_urls", "queue", "repeat")
):
    """CSV as a spreadsheet exports it: a BOM, CRLF line ends, quoting as needed."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return (BOM + out.getvalue()).encode("utf-8")


def stored(api):
    return api.get(POSTS + "?limit=100").get_json()["total"]


@pytest.fixture(autouse=True)
def short_lead(app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 60


def test_a_spreadsheet_csv_with_bom_quoted_commas_and_line_breaks(api):
    rows = [
        ["personal", "", "Hello, world — launch day 🚀", "", "", "", ""],
        [
            "brand",
            "acme",
            'Line one\nLine two, with "quotes"',
            "2031-01-05T09:00:00+01:00",
            "https://cdn.example.com/a.png https://cdn.example.com/b.png",
            "",
            "",
        ],
        ["personal", "", "Weekly", "2031-01-06T08:00:00Z", "", "", "FREQ=WEEKLY;COUNT=4"],
    ]
    r = api.post(IMPORT, data=spreadsheet(rows), headers=CSV)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["count"] == 3 and [p["content"] for p in body["data"]] == [row[2] for row in rows]
    draft, brand, weekly = body["data"]
    assert draft["status"] == "Draft" and draft["scheduled_at"] is None
    assert brand["status"] == "Scheduled" and brand["scheduled_at"] == "2031-01-05T08:00:00.000000Z"
    assert brand["brand_id"] == "acme" and len(brand["media_urls"]) == 2
    assert weekly["repeat"] == "FREQ=WEEKLY;COUNT=4" and weekly["occurrence"] == 1
    assert stored(api) == 3


def test_a_bad_row_731_of_1000_stores_nothing(api):
    rows = [["personal", "", f"post {n}", "", "", "", ""] for n in range(1, 1001)]
    rows[730] = ["personal", "acme", "", "tomorrow", "ftp://x", "maybe", "FREQ=HOURLY"]
    r = api.post(IMPORT, data=spreadsheet(rows), headers=CSV)
    error = assert_error(r, 400, "validation_error")
    assert list(error["details"]) == ["rows"] and list(error["details"]["rows"]) == ["731"]
    fields = error["details"]["rows"]["731"]
    assert {"content", "scheduled_at", "media_urls.0", "queue", "repeat"} <= set(fields), fields
    assert stored(api) == 0


def test_every_bad_row_is_named_at_once(api):
    rows = [
        {"type": "personal", "content": "fine"},
        {"type": "brand", "content": "no brand"},
        {"type": "personal", "content": "past", "scheduled_at": "2020-01-01T00:00:00Z"},
        {
            "type": "personal",
            "content": "both",
            "scheduled_at": "2031-01-01T00:00:00Z",
            "queue": True,
        },
        {"type": "personal", "content": "no slots", "queue": True},
        {"type": "personal", "content": "x", "status": "Published"},
        {"type": "brand", "brand_id": "personal", "content": "the personal channel's id"},
    ]
    error = assert_error(api.post(IMPORT, json={"posts": rows}), 400, "validation_error")
    found = error["details"]["rows"]
    assert set(found) == {"2", "3", "4", "5", "6", "7"}
    assert "brand_id" in found["7"]
    assert "brand_id" in found["2"] and "scheduled_at" in found["3"] and "queue" in found["4"]
    assert (
        "queue" in found["5"]
        and "no posting slots" in found["5"]["queue"][0]
        or "not set up" in found["5"]["queue"][0]
    )
    assert "status" in found["6"]
    assert stored(api) == 0


def test_queued_rows_take_slots_in_row_order(api, app):
    slots = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    assert (
        api.post(CHANNELS, json={"type": "personal", "name": "Me", "slots": slots}).status_code
        == 201
    )
    rows = [{"type": "personal", "content": f"q{n}", "queue": True} for n in range(5)]
    made = api.post(IMPORT, json={"posts": rows}).get_json()["data"]
    times = [p["scheduled_at"] for p in made]
    assert times == sorted(times) and len(set(times)) == 5
    assert [p["content"] for p in made] == [f"q{n}" for n in range(5)]
    assert all(t.endswith("T09:00:00.000000Z") for t in times)


def test_rows_that_schedule_need_publish_scope(caller):
    writer = caller("wendy", scopes=["posts:read", "posts:write"])
    drafts = {"posts": [{"type": "personal", "content": "a"}]}
    assert writer.post(IMPORT, json=drafts).status_code == 201
    scheduling = {
        "posts": [{"type": "personal", "content": "b", "scheduled_at": "2031-01-01T00:00:00Z"}]
    }
    error = assert_error(writer.post(IMPORT, json=scheduling), 403, "insufficient_scope")
    assert error["details"]["required_scope"] == "posts:publish"
    assert stored(writer) == 1


def test_the_same_idempotency_key_returns_the_first_import(api):
    body = {
        "posts": [{"type": "personal", "content": "once"}, {"type": "personal", "content": "twice"}]
    }
    first = api.post(IMPORT, json=body, headers={"Idempotency-Key": "import-1"})
    again = api.post(IMPORT, json=body, headers={"Idempotency-Key": "import-1"})
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    other = {"posts": [{"type": "personal", "content": "different"}]}
    assert_error(
        api.post(IMPORT, json=other, headers={"Idempotency-Key": "import-1"}), 409, "conflict"
    )
    assert stored(api) == 2


BAD_DOCUMENTS = [
    (b"type,content\n", "posts"),  # a header and no rows
    (BOM.encode() + b"type,content,colour\npersonal,x,red\n", "header"),
    (b"type,brand_id\npersonal,\n", "header"),  # no content column
    (b"type,content,content\npersonal,a,b\n", "header"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("data, field", BAD_DOCUMENTS)
def test_bad_csv_documents(api, data, field):
    error = assert_error(api.post(IMPORT, data=data, headers=CSV), 400, "validation_error")
    assert field in error["details"], error
    assert stored(api) == 0


def wide_header(columns, separator=","):
    """A header of `columns` columns: type, content, then made-up names."""
    return separator.join(["type", "content", *(f"col{n}" for n in range(columns - 2))])


@pytest.mark.backend_independent
@pytest.mark.parametrize("separator", [",", ";"])
def test_a_header_of_50000_columns_is_refused_naming_the_limit(api, separator):
    """390 KB of header (a worker timed out checking it): a 400 at once,
    naming the limit rather than 49,998 unknown columns."""
    data = (wide_header(50_000, separator) + f"\npersonal{separator}x\n").encode()
    assert len(data) > 380_000
    error = assert_error(api.post(IMPORT, data=data, headers=CSV), 400, "validation_error")
    assert error["details"] == {
        "header": [
            "The header has 50,000 columns; an import takes at most 100 (channel, type, "
            "brand_id, content, scheduled_at, media_urls, queue, repeat, document_title, first_comment, "
            "submit)."
        ]
    }
    assert stored(api) == 0


@pytest.mark.backend_independent
def test_up_to_100_columns_each_one_is_named(api):
    over = (wide_header(101) + "\npersonal,x\n").encode()
    error = assert_error(api.post(IMPORT, data=over, headers=CSV), 400, "validation_error")
    assert "101 columns" in error["details"]["header"][0]
    at = (wide_header(100) + ",content\npersonal,x\n").encode()  # 101 again, one doubled
    assert_error(api.post(IMPORT, data=at, headers=CSV), 400, "validation_error")
    at = (wide_header(99) + ",content\npersonal,x\n").encode()
    error = assert_error(api.post(IMPORT, data=at, headers=CSV), 400, "validation_error")
    problems = error["details"]["header"]
    assert len(problems) == 98 and problems[-1] == "Column content is given twice."
    assert problems[0] == "Unknown column 'col0'."
    assert stored(api) == 0


@pytest.mark.backend_independent
def test_a_json_row_of_50000_fields_is_named_once(api):
    row = {"type": "personal", "content": "x", **{f"k{n}": 1 for n in range(49_998)}}
    body = {"posts": [{"type": "personal", "content": "fine"}, row]}
    error = assert_error(api.post(IMPORT, json=body), 400, "validation_error")
    assert error["details"] == {
        "rows": {"2": {"_schema": ["The row has 50,000 fields; a row takes at most 100."]}}
    }
    assert stored(api) == 0


def test_a_row_with_too_many_cells_is_named(api):
    error = assert_error(
        api.post(IMPORT, data=b"type,content\npersonal,a\npersonal,b,extra\n", headers=CSV),
        400,
        "validation_error",
    )
    assert error["details"] == {
        "rows": {"2": {"_schema": ["More cells than the header has columns."]}}
    }


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "body, status, code",
    [
        ({"posts": [{"type": "personal", "content": "x"}] * 1001}, 400, "validation_error"),
        ({"posts": []}, 400, "validation_error"),
        ({"posts": "x"}, 400, "validation_error"),
        ({"rows": []}, 400, "validation_error"),
        ([], 400, "validation_error"),
    ],
)
def test_bad_json_documents(api, body, status, code):
    assert_error(api.post(IMPORT, json=body), status, code)
    assert stored(api) == 0


def test_other_content_types_and_bad_bytes(api):
    assert_error(
        api.post(
            IMPORT, data=b"type,content\npersonal,x\n", headers={"Content-Type": "text/plain"}
        ),
        415,
        "unsupported_media_type",
    )
    error = assert_error(
        api.post(IMPORT, data="type,content\npersonal,café\n".encode("latin-1"), headers=CSV),
        400,
        "bad_request",
    )
    assert "UTF-8" in error["message"]
    assert stored(api) == 0


def excel_in_europe(rows, header=("type", "brand_id", "content", "scheduled_at")):
    """CSV as Excel saves it where the decimal mark is a comma: a BOM, `;`
    between cells, CRLF line ends, quotes only where a cell needs them."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return (BOM + out.getvalue()).encode("utf-8")


def channels_in_zones(api):
    for body in (
        {"type": "personal", "name": "Me", "timezone": "America/New_York"},
        {"type": "brand", "brand_id": "acme", "name": "Acme", "timezone": "Europe/Berlin"},
    ):
        assert api.post(CHANNELS, json=body).status_code == 201


def test_a_csv_saved_by_excel_in_europe_with_local_times(api):
    channels_in_zones(api)
    rows = [
        ["brand", "acme", "Winter launch; at last, with a comma", "2031-01-05 09:00"],
        ["personal", "", "Summer in New York", "2031-07-01 09:30"],
        ["brand", "acme", "Seconds and a T", "2031-07-01T09:30:15"],
        ["brand", "acme", "An offset stays as given", "2031-01-05T12:00:00Z"],
        ["personal", "", "Draft, no time", ""],
    ]
    data = excel_in_europe(rows)
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data and b";" in data.split(b"\r\n")[0]
    r = api.post(IMPORT, data=data, headers=CSV)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()["data"]
    assert [p["content"] for p in made] == [row[2] for row in rows]
    assert [p["scheduled_at"] for p in made] == [
        "2031-01-05T08:00:00.000000Z",  # Berlin in winter: UTC+1
        "2031-07-01T13:30:00.000000Z",  # New York in summer: UTC-4
        "2031-07-01T07:30:15.000000Z",  # Berlin in summer: UTC+2
        "2031-01-05T12:00:00.000000Z",
        None,
    ]
    assert [p["status"] for p in made] == ["Scheduled"] * 4 + ["Draft"]
    assert stored(api) == 5


def test_local_times_at_a_daylight_saving_change(api):
    channels_in_zones(api)
    # Berlin's clocks go back from 03:00 to 02:00 on 26 October 2031: 02:30
    # happens twice, and is taken at its first occurrence (still UTC+2).
    r = api.post(
        IMPORT, data=excel_in_europe([["brand", "acme", "Twice", "2031-10-26 02:30"]]), headers=CSV
    )
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["data"][0]["scheduled_at"] == "2031-10-26T00:30:00.000000Z"
    # They go forward from 02:00 to 03:00 on 30 March 2031: 02:30 never happens.
    rows = [
        ["brand", "acme", "Fine", "2031-03-30 01:30"],
        ["brand", "acme", "Skipped", "2031-03-30 02:30"],
    ]
    error = assert_error(
        api.post(IMPORT, data=excel_in_europe(rows), headers=CSV), 400, "validation_error"
    )
    assert list(error["details"]["rows"]) == ["2"]
    [message] = error["details"]["rows"]["2"]["scheduled_at"]
    assert "2031-03-30 02:30" in message and "Europe/Berlin" in message and "forward" in message
    assert stored(api) == 1


def test_a_local_time_needs_its_channel_set_up(api):
    rows = [
        {"type": "brand", "brand_id": "nowhere", "content": "x", "scheduled_at": "2031-01-05 09:00"}
    ]
    error = assert_error(api.post(IMPORT, json={"posts": rows}), 400, "validation_error")
    [message] = error["details"]["rows"]["1"]["scheduled_at"]
    assert "time zone" in message and "offset" in message
    assert stored(api) == 0


BAD_LOCAL_TIMES = [
    "2031-13-05 09:00",
    "2031-02-30 09:00",
    "2031-01-05 24:00",
    "2031-01-05 9:00",
    "05/01/2031 09:00",
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("when", BAD_LOCAL_TIMES)
def test_bad_local_times_are_named(api, when):
    data = excel_in_europe([["personal", "", "x", when]])
    error = assert_error(api.post(IMPORT, data=data, headers=CSV), 400, "validation_error")
    assert list(error["details"]["rows"]["1"]) == ["scheduled_at"], error
    assert stored(api) == 0


@pytest.mark.backend_independent
def test_a_comma_csv_whose_cells_hold_semicolons_stays_a_comma_csv(api):
    data = b'type,content,repeat\r\npersonal,"a; b; c",\r\npersonal,x;y,\r\n'
    r = api.post(IMPORT, data=data, headers=CSV)
    assert r.status_code == 201, r.get_json()
    assert [p["content"] for p in r.get_json()["data"]] == ["a; b; c", "x;y"]
