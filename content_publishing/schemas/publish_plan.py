"""The publish plan handed to automations (`linkedin_request`), and the
preview of one."""

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas.posts import (
    POST_TYPES,
    PostSchema,
    brand_id_field,
    channel_id_field,
    check_placed,
    content_field,
    document_title_field,
    first_comment_field,
    media_alt_field,
    media_urls_field,
)

MAX_PREVIEW_MEDIA = 100  # a preview shows too_many_images instead of refusing


def _headers():
    return fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        dump_only=True,
        metadata={
            "description": "LinkedIn-Version, X-Restli-Protocol-Version and Content-Type; the "
            "automation adds its own Authorization: Bearer ..."
        },
    )


class InitializeSchema(Schema):
    """LinkedIn's initializeUpload request for one medium."""

    method = fields.String(dump_only=True, metadata={"example": "POST"})
    url = fields.String(
        dump_only=True,
        metadata={"example": "https://api.linkedin.com/rest/images?action=initializeUpload"},
    )
    headers = _headers()
    body = fields.Dict(
        dump_only=True,
        metadata={
            "description": '{"initializeUploadRequest": {"owner": <the author URN>}}',
        },
    )


class UploadSchema(Schema):
    """One medium to upload before the post."""

    class Meta:
        description = (
            "POST `initialize`; PUT the bytes fetched from `source` to the answer's "
            "value.uploadUrl; then replace {{<ref>}} everywhere with the answer's value.image "
            "(or value.document) URN."
        )

    ref = fields.String(dump_only=True, metadata={"example": "upload_0"})
    kind = fields.String(dump_only=True, validate=validate.OneOf(["image", "document"]))
    source = fields.String(
        dump_only=True,
        metadata={
            "format": "uri",
            "description": "Where to fetch the bytes: a library medium at the service's "
            "address (a WebP as its PNG rendition, /media/<id>.png), or the URL as written.",
        },
    )
    content_type = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "image/jpeg, image/png, image/gif or application/pdf; null "
            "when a URL does not show it."
        },
    )
    bytes = fields.Integer(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "The size of what `source` serves; null for a URL the "
            "service has not seen."
        },
    )
    sha256 = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={"description": "Hex SHA-256 of what `source` serves; null as bytes."},
    )
    initialize = fields.Nested(InitializeSchema, dump_only=True)


class StepSchema(Schema):
    """A request sent after the post: its first comment."""

    class Meta:
        description = (
            "Sent once the post exists: {{post_urn}} is the post's x-restli-id (percent-encoded "
            "in `url`, as it is in `body`). A refused first comment is reported as "
            "first_comment_error; the post stays Published."
        )

    ref = fields.String(dump_only=True, metadata={"example": "first_comment"})
    method = fields.String(dump_only=True, metadata={"example": "POST"})
    url = fields.String(
        dump_only=True,
        metadata={"example": "https://api.linkedin.com/rest/socialActions/{{post_urn}}/comments"},
    )
    headers = _headers()
    body = fields.Dict(
        dump_only=True,
        metadata={
            "description": '{"actor": <author URN>, "object": "{{post_urn}}", "message": '
            '{"text": <the first comment, escaped like commentary>}}'
        },
    )


class LinkedInRequestSchema(Schema):
    """The publish plan: what the automation sends to LinkedIn, in order."""

    class Meta:
        description = (
            "1. each of `uploads`, in order (see there); 2. POST `url` (<LinkedIn API "
            "base>/rest/posts) with `headers` and `body`, every {{upload_N}} replaced by its URN; "
            "{{post_urn}} is then the answer's x-restli-id; 3. each of `after`, in order. "
            "`body.commentary` is the post's content escaped for LinkedIn's little text format; "
            "`body.author` comes from the post's channel (null when not set up: the automation "
            "fills it in); `body.content` is `media` {id, altText} for one image, `multiImage` "
            "{images: [{id, altText}]} for 2-20, `media` {id, title} for a document, and absent "
            "for a text-only post, which has empty `uploads` and `after`. `media` lists the "
            "uploads' sources, for automations written before the plan (docs/linkedin.md)."
        )

    method = fields.String(dump_only=True, metadata={"example": "POST"})
    url = fields.String(dump_only=True, metadata={"example": "https://api.linkedin.com/rest/posts"})
    headers = _headers()
    uploads = fields.List(fields.Nested(UploadSchema), dump_only=True)
    body = fields.Dict(dump_only=True)
    after = fields.List(fields.Nested(StepSchema), dump_only=True)
    media = fields.List(fields.String(), dump_only=True)


class ClaimedPostSchema(PostSchema):
    """A post handed over by a claim, with what to send to LinkedIn."""

    linkedin_request = fields.Nested(LinkedInRequestSchema, dump_only=True)


class PreviewSchema(Schema):
    """Either {"post_id"} or the fields of a create."""

    post_id = fields.UUID()
    channel_id = channel_id_field()
    type = fields.String(validate=validate.OneOf(POST_TYPES))
    brand_id = brand_id_field()
    content = content_field()
    media_urls = media_urls_field(most=MAX_PREVIEW_MEDIA)
    media_alt = media_alt_field()
    document_title = document_title_field()
    first_comment = first_comment_field()

    @validates_schema
    def one_or_the_other(self, data, **kwargs):
        if "post_id" in data:
            extra = sorted(data.keys() - {"post_id"})
            if extra:
                raise ValidationError("Give post_id alone, or the post's fields.", extra[0])
            return
        missing = {}
        if "type" not in data and "channel_id" not in data:
            missing["type"] = ["Required when no post_id or channel_id is given."]
        if "content" not in data:
            missing["content"] = ["Required when no post_id is given."]
        if missing:
            raise ValidationError(missing)
        check_placed({"brand_id": None, **data})


class WarningSchema(Schema):
    code = fields.String(
        required=True,
        metadata={
            "description": "author_unknown, over_length, link_preview_hidden, plain_mention, "
            "media_unsupported, media_missing, media_mixed, too_many_images, alt_text_missing, "
            "document_title_missing, first_comment_over_length or utm_dropped (docs/linkedin.md)."
        },
    )
    message = fields.String(required=True)
    field = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The post's field it is about; null: the post's channel."},
    )
    text = fields.String(
        metadata={"description": "plain_mention: the text that tags no one, such as @Jane Doe."}
    )


class SentLinkSchema(Schema):
    field = fields.String(
        required=True, metadata={"description": "content or first_comment: where the link is."}
    )
    url = fields.String(required=True, metadata={"description": "The link as written."})
    sent = fields.String(
        required=True,
        metadata={
            "description": "The link as it goes out: with the channel's UTM tags (`utm`), where "
            "it has any; {post_id} reads `preview` for a post not yet saved."
        },
    )


class PreviewResultSchema(Schema):
    linkedin_request = fields.Nested(LinkedInRequestSchema, required=True)
    links = fields.List(
        fields.Nested(SentLinkSchema),
        required=True,
        metadata={"description": "Each http(s) link of the text and first comment, in order."},
    )
    characters = fields.Integer(
        required=True,
        metadata={
            "description": "Characters of content, counted as LinkedIn does (UTF-16 code units)."
        },
    )
    warnings = fields.List(fields.Nested(WarningSchema), required=True)


class ClaimedSchema(Schema):
    data = fields.List(
        fields.Nested(ClaimedPostSchema),
        required=True,
        metadata={"description": "The posts now Publishing, soonest first."},
    )


claimed_schema = ClaimedSchema()
preview_schema = PreviewSchema()
preview_result_schema = PreviewResultSchema()
