"""The review of a post (an action, with a comment) and its comments."""

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas.common import Text, Timestamp
from content_publishing.schemas.posts import AuthorSchema, PostSchema

MAX_COMMENT = 5000
ACTIONS = ("submit", "approve", "request_changes")


class JsonBoolean(fields.Boolean):
    """JSON's true or false only: never 0, 1 or "yes"."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


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
    scheduled_at = Timestamp(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "submit: the time the post is scheduled for the moment it is "
            "approved (kept as its `intent`). approve: approve and schedule it for this time, "
            "in one step (refused whole if it cannot be scheduled)."
        },
    )
    queue = JsonBoolean(
        load_default=False,
        metadata={
            "description": "submit: add the post to its channel's queue the moment it is "
            "approved (kept as its `intent`). approve: approve and queue it, in one step."
        },
    )

    @validates_schema
    def one_intent(self, data, **kwargs):
        if data.get("scheduled_at") and data.get("queue"):
            raise ValidationError("Give a time or the queue, not both.", "queue")


class BulkReviewItemSchema(Schema):
    id = fields.UUID(required=True)
    version = fields.Integer(
        required=True,
        strict=True,
        metadata={"description": "The version reviewed, as If-Match names it for one post."},
    )


class BulkReviewSchema(Schema):
    """POST /api-v2-posts-review-bulk."""

    action = ReviewSchema().fields["action"]
    comment = ReviewSchema().fields["comment"]
    queue = JsonBoolean(
        load_default=False,
        metadata={
            "description": "submit: each post is queued the moment it is approved. approve: "
            "approve and queue each, in the order given."
        },
    )
    posts = fields.List(
        fields.Nested(BulkReviewItemSchema),
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "The posts, in the order they are reviewed (and queued)."},
    )


class BulkOutcomeSchema(Schema):
    id = fields.String(required=True)
    post = fields.Raw(
        required=True,
        allow_none=True,
        metadata={"description": "The post as it now is; null when it was refused."},
    )
    error = fields.Dict(
        required=True,
        allow_none=True,
        metadata={"description": "{code, message}: why this post was refused; null: done."},
    )
    not_planned = fields.String(required=True, allow_none=True)


class BulkReviewedSchema(Schema):
    data = fields.List(
        fields.Nested(BulkOutcomeSchema),
        required=True,
        metadata={"description": "One outcome per post, in the order given."},
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
    not_planned = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "approve: why the post waits Approved rather than being scheduled "
            "as it was submitted (its time passed, say); null otherwise."
        },
    )


review_schema = ReviewSchema()
comment_schema = CommentSchema()
comments_schema = CommentsSchema()
reviewed_schema = ReviewedSchema()
bulk_review_schema = BulkReviewSchema()
bulk_reviewed_schema = BulkReviewedSchema()
