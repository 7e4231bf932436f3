"""Article record, create and update bodies, and the list query."""

from marshmallow import Schema, fields, validate

from content_publishing.schemas.common import (
    FreeText,
    HttpUrl,
    PageQuerySchema,
    PageSchema,
    Text,
    Timestamp,
)

ARTICLE_STATUSES = ("Draft", "Published")
MAX_TITLE = 300
MAX_BODY = 200_000
MAX_EXCERPT = 300
MAX_TAGS = 20
MAX_TAG = 50


def title_field(**kwargs):
    return Text(MAX_TITLE, **kwargs)


def body_field(**kwargs):
    return FreeText(MAX_BODY, metadata={"description": "Markdown or plain text."}, **kwargs)


def excerpt_field(**kwargs):
    return FreeText(MAX_EXCERPT, allow_none=True, **kwargs)


def tags_field(**kwargs):
    tag = Text(MAX_TAG)
    return fields.List(tag, validate=validate.Length(max=MAX_TAGS), **kwargs)


class ArticleSchema(Schema):
    """The article record; its writable fields are also the create body."""

    id = fields.String(dump_only=True, metadata={"format": "uuid"})
    title = title_field(required=True)
    body = body_field(load_default="")
    excerpt = excerpt_field(load_default=None)
    cover_image_url = HttpUrl(allow_none=True, load_default=None)
    tags = tags_field(load_default=list)
    status = fields.String(dump_only=True, validate=validate.OneOf(ARTICLE_STATUSES))
    published_at = Timestamp(dump_only=True, allow_none=True)
    live_url = fields.String(dump_only=True, allow_none=True)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True)


class ArticleUpdateSchema(Schema):
    """PATCH body: every field optional."""

    title = title_field()
    body = body_field()
    excerpt = excerpt_field()
    cover_image_url = HttpUrl(allow_none=True)
    tags = tags_field()
    status = fields.String(validate=validate.OneOf(ARTICLE_STATUSES))
    live_url = HttpUrl(allow_none=True, metadata={"description": "Where the article is public."})


class ArticleListQuerySchema(PageQuerySchema):
    status = fields.String(validate=validate.OneOf(ARTICLE_STATUSES))


class ArticlePageSchema(PageSchema):
    data = fields.List(fields.Nested(ArticleSchema), required=True)


article_schema = ArticleSchema()
articles_page_schema = ArticlePageSchema()
article_update_schema = ArticleUpdateSchema()
article_list_query_schema = ArticleListQuerySchema()
