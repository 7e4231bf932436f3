"""Fields and schemas that posts and articles share."""

from marshmallow import Schema, ValidationError, fields, validate

import timestamps

MAX_URL_LENGTH = 2048


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


def HttpUrl(**kwargs):
    """An absolute http(s) URL of reasonable length."""
    return fields.Url(
        schemes={"http", "https"},
        require_tld=False,
        validate=validate.Length(max=MAX_URL_LENGTH),
        **kwargs,
    )


def not_blank(value):
    if not value.strip():
        raise ValidationError("Must contain more than white space.")


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
