"""Stats snapshots: what a collector posts, what each item's result is, and
a post's snapshots and latest figures as they are read back."""

from marshmallow import Schema, ValidationError, fields, validate

from content_publishing.schemas.common import Timestamp

MAX_SNAPSHOTS = 500
# Far above any post's count (LinkedIn's busiest see tens of millions), and
# four of them (the interactions) still add up within 32 bits.
MAX_FIGURE = 500_000_000
FIGURES = {
    "impressions": "Times the post was shown.",
    "members_reached": "Distinct members it was shown to.",
    "reactions": "Likes and the other reactions.",
    "comments": "Comments.",
    "reshares": "Reposts.",
    "clicks": "Clicks on the post, its links or the author's name.",
}
ENGAGEMENT = (
    "(reactions + comments + reshares + clicks) / impressions, a missing figure counting 0; "
    "null without impressions (missing or 0)."
)
ITEM_CODES = ("validation_error", "not_found", "not_published")


class Count(fields.Integer):
    """A figure: a whole number from 0 to 500 million, or null (not known).
    JSON true and false are not numbers here, nor are 1.0 or "12"."""

    def __init__(self, description, **kwargs):
        super().__init__(
            strict=True,
            allow_none=True,
            validate=validate.Range(min=0, max=MAX_FIGURE),
            metadata={"description": f"{description} Null or absent: not known."},
            **kwargs,
        )

    def _validated(self, value):
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._validated(value)


def figure_fields(**kwargs):
    return {name: Count(text, **kwargs) for name, text in FIGURES.items()}


SnapshotSchema = Schema.from_dict(
    {
        "post_id": fields.UUID(
            required=True, metadata={"description": "A Published post of the caller."}
        ),
        "taken_at": Timestamp(
            required=True,
            metadata={
                "description": "When the figures were read; not in the future. The same post "
                "and taken_at again replace the figures."
            },
        ),
        **figure_fields(load_default=None),
    },
    name="SnapshotSchema",
)


class StatsBodySchema(Schema):
    data = fields.List(
        fields.Nested(SnapshotSchema),
        required=True,
        validate=validate.Length(min=1, max=MAX_SNAPSHOTS),
        metadata={
            "description": f"1 to {MAX_SNAPSHOTS} snapshots; each is kept or refused on its own."
        },
    )


class ItemErrorSchema(Schema):
    code = fields.String(
        required=True,
        validate=validate.OneOf(ITEM_CODES),
        metadata={
            "description": "validation_error: a field is invalid (details names it); not_found: "
            "no such post of the caller (unknown or another workspace's); not_published: the post is "
            "not Published, so it has no figures yet."
        },
    )
    message = fields.String(required=True)
    details = fields.Dict(required=True)


class ItemResultSchema(Schema):
    item = fields.Integer(required=True, metadata={"description": "1-based place in data."})
    post_id = fields.String(
        required=True, allow_none=True, metadata={"description": "As sent, when text."}
    )
    taken_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "As stored (UTC); as sent when refused."},
    )
    result = fields.String(
        required=True,
        validate=validate.OneOf(["created", "replaced", "refused"]),
        metadata={
            "description": "created: a new snapshot; replaced: the figures of the same post "
            "and taken_at were replaced; refused: nothing was kept (error says why)."
        },
    )
    error = fields.Nested(
        ItemErrorSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Why the item was refused, as the error envelope says it."},
    )


class StatsResultSchema(Schema):
    data = fields.List(
        fields.Nested(ItemResultSchema),
        required=True,
        metadata={"description": "One result per snapshot sent, in the order sent."},
    )
    created = fields.Integer(required=True)
    replaced = fields.Integer(required=True)
    refused = fields.Integer(required=True)


# A snapshot as read back: when its figures were read, the figures, and its engagement.
StatsSchema = Schema.from_dict(
    {
        "taken_at": Timestamp(required=True),
        **figure_fields(required=True),
        "engagement": fields.Float(
            required=True, allow_none=True, metadata={"description": ENGAGEMENT}
        ),
    },
    name="StatsSchema",
)


class PostStatsSchema(Schema):
    post_id = fields.String(required=True, metadata={"format": "uuid"})
    data = fields.List(
        fields.Nested(StatsSchema), required=True, metadata={"description": "Oldest first."}
    )
    latest = fields.Nested(
        StatsSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The snapshot with the latest taken_at; null: none yet."},
    )


def check_items(value):
    """The envelope of a stats body, before its items are loaded one by one."""
    if not isinstance(value, list):
        raise ValidationError("Give the snapshots as a list.")
    if not 1 <= len(value) <= MAX_SNAPSHOTS:
        raise ValidationError(f"Give 1 to {MAX_SNAPSHOTS} snapshots.")


stats_body_schema = StatsBodySchema()
snapshot_schema = SnapshotSchema()
stats_result_schema = StatsResultSchema()
stats_schema = StatsSchema()
post_stats_schema = PostStatsSchema()
