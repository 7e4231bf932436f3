"""A bulk import: rows of posts, as CSV or as JSON {"posts": [...]}.

CSV, as spreadsheets export it: UTF-8 with or without a byte-order mark, a
header row naming the columns, quoted fields that may hold commas and line
breaks, LF or CRLF line ends (read with the standard csv module). The
separator is `,` or `;` (Excel's in much of Europe), whichever the header
row holds more of. Columns:

    type, brand_id, content, scheduled_at, media_urls, queue, repeat,
    document_title, first_comment, submit

`media_urls` is space-separated; `queue` and `submit` are `true` or empty; an
empty cell is an absent value. `scheduled_at` is RFC 3339, or a spreadsheet's
local time without an offset ("2026-12-22 10:00", a WallTime), read in the
row's channel's zone when the rows are planned (posts/imports.py).
`media_alt` (a list) is JSON's only: a CSV row's media
take their library items' alt text. Only `type` and `content` are required columns; an
unknown column is refused, since a misspelt one would silently drop data.
"""

import csv
import io
import re
from datetime import datetime

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas.common import Timestamp
from content_publishing.schemas.posts import (
    POST_TYPES,
    PostSchema,
    brand_id_field,
    check_brand,
    content_field,
    document_title_field,
    first_comment_field,
    media_alt_field,
    media_urls_field,
)
from content_publishing.schemas.recurrence import Repeat

MAX_ROWS = 1000
COLUMNS = (
    "type",
    "brand_id",
    "content",
    "scheduled_at",
    "media_urls",
    "queue",
    "repeat",
    "document_title",
    "first_comment",
    "submit",
)
REQUIRED_COLUMNS = ("type", "content")
SEPARATORS = (",", ";")
LOCAL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?")


class WallTime(str):
    """A local time without an offset ("2026-12-22T10:00:00", ISO text of a
    naive datetime), to be read in its row's channel's zone."""

    def naive(self):
        return datetime.fromisoformat(self)


class ScheduledAt(Timestamp):
    """RFC 3339, or a local time as a spreadsheet writes it: the date, a space
    or T, HH:MM and optional seconds, without an offset (a WallTime)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.metadata.pop("pattern")  # RFC 3339's, which a local time does not follow

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and LOCAL_TIME.fullmatch(value.strip()):
            try:
                wall = datetime.fromisoformat(value.strip().replace(" ", "T"))
            except ValueError as error:
                raise ValidationError(f"Not a valid local time: {error}.") from error
            return WallTime(wall.isoformat())
        return super()._deserialize(value, attr, data, **kwargs)


class ImportRowSchema(Schema):
    """One row: a Draft, a Scheduled post (scheduled_at), or a queued one (queue)."""

    type = fields.String(required=True, validate=validate.OneOf(POST_TYPES))
    brand_id = brand_id_field(load_default=None)
    content = content_field(required=True)
    media_urls = media_urls_field(load_default=list)
    media_alt = media_alt_field(load_default=None)
    document_title = document_title_field(load_default=None)
    first_comment = first_comment_field(load_default=None)
    scheduled_at = ScheduledAt(
        allow_none=True,
        load_default=None,
        metadata={
            "description": "Schedule the post at this time (needs posts:publish): RFC 3339, or "
            "a local time without an offset ('2026-12-22 10:00' or '2026-12-22T10:00:00'), "
            "read in the row's channel's zone (a channel with posting times set up). A local "
            "time the clocks skip is refused; one they pass twice is its first occurrence.",
        },
    )
    queue = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Schedule it at its channel's next free slot (needs posts:publish)."
        },
    )
    repeat = Repeat(load_default=None)
    submit = fields.Boolean(
        load_default=False,
        metadata={
            "description": "Only while the workspace requires approvals: the post lands In "
            "review rather than Draft."
        },
    )

    @validates_schema
    def rules(self, data, **kwargs):
        check_brand(data)
        if data.get("queue") and data.get("scheduled_at"):
            raise ValidationError("Give scheduled_at or queue, not both.", "queue")


class ImportSchema(Schema):
    posts = fields.List(
        fields.Nested(ImportRowSchema),
        required=True,
        validate=validate.Length(min=1, max=MAX_ROWS),
        metadata={"description": f"1 to {MAX_ROWS} rows, imported in this order."},
    )


class ImportResultSchema(Schema):
    data = fields.List(fields.Nested(PostSchema), required=True)
    count = fields.Integer(required=True)


def rows_from_csv(text):
    """{"posts": [row dicts]} from CSV text (its BOM already removed), with
    empty cells left out and media_urls split; ValidationError for a bad
    header (under "header") or a row that is not a row."""
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=separator(text), strict=True)
    try:
        header = reader.fieldnames or []
        names = [name.strip() for name in header]
        problems = [f"Unknown column {name!r}." for name in names if name not in COLUMNS]
        problems += [f"Column {name} is missing." for name in REQUIRED_COLUMNS if name not in names]
        problems += [
            f"Column {name} is given twice." for name in set(names) if names.count(name) > 1
        ]
        if problems:
            raise ValidationError({"header": problems})
        rows = []
        for record in reader:
            if None in record:  # more cells than the header names
                raise ValidationError(
                    {"rows": {str(len(rows) + 1): ["More cells than the header has columns."]}}
                )
            rows.append(_row({k.strip(): v for k, v in record.items()}))
    except csv.Error as e:
        raise ValidationError({"header": [f"Not CSV: {e} (line {reader.line_num})."]}) from None
    return {"posts": rows}


def separator(text):
    """`;` when the header row holds more semicolons than commas (a column
    name holds neither), else `,`."""
    header = text.split("\n", 1)[0]
    return max(SEPARATORS, key=header.count)


def _row(record):
    row = {}
    for name, cell in record.items():
        if cell is None or cell.strip() == "":
            continue
        if name == "media_urls":
            row[name] = cell.split()
        elif name in ("queue", "submit"):
            row[name] = {"true": True, "false": False}.get(cell.strip().lower(), cell)
        elif name in ("type", "scheduled_at", "repeat", "brand_id", "document_title"):
            row[name] = cell.strip()
        else:
            row[name] = cell
    return row


import_schema = ImportSchema()
import_row_schema = ImportRowSchema()
import_result_schema = ImportResultSchema()
