"""Post record, create and update bodies, list query, and the callback."""

import re

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas import media_refs, urls
from content_publishing.schemas.channels import PERSONAL
from content_publishing.schemas.common import (
    FreeText,
    FullMatch,
    HttpUrl,
    PageQuerySchema,
    PageSchema,
    Text,
    Timestamp,
)
from content_publishing.schemas.recurrence import Repeat
from content_publishing.schemas.stats import StatsSchema

POST_TYPES = ("personal", "brand")
# In review and Approved: only in a workspace that requires approvals (posts/reviews.py).
POST_STATUSES = ("Draft", "In review", "Approved", "Scheduled", "Publishing", "Published", "Failed")
STATUSES_NOTE = (
    "In review and Approved occur only in a workspace that requires approvals "
    "(GET /functions/v1/workspace); elsewhere a post is never in either."
)
MAX_CONTENT = 3000  # the network's limit for a post
MAX_MEDIA = 20  # LinkedIn's most images in one post (a document post has one)
MAX_ALT_TEXT = 4086  # LinkedIn's limit for altText
MAX_DOCUMENT_TITLE = 400  # LinkedIn's limit for a document's title
MAX_FIRST_COMMENT = 1250  # LinkedIn's limit for a comment
MAX_COMMENT_ERROR = 1000
MAX_ERROR = 2000
URN = r"^urn:li:[A-Za-z][A-Za-z0-9_]*:[A-Za-z0-9_:,()%.\-]+$"


def check_brand(data):
    """A brand post names its company page; a personal post names none. A
    brand_id is a brand channel's id, so it can never be `personal`, the id
    of the personal channel: such a post would be planned on the personal
    channel's slots and go out as its author."""
    if data.get("type") == "brand" and not data.get("brand_id"):
        raise ValidationError("Required for brand posts.", "brand_id")
    if data.get("brand_id") == PERSONAL:
        raise ValidationError(
            "personal is the personal channel's id, not a brand's: "
            'give a personal post type "personal" and no brand_id.',
            "brand_id",
        )
    if data.get("type") == "personal" and data.get("brand_id") is not None:
        raise ValidationError("Must be null for personal posts.", "brand_id")


def brand_id_field(**kwargs):
    return Text(
        100,
        allow_none=True,
        metadata={
            "description": "The company page the automation posts to (its brand channel's id). "
            "Required (not null) when type is brand; must be null or absent when type is "
            "personal; never `personal`, the personal channel's id."
        },
        **kwargs,
    )


CHANNEL_ID = (
    "The channel the post goes to: a channel's id (GET "
    "/functions/v1/channels), of a person's profile or a brand page; the post's type "
    "and brand_id follow from it. Absent: type and brand_id find it, as always (a "
    "brand post its brand_id's channel; a personal post the writer's own personal "
    "channel, else the workspace's first). A type or brand_id that disagrees with it "
    "is a 400; another workspace's channel a 404."
)


def channel_id_field(description=CHANNEL_ID, **kwargs):
    return Text(100, metadata={"description": description}, **kwargs)


def check_placed(data):
    """A post names its channel, or its type (and a brand post its brand_id)."""
    if data.get("channel_id") is not None:
        return
    if not data.get("type"):
        raise ValidationError("Required, unless channel_id names the post's channel.", "type")
    check_brand(data)


def content_field(**kwargs):
    return Text(MAX_CONTENT, multiline=True, **kwargs)


class MediaUrls(fields.List):
    """A record's media_urls: references shown as URLs at the service's
    current address (media_refs.shown)."""

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else media_refs.shown(value)


def media_urls_field(most=MAX_MEDIA, kind=fields.List, **kwargs):
    return kind(
        fields.String(
            validate=[validate.Length(max=urls.MAX_LENGTH), media_refs.check],
            metadata={
                "format": "uri",
                "pattern": media_refs.PATTERN,
                "description": media_refs.DESCRIPTION,
            },
        ),
        validate=validate.Length(
            max=most, error="At most {max} media: 1 to 20 images, or one document."
        ),
        metadata={
            "description": "The post's media, in order: 1 to 20 images (JPEG, PNG, GIF; a WebP "
            "of the library is handed over as PNG), or one PDF document, never both. Library "
            "media are shown at the service's current address (FLASK_PUBLIC_URL)."
        },
        **kwargs,
    )


def media_alt_field(**kwargs):
    return fields.List(
        FreeText(MAX_ALT_TEXT, allow_none=True),
        allow_none=True,
        metadata={
            "description": "Alt text of each medium, in the order of media_urls (as many "
            'entries): null uses the library item\'s alt_text, "" gives none. Changing '
            "media_urls alone keeps the entry of each medium that stays. A document takes "
            "none (null)."
        },
        **kwargs,
    )


def document_title_field(**kwargs):
    return Text(
        MAX_DOCUMENT_TITLE,
        allow_none=True,
        metadata={
            "description": "The title LinkedIn shows on a document post; required to schedule "
            "one (1-400 characters)."
        },
        **kwargs,
    )


def first_comment_field(**kwargs):
    return Text(
        MAX_FIRST_COMMENT,
        multiline=True,
        allow_none=True,
        metadata={
            "description": "Posted as the first comment right after the post (escaped like "
            "content; at most 1,250 characters once escaped to be scheduled)."
        },
        **kwargs,
    )


class AuthorSchema(Schema):
    """A post's author: a member of its workspace."""

    id = fields.Integer(dump_only=True)
    name = fields.String(dump_only=True)


class IntentSchema(Schema):
    """What a post under review is to do once approved."""

    queue = fields.Boolean(
        dump_only=True,
        metadata={"description": "true: it is added to its channel's queue when approved."},
    )
    scheduled_at = Timestamp(
        dump_only=True,
        allow_none=True,
        metadata={"description": "The time it is scheduled for when approved."},
    )


class RetryingSchema(Schema):
    """Why the service's own publisher has not sent the post yet."""

    cause = fields.String(
        dump_only=True, metadata={"description": "What went wrong at the last try."}
    )
    next_try_at = Timestamp(dump_only=True, metadata={"description": "When it tries again."})
    tries = fields.Integer(dump_only=True, metadata={"description": "How many tries so far."})


class PostSchema(Schema):
    """The post record; its writable fields are also the create body.

    The brand rule (a brand post names its brand_id, a personal post has none)
    is checked here and stated in words in the document: a `oneOf` for it made
    generated clients split the record into two classes that held only those
    two fields.
    """

    class Meta:
        description = (
            "A personal or brand post. A brand post (type brand) must carry brand_id; "
            "a personal post must not (null)."
        )

    id = fields.String(dump_only=True, metadata={"format": "uuid"})
    channel_id = channel_id_field(load_default=None)
    type = fields.String(  # absent when channel_id names the channel; never null
        validate=validate.OneOf(POST_TYPES),
        metadata={"description": "personal or brand; required unless channel_id is given."},
    )
    brand_id = brand_id_field(load_default=None)
    content = content_field(required=True)
    media_urls = media_urls_field(load_default=list, kind=MediaUrls)
    media_alt = media_alt_field()
    document_title = document_title_field()
    first_comment = first_comment_field()
    status = fields.String(
        dump_only=True,
        validate=validate.OneOf(POST_STATUSES),
        metadata={"description": STATUSES_NOTE},
    )
    scheduled_at = Timestamp(
        allow_none=True,
        load_default=None,
        metadata={"description": "When the automation platform should publish the post."},
    )
    published_at = Timestamp(dump_only=True, allow_none=True)
    linkedin_post_id = fields.String(dump_only=True, allow_none=True)
    live_url = fields.String(dump_only=True, allow_none=True)
    last_error = fields.String(dump_only=True, allow_none=True)
    first_comment_urn = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={"description": "The first comment's URN, as the callback reported it."},
    )
    first_comment_error = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "Why the first comment was not posted, as the callback reported it "
            "(the post itself is live)."
        },
    )
    handoff_id = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={
            "format": "uuid",
            "description": "The current handoff to an automation "
            "(Publishing only); null otherwise.",
        },
    )
    handoff_expires_at = Timestamp(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "When the current handoff's lease runs out: without a callback "
            "or a report by then, the post becomes Failed."
        },
    )
    handoff_count = fields.Integer(
        dump_only=True, metadata={"description": "How many times the post has been handed off."}
    )
    repeat = Repeat(load_default=None)
    series_id = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={
            "format": "uuid",
            "description": "Shared by every occurrence of a recurring post; null otherwise.",
        },
    )
    occurrence = fields.Integer(
        dump_only=True,
        allow_none=True,
        metadata={"description": "1-based place in the series (skipped instants not counted)."},
    )
    recycled_from = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={
            "format": "uuid",
            "description": "The Published post this one is a recycled copy of "
            "(POST /api-v2-posts-recycle/{id}); null otherwise.",
        },
    )
    stats = fields.Nested(
        StatsSchema,
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "The latest snapshot of the post's figures on the network "
            "(POST /api-v2-posts-stats); null until one arrives."
        },
    )
    author = fields.Nested(
        AuthorSchema,
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "The member who made the post (its workspace's owner for a post "
            "made before workspaces had members); a contributor changes only their own drafts."
        },
    )
    approved_by = fields.Nested(
        AuthorSchema,
        dump_only=True,
        allow_none=True,
        attribute="approver",
        metadata={
            "description": "The member whose approval holds (null: none; a change of content, "
            "media, first comment or channel ends it). A series' next occurrence keeps it."
        },
    )
    approved_at = Timestamp(dump_only=True, allow_none=True)
    reviewer = fields.Nested(
        AuthorSchema,
        dump_only=True,
        allow_none=True,
        metadata={"description": "The member who last approved the post or asked for changes."},
    )
    retrying = fields.Nested(
        RetryingSchema,
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "A Scheduled post of a channel this service publishes itself, which "
            "it tried to send and will try again (LinkedIn could not be reached, say); null "
            "otherwise."
        },
    )
    intent = fields.Nested(
        IntentSchema,
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "Where approvals apply: what the post does the moment it is "
            "approved, as it was submitted (a time, or the queue); null: it waits Approved."
        },
    )
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True)

    @validates_schema(skip_on_field_errors=False)  # a missing type is named beside the rest
    def brand_rule(self, data, **kwargs):
        check_placed(data)

    def finish_render(self, shown):
        """common.render's projection, with media_urls as shown."""
        shown["media_urls"] = media_refs.shown(shown["media_urls"])
        return shown


class PostUpdateSchema(Schema):
    """PATCH body: every field optional; the merged record is checked after."""

    channel_id = channel_id_field(
        "Move the post to this channel (its type and brand_id follow). A change of channel "
        "ends an approval, as a change of content does.",
        allow_none=True,
    )
    type = fields.String(validate=validate.OneOf(POST_TYPES))
    brand_id = brand_id_field()
    content = content_field()
    media_urls = media_urls_field()
    media_alt = media_alt_field()
    document_title = document_title_field()
    first_comment = first_comment_field()
    scheduled_at = Timestamp(allow_none=True)
    status = fields.String(
        validate=validate.OneOf(POST_STATUSES),
        metadata={
            "description": "A status move (posts:publish). " + STATUSES_NOTE + " A post goes In "
            "review or Approved only through POST /functions/v1/api-v2-posts-review/{id} "
            "(Approved also back from Scheduled, keeping its approval)."
        },
    )
    last_error = Text(MAX_ERROR, multiline=True, allow_none=True)
    repeat = Repeat()


class SearchWords(fields.String):
    """`q`: words that must each occur in the content as a whole word, in any
    case; the last, of 3 letters or more, may also begin a longer word
    (store/search.py). Only letters and digits make a word: OR, NOT, -word
    and quotes are plain text, never a query language. The words come in the
    order typed, each once, the last typed last."""

    MAX_WORDS = 20

    MAX_LENGTH = 200

    def __init__(self, **kwargs):
        super().__init__(
            metadata={
                "description": "Words that must each occur in content as a whole word, in any "
                "case; the last word, of 3 letters or more, also matches as the start of a "
                "word ('webin' finds 'webinar'). Operators and quotes are plain text.",
                "maxLength": self.MAX_LENGTH,
            },
            **kwargs,
        )

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if len(text) > self.MAX_LENGTH:
            raise ValidationError(f"Longer than {self.MAX_LENGTH} characters.")
        words = [w.lower() for w in re.findall(r"[^\W_]+", text)]
        if not words:
            raise ValidationError("Give at least one word of letters or digits.")
        if len(words) > self.MAX_WORDS:
            raise ValidationError(f"At most {self.MAX_WORDS} words.")
        last = words[-1]
        return [w for w in dict.fromkeys(words) if w != last] + [last]


class PostListQuerySchema(PageQuerySchema):
    status = fields.String(
        validate=validate.OneOf(POST_STATUSES), metadata={"description": STATUSES_NOTE}
    )
    type = fields.String(validate=validate.OneOf(POST_TYPES))
    brand_id = Text(100, metadata={"description": "One brand's posts (a brand channel's id)."})
    channel_id = Text(100, metadata={"description": "One channel's posts (a channel's id)."})
    scheduled_before = Timestamp(metadata={"description": "scheduled_at < this"})
    scheduled_after = Timestamp(metadata={"description": "scheduled_at >= this"})
    due = fields.Boolean(
        load_default=False,
        metadata={"description": "true: Scheduled posts whose scheduled_at has come"},
    )
    series_id = fields.UUID(metadata={"description": "The occurrences of one recurring post."})
    q = SearchWords()
    order = fields.String(
        load_default="-created_at",
        validate=validate.OneOf(["-created_at", "scheduled_at", "-impressions", "-engagement"]),
        metadata={
            "description": "-created_at: newest first; scheduled_at: soonest first; "
            "-impressions, -engagement: by the latest stats, highest first, posts without "
            "them last (then newest first)"
        },
    )

    @validates_schema
    def cursor_needs_newest_first(self, data, **kwargs):
        if data.get("cursor") and data.get("order") != "-created_at":
            raise ValidationError("A cursor pages the newest-first order only.", "cursor")


class PostPageSchema(PageSchema):
    data = fields.List(fields.Nested(PostSchema), required=True)
    total_is_estimate = fields.Boolean(
        required=True,
        metadata={
            "description": "true when `total` is an estimate: a search (`q`) that matches more "
            "than 10,000 posts is not counted to the end. Paging by `next` is exact either way."
        },
    )


class ClaimSchema(Schema):
    """POST /api-v2-posts-claim: every field optional."""

    limit = fields.Integer(
        strict=True,
        load_default=10,
        validate=validate.Range(min=1, max=50),
        metadata={"description": "At most this many posts (1-50, default 10)."},
    )
    lease_seconds = fields.Integer(
        strict=True,
        load_default=600,
        validate=validate.Range(min=1, max=86400),
        metadata={
            "description": "Seconds the automation has to report back (1-86400, default 600)."
        },
    )
    type = fields.String(
        validate=validate.OneOf(POST_TYPES),
        metadata={"description": "Only personal or only brand posts."},
    )


class CallbackSchema(Schema):
    """What the automation platform posts after publishing."""

    class Meta:
        # the first comment's outcome is one or the other (apidoc adds it)
        openapi = {"not": {"required": ["first_comment_urn", "first_comment_error"]}}

    post_id = fields.UUID(required=True)
    linkedin_post_id = fields.String(
        required=True,
        validate=[
            validate.Length(max=200),
            FullMatch(URN, error="Must be a LinkedIn URN such as urn:li:share:123."),
        ],
    )
    live_url = HttpUrl(
        load_default=None,
        metadata={
            "description": "The post's public URL. Omitted: "
            "https://www.linkedin.com/feed/update/<linkedin_post_id>/."
        },
    )
    first_comment_urn = fields.String(
        validate=[
            validate.Length(max=200),
            FullMatch(
                URN, error="Must be a LinkedIn URN such as urn:li:comment:(urn:li:share:1,2)."
            ),
        ],
        metadata={"description": "The first comment, once posted (the Comments API's commentUrn)."},
    )
    first_comment_error = Text(
        MAX_COMMENT_ERROR,
        multiline=True,
        metadata={
            "description": "Why the first comment could not be posted: the post stays "
            "Published, and shows this (a comment_failed history entry)."
        },
    )

    @validates_schema
    def one_comment_outcome(self, data, **kwargs):
        if "first_comment_urn" in data and "first_comment_error" in data:
            raise ValidationError(
                "Give first_comment_urn or first_comment_error, not both.", "first_comment_error"
            )


class QueueSchema(Schema):
    """POST /api-v2-posts-queue."""

    post_id = fields.UUID(required=True)


post_schema = PostSchema()
queue_schema = QueueSchema()
posts_page_schema = PostPageSchema()
post_update_schema = PostUpdateSchema()
post_list_query_schema = PostListQuerySchema()
callback_schema = CallbackSchema()
claim_schema = ClaimSchema()


class HistoryEntrySchema(Schema):
    """One change of a post: no values, no key; only what and by whom."""

    at = Timestamp(required=True)
    action = fields.String(
        required=True,
        metadata={
            "description": "created, updated, scheduled, unscheduled, queued, claimed, pushed, "
            "given_back, reported_failed, lease_expired, refused, publish_failed, published, "
            "commented, comment_failed, occurrence_created or recycled; with approvals, "
            "submitted, approved, changes_requested and returned_to_draft."
        },
    )
    status_from = fields.String(required=True, allow_none=True)
    status_to = fields.String(required=True, allow_none=True)
    fields_ = fields.List(
        fields.String(),
        required=True,
        data_key="fields",
        attribute="fields",
        metadata={"description": "The record fields the change set (not updated_at, version)."},
    )
    key_prefix = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The key that made the change (svc_live_ and 4 characters); null: the "
            "service, or a member signed in as a person (`member` says who)."
        },
    )
    member = fields.Nested(
        AuthorSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The member who made the change (with a key or a session); null: "
            "the service."
        },
    )
    handoff_id = fields.String(required=True, allow_none=True)
    detail = fields.String(required=True, allow_none=True)


class HistorySchema(Schema):
    data = fields.List(
        fields.Nested(HistoryEntrySchema), required=True, metadata={"description": "Oldest first."}
    )


history_schema = HistorySchema()
