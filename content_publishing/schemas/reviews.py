"""The review of a post (an action, with a comment) and its comments."""

from marshmallow import Schema, fields, validate

from content_publishing.schemas.common import Text, Timestamp
from content_publishing.schemas.posts import AuthorSchema, PostSchema

MAX_COMMENT = 5000
ACTIONS = ("submit", "approve", "request_changes")


def comment_body_field(**kwargs):
    return Text(MAX_COMMENT, multiline=True, **kwargs)


class ReviewSchema(Schema):
    """POST /api-v2-posts-review/{id}."""

    action = fields.String(
        required=True,
        validate=validate.OneOf(ACTIONS),
        metadata={
            "description": "submit (Draft -> In review), approve (In review -> Approved) or "
            "request_changes (In review or Approved -> Draft, with a comment)."
        },
    )
    comment = comment_body_field(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Kept as a comment of the post; required to request changes "
            "(up to 5,000 characters)."
        },
    )


class CommentSchema(Schema):
    """A comment of a post; `body` is also the create body."""

    id = fields.Integer(dump_only=True)
    post_id = fields.String(dump_only=True, metadata={"format": "uuid"})
    member = fields.Nested(AuthorSchema, dump_only=True, metadata={"description": "Who wrote it."})
    body = comment_body_field(
        required=True,
        metadata={
            "description": "Up to 5,000 characters. @<member name> mentions a member of the "
            "workspace (the name ending at a character that cannot continue it)."
        },
    )
    mentions = fields.List(
        fields.Integer(),
        dump_only=True,
        metadata={"description": "The ids of the members it mentions, besides its writer."},
    )
    created_at = Timestamp(dump_only=True)


class CommentsSchema(Schema):
    data = fields.List(
        fields.Nested(CommentSchema), required=True, metadata={"description": "Oldest first."}
    )


class ReviewedSchema(Schema):
    """The answer of a review: the post, and the comment it made (if any)."""

    post = fields.Nested(PostSchema, required=True)
    comment = fields.Nested(CommentSchema, required=True, allow_none=True)


review_schema = ReviewSchema()
comment_schema = CommentSchema()
comments_schema = CommentsSchema()
reviewed_schema = ReviewedSchema()
