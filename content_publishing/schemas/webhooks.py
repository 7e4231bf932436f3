"""Webhook endpoint record, create and update bodies, and the delivery log."""

import re

from marshmallow import Schema, ValidationError, fields, validate

from content_publishing.schemas.common import HttpUrl, PageQuerySchema, PageSchema, Text, Timestamp

# The event types an endpoint can ask for; webhooks/events.py says what causes each.
TYPES = (
    "post.due",
    "post.published",
    "post.failed",
    "post.first_comment_failed",
    "article.published",
    "channel.expiring",
    "channel.disconnected",
)
OUTCOMES = ("pending", "delivered", "failed", "cancelled")
MAX_DESCRIPTION = 300


def distinct_events(values):
    if not values:
        raise ValidationError("List at least one event type.")
    if len(set(values)) != len(values):
        raise ValidationError("An event type is listed twice.")


def events_field(**kwargs):
    return fields.List(
        fields.String(validate=validate.OneOf(TYPES)),
        validate=distinct_events,
        metadata={"description": "Event types to deliver: " + ", ".join(TYPES) + "."},
        **kwargs,
    )


def description_field(**kwargs):
    return Text(MAX_DESCRIPTION, allow_none=True, **kwargs)


# Headers a delivery sets itself, which an auth_header cannot be.
OWN_HEADERS = frozenset(
    {
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "content-type",
        "user-agent",
    }
)


# Headers that belong to one connection or to the message's framing, not to
# the receiver: a proxy on the way drops or acts on them (RFC 9110, 7.6.1;
# Proxy-Connection and Trailers as older proxies spell them), and a receiver
# would read the body by them (Content-Encoding: a body to decompress;
# Expect: an answer to wait for).
HOP_BY_HOP_AND_FRAMING = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "http2-settings",
        "proxy-authenticate",
        "proxy-authorization",
        "expect",
        "content-length",
        "content-encoding",
        "content-range",
        "host",
    }
)


def header_name(value):
    if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}", value):
        raise ValidationError("Not a header name: 1-64 letters, digits and !#$%&'*+-.^_`|~.")
    if value.lower() in HOP_BY_HOP_AND_FRAMING:
        raise ValidationError(
            f"{value} is a hop-by-hop or framing header: a proxy on the way would drop it or "
            "act on it, and a receiver would read the request by it. Choose a name of your own, "
            "such as X-N8N-Token."
        )
    if value.lower() in OWN_HEADERS:
        raise ValidationError(f"{value} is a header every delivery sets itself.")


class AuthHeaderSchema(Schema):
    """A header sent with every delivery, for platforms that cannot check a
    signature (n8n's Webhook node checks it with a Header Auth credential)."""

    name = fields.String(required=True, validate=header_name, metadata={"example": "X-N8N-Token"})


class AuthHeaderWithTokenSchema(AuthHeaderSchema):
    token = fields.String(
        dump_only=True,
        metadata={
            "description": "whtok_ and 43 URL-safe characters: the header's value. Shown only "
            "in the answer that issues it; store it now."
        },
    )


def auth_header_field(**kwargs):
    return fields.Nested(
        AuthHeaderSchema,
        allow_none=True,
        metadata={
            "description": '{"name": ...}: every delivery also carries this header with a '
            "token the service makes (shown once, in the answer that issues it). Null: none."
        },
        **kwargs,
    )


class EndpointSchema(Schema):
    """A webhook endpoint; its writable fields are also the create body."""

    id = fields.String(dump_only=True, metadata={"format": "uuid"})
    url = HttpUrl(required=True)
    events = events_field(required=True)
    description = description_field(load_default=None)
    enabled = fields.Boolean(
        dump_only=True,
        metadata={
            "description": "false after PATCH enabled=false, or when the receiver answered 410 Gone."
        },
    )
    disabled_reason = fields.String(dump_only=True, allow_none=True)
    auth_header = auth_header_field(load_default=None)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True)


class EndpointWithSecretSchema(EndpointSchema):
    """The answer to a create or a rotation: the only time the secret is shown."""

    secret = fields.String(
        dump_only=True,
        metadata={
            "description": "whsec_ and the base64 of 32 random bytes: the Standard Webhooks signing "
            "secret. Shown only in this answer; store it now."
        },
    )
    auth_header = fields.Nested(AuthHeaderWithTokenSchema, dump_only=True, allow_none=True)


class EndpointUpdateSchema(Schema):
    """PATCH body: every field optional."""

    url = HttpUrl()
    events = events_field()
    description = description_field()
    enabled = fields.Boolean()
    rotate_secret = fields.Boolean(
        metadata={
            "description": "true: a new secret, returned once; for 24 hours deliveries carry "
            "signatures with both the old and the new secret."
        }
    )
    auth_header = auth_header_field()
    rotate_auth_header = fields.Boolean(
        metadata={
            "description": "true: a new auth_header token, returned once. From the next "
            "delivery on only the new one is sent: a header cannot carry two values."
        }
    )


class EndpointListQuerySchema(PageQuerySchema):
    pass


class EndpointPageSchema(PageSchema):
    data = fields.List(fields.Nested(EndpointSchema), required=True)


class AttemptSchema(Schema):
    attempted_at = Timestamp(required=True)
    outcome = fields.String(required=True, validate=validate.OneOf(("delivered", "failed")))
    status_code = fields.Integer(
        allow_none=True, required=True, metadata={"description": "null when no answer came."}
    )
    duration_ms = fields.Integer(required=True)
    error = fields.String(allow_none=True, required=True)
    response = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The first 1 KB of the answer's body."},
    )


class DeliverySchema(Schema):
    """One event to one endpoint, and its attempts."""

    id = fields.String(dump_only=True, metadata={"format": "uuid"})
    event_id = fields.String(
        dump_only=True,
        metadata={
            "description": "The webhook-id header: the same on every attempt and redelivery."
        },
    )
    endpoint_id = fields.String(dump_only=True, metadata={"format": "uuid"})
    event_type = fields.String(dump_only=True, validate=validate.OneOf(TYPES))
    post_id = fields.String(dump_only=True, allow_none=True, metadata={"format": "uuid"})
    outcome = fields.String(dump_only=True, validate=validate.OneOf(OUTCOMES))
    attempt_count = fields.Integer(dump_only=True)
    next_attempt_at = Timestamp(dump_only=True, allow_none=True)
    last_error = fields.String(dump_only=True, allow_none=True)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    attempts = fields.List(fields.Nested(AttemptSchema), dump_only=True)


class DeliveryListQuerySchema(PageQuerySchema):
    endpoint_id = fields.UUID()
    event_type = fields.String(validate=validate.OneOf((*TYPES, "ping")))
    post_id = fields.UUID()
    outcome = fields.String(validate=validate.OneOf(OUTCOMES))


class DeliveryPageSchema(PageSchema):
    data = fields.List(fields.Nested(DeliverySchema), required=True)


class PingSchema(Schema):
    webhook_id = fields.UUID(required=True, metadata={"description": "The endpoint to ping."})


class RedeliverSchema(Schema):
    delivery_id = fields.UUID(
        required=True, metadata={"description": "The delivery to send again."}
    )


endpoint_schema = EndpointSchema()
endpoint_with_secret_schema = EndpointWithSecretSchema()
endpoint_update_schema = EndpointUpdateSchema()
endpoint_list_query_schema = EndpointListQuerySchema()
endpoints_page_schema = EndpointPageSchema()
delivery_schema = DeliverySchema()
delivery_list_query_schema = DeliveryListQuerySchema()
deliveries_page_schema = DeliveryPageSchema()
redeliver_schema = RedeliverSchema()
ping_schema = PingSchema()
