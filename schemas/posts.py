"""Post record, create and update bodies, list query, and the callback."""

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from schemas.common import HttpUrl, PageQuerySchema, PageSchema, Text, Timestamp

POST_TYPES = ("personal", "brand")
POST_STATUSES = ("Draft", "Scheduled", "Published", "Failed")
MAX_CONTENT = 3000  # the network's limit for a post
MAX_MEDIA = 9
URN = r"^urn:li:[A-Za-z][A-Za-z0-9_]*:[A-Za-z0-9_:,()%.\-]+$"


def check_brand(data):
    """A brand post names its company page; a personal post names none."""
    if data.get("type") == "brand" and not data.get("brand_id"):
        raise ValidationError("Required for brand posts.", "brand_id")
    if data.get("type") == "personal" and data.get("brand_id") is not None:
        raise ValidationError("Must be null for personal posts.", "brand_id")


# check_brand as JSON Schema, for the OpenAPI document: clients and fuzzers
# then know that a brand post needs brand_id and a personal one has none.
BRAND_RULE = {
    "oneOf": [
        {
            "properties": {
                "type": {"type": "string", "enum": ["personal"]},
                "brand_id": {"nullable": True, "enum": [None]},
            }
        },
        {
            "properties": {
                "type": {"type": "string", "enum": ["brand"]},
                "brand_id": {"type": "string"},
            },
            "required": ["brand_id"],
        },
    ]
}


def brand_id_field(**kwargs):
    return Text(
        100,
        allow_none=True,
        metadata={"description": "Company page the automation posts to; brand posts only."},
        **kwargs,
    )


def content_field(**kwargs):
    return Text(MAX_CONTENT, **kwargs)


def media_urls_field(**kwargs):
    return fields.List(HttpUrl(), validate=validate.Length(max=MAX_MEDIA), **kwargs)


class PostSchema(Schema):
    """The post record; its writable fields are also the create body."""

    openapi_extra = BRAND_RULE

    id = fields.String(dump_only=True, metadata={"format": "uuid"})
    type = fields.String(required=True, validate=validate.OneOf(POST_TYPES))
    brand_id = brand_id_field(load_default=None)
    content = content_field(required=True)
    media_urls = media_urls_field(load_default=list)
    status = fields.String(dump_only=True, validate=validate.OneOf(POST_STATUSES))
    scheduled_at = Timestamp(
        allow_none=True,
        load_default=None,
        metadata={"description": "When the automation platform should publish the post."},
    )
    published_at = Timestamp(dump_only=True, allow_none=True)
    linkedin_post_id = fields.String(dump_only=True, allow_none=True)
    live_url = fields.String(dump_only=True, allow_none=True)
    last_error = fields.String(dump_only=True, allow_none=True)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True)

    @validates_schema
    def brand_rule(self, data, **kwargs):
        check_brand(data)


class PostUpdateSchema(Schema):
    """PATCH body: every field optional; the merged record is checked after."""

    type = fields.String(validate=validate.OneOf(POST_TYPES))
    brand_id = brand_id_field()
    content = content_field()
    media_urls = media_urls_field()
    scheduled_at = Timestamp(allow_none=True)
    status = fields.String(validate=validate.OneOf(POST_STATUSES))
    last_error = fields.String(allow_none=True, validate=validate.Length(max=2000))


class PostListQuerySchema(PageQuerySchema):
    status = fields.String(validate=validate.OneOf(POST_STATUSES))
    type = fields.String(validate=validate.OneOf(POST_TYPES))
    scheduled_before = Timestamp(metadata={"description": "scheduled_at < this"})
    scheduled_after = Timestamp(metadata={"description": "scheduled_at >= this"})
    due = fields.Boolean(
        load_default=False,
        metadata={"description": "true: Scheduled posts whose scheduled_at has come"},
    )
    order = fields.String(
        load_default="-created_at",
        validate=validate.OneOf(["-created_at", "scheduled_at"]),
        metadata={"description": "-created_at: newest first; scheduled_at: soonest first"},
    )


class PostPageSchema(PageSchema):
    data = fields.List(fields.Nested(PostSchema), required=True)


class CallbackSchema(Schema):
    """What the automation platform posts after publishing."""

    post_id = fields.UUID(required=True)
    linkedin_post_id = fields.String(
        required=True,
        validate=[
            validate.Length(max=200),
            validate.Regexp(URN, error="Must be a LinkedIn URN such as urn:li:share:123."),
        ],
    )
    live_url = HttpUrl(required=True)


post_schema = PostSchema()
posts_page_schema = PostPageSchema()
post_update_schema = PostUpdateSchema()
post_list_query_schema = PostListQuerySchema()
callback_schema = CallbackSchema()
