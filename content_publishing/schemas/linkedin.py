"""The LinkedIn request handed to automations, and the preview of one."""

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas.posts import (
    POST_TYPES,
    PostSchema,
    brand_id_field,
    check_brand,
    content_field,
    media_urls_field,
)


class LinkedInRequestSchema(Schema):
    """What the automation sends to LinkedIn's Posts API to publish the post."""

    class Meta:
        description = (
            "POST <LinkedIn API base>/rest/posts with these headers and body. `body.commentary` "
            "is the post's content escaped for LinkedIn's little text format; `body.author` "
            "comes from the post's channel (null when not set up: the automation fills it in); "
            "`media` are the URLs the automation must upload first."
        )

    method = fields.String(dump_only=True, metadata={"example": "POST"})
    url = fields.String(dump_only=True, metadata={"example": "https://api.linkedin.com/rest/posts"})
    headers = fields.Dict(keys=fields.String(), values=fields.String(), dump_only=True)
    body = fields.Dict(dump_only=True)
    media = fields.List(fields.String(), dump_only=True)


class ClaimedPostSchema(PostSchema):
    """A post handed over by a claim, with what to send to LinkedIn."""

    linkedin_request = fields.Nested(LinkedInRequestSchema, dump_only=True)


class PreviewSchema(Schema):
    """Either {"post_id"} or the fields of a create."""

    post_id = fields.UUID()
    type = fields.String(validate=validate.OneOf(POST_TYPES))
    brand_id = brand_id_field()
    content = content_field()
    media_urls = media_urls_field()

    @validates_schema
    def one_or_the_other(self, data, **kwargs):
        if "post_id" in data:
            extra = sorted(data.keys() - {"post_id"})
            if extra:
                raise ValidationError("Give post_id alone, or the post's fields.", extra[0])
            return
        for name in ("type", "content"):
            if name not in data:
                raise ValidationError("Required when no post_id is given.", name)
        check_brand({"brand_id": None, **data})


class WarningSchema(Schema):
    code = fields.String(required=True)
    message = fields.String(required=True)


class PreviewResultSchema(Schema):
    linkedin_request = fields.Nested(LinkedInRequestSchema, required=True)
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
claimed_post_schema = ClaimedPostSchema()
preview_schema = PreviewSchema()
preview_result_schema = PreviewResultSchema()
