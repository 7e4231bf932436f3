"""A media record (the media library) and its list."""

from marshmallow import Schema, fields

from content_publishing.schemas.common import PageQuerySchema, PageSchema, Timestamp


class MediaSchema(Schema):
    """An image of the media library; `url` goes into a post's media_urls."""

    id = fields.String(dump_only=True, metadata={"description": "32 hex digits (128 random bits)."})
    url = fields.String(
        dump_only=True,
        metadata={
            "format": "uri",
            "description": "<FLASK_PUBLIC_URL>/media/<id>.<ext>: the image, served without a key "
            "(unless FLASK_MEDIA_PUBLIC=0).",
        },
    )
    content_type = fields.String(dump_only=True)
    bytes = fields.Integer(dump_only=True, metadata={"description": "Of the stored image."})
    width = fields.Integer(dump_only=True)
    height = fields.Integer(dump_only=True)
    sha256 = fields.String(dump_only=True, metadata={"description": "Of the stored image."})
    created_at = Timestamp(dump_only=True)


class MediaListQuerySchema(PageQuerySchema):
    """Newest first."""


class MediaPageSchema(PageSchema):
    data = fields.List(fields.Nested(MediaSchema), required=True)


media_schema = MediaSchema()
media_list_query_schema = MediaListQuerySchema()
media_page_schema = MediaPageSchema()
