"""Fields and schemas that posts and articles share."""

import re

from marshmallow import Schema, ValidationError, fields, validate

import timestamps

MAX_URL_LENGTH = 2048
# The URLs we accept: what fields.Url accepts, narrowed to a pattern that the
# OpenAPI document can state exactly, so clients and the server agree.
_P = r"([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"  # RFC 3986 pchar
_Q = rf"({_P}|[/?])"
URL_PATTERN = (
    r"^https?://([A-Za-z0-9]{1,63}\.)*[A-Za-z][A-Za-z0-9]{1,62}(:[0-9]{1,4})?"
    rf"((/{_P}*)+(\?{_Q}+)?(#{_Q}*)?|\?{_Q}+(#{_Q}*)?)?$"
)
# "Not only white space", spelled out so that Python and the JSON Schema
# regex dialect of the OpenAPI document agree on what white space is.
NOT_BLANK_PATTERN = (
    r"[^\t\n\v\f\r \x1c-\x1f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)


class Timestamp(fields.AwareDateTime):
    """RFC 3339 in, stored text out: loads to UTC text, dumps stored text as is.

    A timestamp without a UTC offset is refused rather than guessed.
    """

    def _deserialize(self, value, attr, data, **kwargs):
        moment = super()._deserialize(value, attr, data, **kwargs)
        try:
            return timestamps.to_text(moment)
        except (OverflowError, ValueError) as error:
            raise self.make_error("invalid", input=value, obj_type=self.OBJ_TYPE) from error

    def _serialize(self, value, attr, obj, **kwargs):
        if value is None or isinstance(value, str):
            return value
        return timestamps.to_text(value)


def HttpUrl(metadata=None, **kwargs):
    """An absolute http(s) URL of reasonable length."""
    return fields.Url(
        schemes={"http", "https"},
        require_tld=False,
        validate=[
            validate.Length(max=MAX_URL_LENGTH),
            validate.Regexp(URL_PATTERN, error="Must be an http(s) URL such as https://example.com/a."),
        ],
        metadata={"format": "uri", "pattern": URL_PATTERN, **(metadata or {})},
        **kwargs,
    )


def not_blank(value):
    if not re.search(NOT_BLANK_PATTERN, value):
        raise ValidationError("Must contain more than white space.")


def Text(max_length, metadata=None, **kwargs):
    """A string of 1 to `max_length` characters that is not only white space."""
    return fields.String(
        validate=[validate.Length(min=1, max=max_length), not_blank],
        metadata={"pattern": NOT_BLANK_PATTERN, **(metadata or {})},
        **kwargs,
    )


class PageQuerySchema(Schema):
    """limit/offset paging of every list endpoint."""

    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**62))


class PageSchema(Schema):
    """The list envelope; `data` is set by each list's subclass."""

    total = fields.Integer(required=True, metadata={"description": "Items matching the filters."})
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)


class ErrorBodySchema(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)
    details = fields.Dict(required=True)


class ErrorSchema(Schema):
    """The envelope of every error response."""

    error = fields.Nested(ErrorBodySchema, required=True)
