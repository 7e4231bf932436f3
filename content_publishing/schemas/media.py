"""A media record (the media library) and its list."""

from marshmallow import Schema, fields

from content_publishing.schemas.common import FreeText, PageQuerySchema, PageSchema, Timestamp

MAX_ALT_TEXT = 4086  # LinkedIn's limit for an image's altText


def alt_text_field(**kwargs):
    return FreeText(
        MAX_ALT_TEXT,
        allow_none=True,
        metadata={
            "description": "What the image shows, for people who cannot see it (LinkedIn's "
            "altText, at most 4,086 characters): a post's images take it unless the post "
            "gives its own (media_alt). null: none. A document takes none."
        },
        **kwargs,
    )


class MediaSchema(Schema):
    """An image or PDF document of the media library; `url` (or media:<id>)
    goes into a post's media_urls."""

    id = fields.String(dump_only=True, metadata={"description": "32 hex digits (128 random bits)."})
    url = fields.String(
        dump_only=True,
        metadata={
            "format": "uri",
            "description": "<FLASK_PUBLIC_URL>/media/<id>.<ext>: the image, served without a key "
            "(unless FLASK_MEDIA_PUBLIC=0).",
        },
    )
    content_type = fields.String(
        dump_only=True,
        metadata={"description": "image/jpeg, image/png, image/gif, image/webp or application/pdf"},
    )
    bytes = fields.Integer(dump_only=True, metadata={"description": "Of the stored file."})
    width = fields.Integer(
        dump_only=True, metadata={"description": "Pixels; a PDF's first page, in points."}
    )
    height = fields.Integer(
        dump_only=True, metadata={"description": "Pixels; a PDF's first page, in points."}
    )
    pages = fields.Integer(
        dump_only=True, allow_none=True, metadata={"description": "A PDF's; null for an image."}
    )
    alt_text = alt_text_field(dump_only=True)
    sha256 = fields.String(dump_only=True, metadata={"description": "Of the stored file."})
    created_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True, metadata={"description": "Its ETag, as If-Match."})


class MediaUpdateSchema(Schema):
    """PATCH /media-item/{id}: what of an item can change (a field left out
    stays as it is)."""

    alt_text = alt_text_field()


class MediaListQuerySchema(PageQuerySchema):
    """Newest first."""


class MediaPageSchema(PageSchema):
    data = fields.List(fields.Nested(MediaSchema), required=True)


media_schema = MediaSchema()
media_update_schema = MediaUpdateSchema()
media_list_query_schema = MediaListQuerySchema()
media_page_schema = MediaPageSchema()
