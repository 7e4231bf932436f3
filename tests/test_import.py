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
