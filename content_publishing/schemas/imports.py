"""A bulk import: rows of posts, as CSV or as JSON {"posts": [...]}.

CSV, as spreadsheets export it: UTF-8 with or without a byte-order mark, a
header row naming the columns, quoted fields that may hold commas and line
breaks, LF or CRLF line ends (read with the standard csv module). The
separator is `,` or `;` (Excel's in much of Europe), whichever the header
row holds more of. Columns:

    channel, type, brand_id, content, scheduled_at, media_urls, queue,
    repeat, document_title, first_comment, submit

`media_urls` is space-separated; `queue` and `submit` are `true` or empty; an
empty cell is an absent value. `scheduled_at` is RFC 3339, or a spreadsheet's
local time without an offset ("2026-12-22 10:00", a WallTime), read in the
row's channel's zone when the rows are planned (posts/imports.py).
`media_alt` (a list) is JSON's only: a CSV row's media
take their library items' alt text. `channel` names the row's channel by its id or
its name (its type and brand_id follow); without it, `type` and `brand_id`
place the row as a create's fields do. Only `content`, and `channel` or `type`,
are required columns; an unknown column is refused, since a misspelt one would
silently drop data. A header of more than MAX_COLUMNS columns is refused
before any of them is looked at (no import needs more than the eleven above),
and every check of the header and the rows is linear in their size.
"""

import csv
import io
import re
from collections import Counter
from datetime import datetime

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas.common import Text, Timestamp
from content_publishing.schemas.posts import (
    POST_TYPES,
    PostSchema,
    brand_id_field,
    check_placed,
    content_field,
    document_title_field,
    first_comment_field,
    media_alt_field,
    media_urls_field,
)
from content_publishing.schemas.recurrence import Repeat

MAX_ROWS = 1000
MAX_COLUMNS = 100  # room to name a few misspelt columns; eleven are known
COLUMNS = (
    "channel",
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
REQUIRED_COLUMNS = ("content",)
ONE_OF_COLUMNS = ("channel", "type")  # the row's channel, by name or id, or its type
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

    channel = Text(
        100,
        load_default=None,
        metadata={
            "description": "The row's channel: a channel's id, or its name (as GET "
            "/functions/v1/channels shows them). Its type and brand_id follow; without it, "
            "type (and brand_id) place the row."
        },
    )
    type = fields.String(validate=validate.OneOf(POST_TYPES))  # absent with a channel
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
            "description": "Only while the workspace requires approvals, or for a colleague's "
            "profile (whose member approves it): the post lands In review rather than Draft."
        },
    )

    @validates_schema
    def rules(self, data, **kwargs):
        check_placed({**data, "channel_id": data.get("channel")})
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
        _check_header(reader.fieldnames or [])
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


def _check_header(header):
    """ValidationError under "header": too many columns, an unknown or a
    doubled column, a required one missing. One pass over the names."""
    if len(header) > MAX_COLUMNS:
        raise ValidationError(
            {
                "header": [
                    f"The header has {len(header):,} columns; an import takes at most "
                    f"{MAX_COLUMNS} ({', '.join(COLUMNS)})."
                ]
            }
        )
    counts = Counter(name.strip() for name in header)
    problems = [f"Unknown column {name!r}." for name in counts if name not in COLUMNS]
    problems += [f"Column {name} is missing." for name in REQUIRED_COLUMNS if name not in counts]
    if not set(ONE_OF_COLUMNS) & counts.keys():
        problems.append("Column channel or type is missing: each row names its channel.")
    problems += [f"Column {name} is given twice." for name, n in counts.items() if n > 1]
    if problems:
        raise ValidationError({"header": problems})


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
        elif name in ("channel", "type", "scheduled_at", "repeat", "brand_id", "document_title"):
            row[name] = cell.strip()
        else:
            row[name] = cell
    return row


import_schema = ImportSchema()
import_row_schema = ImportRowSchema()
import_result_schema = ImportResultSchema()
