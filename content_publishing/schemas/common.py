"""Fields and schemas that posts and articles share."""

import base64
import json
import re

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing import timestamps
from content_publishing.schemas import text, urls


def render(schema, record):
    """`schema.dump(record)` for a record from the store, without its cost.

    The store returns records in wire form already (timestamps as RFC 3339
    text, JSON columns decoded), so dumping is only a projection onto the
    schema's fields; on the hot path marshmallow's per-field machinery cost
    as much as the database. tests/test_openapi.py checks the two agree. A
    schema whose record shows a field otherwise than it is stored (a post's
    media_urls) finishes the projection in `finish_render`.
    """
    shown = {
        field.data_key or name: record[field.attribute or name]
        for name, field in schema.dump_fields.items()
    }
    finish = getattr(schema, "finish_render", None)
    return shown if finish is None else finish(shown)


class FullMatch(validate.Regexp):
    """Regexp that must match the whole value: `^...$` with `re.match` lets a
    trailing newline through, since `$` also matches before one."""

    def __call__(self, value):
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


class Timestamp(fields.AwareDateTime):
    """RFC 3339 in (timestamps.parse), stored UTC text out.

    A timestamp without a UTC offset, or in another ISO 8601 form, is refused
    rather than guessed.
    """

    def __init__(self, **kwargs):
        metadata = {
            "pattern": timestamps.PATTERN,
            "example": timestamps.EXAMPLE,
            **kwargs.pop("metadata", {}),
        }
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return timestamps.to_text(timestamps.parse(value))
        except ValueError as error:
            raise ValidationError(f"Not a valid timestamp: {error}.") from error
        except OverflowError as error:
            raise ValidationError("Not a valid timestamp: out of range in UTC.") from error

    def _serialize(self, value, attr, obj, **kwargs):
        if value is None or isinstance(value, str):
            return value
        return timestamps.to_text(value)


def HttpUrl(metadata=None, **kwargs):
    """An absolute http(s) URL that a browser accepts (schemas/urls.py)."""
    return fields.String(
        validate=[validate.Length(max=urls.MAX_LENGTH), urls.check],
        metadata={
            "format": "uri",
            "pattern": urls.PATTERN,
            "description": urls.DESCRIPTION,
            **(metadata or {}),
        },
        **kwargs,
    )


def Text(max_length, multiline=False, metadata=None, bidi_ok=True, **kwargs):
    """1 to `max_length` characters, at least one visible, no control
    characters (tab and line breaks only where `multiline`; bidirectional
    formatting characters unless `bidi_ok` is false)."""
    bidi = [] if bidi_ok else [text.no_bidi_controls]
    return fields.String(
        validate=[
            validate.Length(min=1, max=max_length),
            text.no_controls(multiline),
            *bidi,
            text.not_blank,
        ],
        metadata={
            "pattern": text.pattern(multiline, blank_ok=False, bidi_ok=bidi_ok),
            **(metadata or {}),
            "description": " ".join(
                part for part in ((metadata or {}).get("description"), text.PATTERN_NOTE) if part
            ),
        },
        **kwargs,
    )


def FreeText(max_length, metadata=None, **kwargs):
    """Up to `max_length` characters, possibly empty or blank, with tab and
    line breaks but no other control characters."""
    return fields.String(
        validate=[validate.Length(max=max_length), text.no_controls(multiline=True)],
        metadata={"pattern": text.pattern(multiline=True, blank_ok=True), **(metadata or {})},
        **kwargs,
    )


class QueryInteger(fields.Integer):
    """An integer query parameter in ASCII digits only: int() would also take
    "١٢", " 12", "+12" and "1_2", which no client means to send."""

    _DIGITS = re.compile(r"-?[0-9]{1,19}")

    def _validated(self, value):
        if isinstance(value, str) and not self._DIGITS.fullmatch(value):
            raise self.make_error("invalid")
        return super()._validated(value)


class Cursor(fields.String):
    """An opaque place in a list: the (created_at, id) of the row a page
    ended at, as the `next` link of a list answer carries it."""

    def __init__(self, **kwargs):
        super().__init__(
            metadata={
                "description": "Opaque: start after the page whose `next` link carried it "
                "(instead of offset). Following `next` never repeats or misses a record while "
                "records are added between the pages."
            },
            **kwargs,
        )

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            created_at, record_id = json.loads(
                base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            )
            timestamps.parse(created_at)
        except (ValueError, TypeError):
            raise ValidationError(
                "Not a cursor of this service: take it from a `next` link."
            ) from None
        if not isinstance(record_id, str | int):
            raise ValidationError("Not a cursor of this service: take it from a `next` link.")
        return created_at, record_id

    def _serialize(self, value, attr, obj, **kwargs):
        return encode_cursor(*value) if value else None


def encode_cursor(created_at, record_id):
    text = json.dumps([created_at, record_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


class PageQuerySchema(Schema):
    """limit/offset (or cursor) paging of every list endpoint."""

    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100))
    offset = QueryInteger(load_default=0, validate=validate.Range(min=0, max=2**62))
    cursor = Cursor()

    @validates_schema(pass_original=True)
    def cursor_or_offset(self, data, original, **kwargs):
        if "cursor" in original and "offset" in original:
            raise ValidationError("Give offset or cursor, not both.", "cursor")


class PageSchema(Schema):
    """The list envelope; `data` is set by each list's subclass."""

    total = fields.Integer(required=True, metadata={"description": "Items matching the filters."})
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    next = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "format": "uri",
            "description": "The absolute URL of the next page, with the same filters, or null "
            "on the last page (n8n: Response Contains Next URL).",
        },
    )


class ErrorBodySchema(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Dict(required=True)


class ErrorSchema(Schema):
    """The envelope of every error response."""

    error = fields.Nested(ErrorBodySchema, required=True)


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["ok", "degraded"]))
    database = fields.Boolean(required=True)


health_schema = HealthSchema()
