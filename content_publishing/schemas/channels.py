"""Channel record, create and update bodies, and the upcoming-slots query.

A channel is where posts go: a member's personal LinkedIn profile (the
first one's id is `personal`, each later one's a UUID) or a brand page (id =
the brand_id its posts carry). It carries the page's time zone, its weekly
posting slots (wall times in that zone) and guards.
"""

import re
import zoneinfo

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from content_publishing.schemas.common import (
    PageQuerySchema,
    PageSchema,
    QueryInteger,
    Text,
    Timestamp,
)

CHANNEL_TYPES = ("personal", "brand")
PUBLISHERS = ("automation", "linkedin")
CONNECTION_STATUSES = ("none", "connected", "expiring", "expired", "broken", "revoked")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MAX_SLOTS = 100
PERSONAL = "personal"
AUTHOR_URN = {
    "personal": re.compile(r"urn:li:person:[A-Za-z0-9_-]{1,100}"),
    "brand": re.compile(r"urn:li:organization:[0-9]{1,20}"),
}
# Every IANA name that zoneinfo (with the tzdata package) knows, read once.
TIMEZONES = frozenset(zoneinfo.available_timezones())


def check_timezone(name):
    if name not in TIMEZONES:
        raise ValidationError(f"{name!r} is not an IANA time zone such as Europe/Berlin.")


class SlotSchema(Schema):
    day = fields.String(required=True, validate=validate.OneOf(DAYS))
    time = fields.String(
        required=True,
        validate=validate.Regexp(
            r"^([01][0-9]|2[0-3]):[0-5][0-9]$", error="Not HH:MM (00:00-23:59)."
        ),
        metadata={"description": "A wall time in the channel's zone, HH:MM.", "example": "09:30"},
    )


def distinct_slots(slots):
    seen = {(s["day"], s["time"]) for s in slots}
    if len(seen) != len(slots):
        raise ValidationError("A slot is given twice.")


def slots_field(**kwargs):
    return fields.List(
        fields.Nested(SlotSchema),
        validate=[validate.Length(max=MAX_SLOTS), distinct_slots],
        metadata={"description": f"At most {MAX_SLOTS} weekly posting times."},
        **kwargs,
    )


def author_urn_field(**kwargs):
    return fields.String(
        allow_none=True,
        validate=validate.Length(max=140),
        metadata={
            "description": "Who posts: urn:li:person:<id> for the personal channel, "
            "urn:li:organization:<id> for a brand page; null when not known yet."
        },
        **kwargs,
    )


def timezone_field(**kwargs):
    return fields.String(
        validate=check_timezone,
        metadata={"description": "An IANA time zone name.", "example": "Europe/Berlin"},
        **kwargs,
    )


def min_gap_field(**kwargs):
    return fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=1440),
        metadata={"description": "No two planned posts of the channel closer than this."},
        **kwargs,
    )


def daily_cap_field(**kwargs):
    return fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(min=1, max=100),
        metadata={"description": "At most this many planned posts in one local day; null: none."},
        **kwargs,
    )


def recycle_after_days_field(**kwargs):
    return fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(min=1, max=365),
        metadata={
            "description": "A recycled copy of a post (POST /api-v2-posts-recycle/{id}) may go "
            "out this many days after the original at the soonest; null: no wait."
        },
        **kwargs,
    )


UTM_MAX = 500
# name=value: a name of unreserved characters; a value of unreserved
# characters, `+`, percent escapes and the placeholders. Nothing that could
# end a link as linkedin.py reads one, or be taken for the sentence's
# punctuation after it.
_UTM_PAIR = re.compile(
    r"(?P<name>[A-Za-z0-9._~-]+)=(?P<value>(?:[A-Za-z0-9._~+-]|%[0-9A-Fa-f]{2}"
    r"|\{channel\}|\{post_id\})+)"
)


def check_utm(text):
    """A query string of name=value pairs joined by `&`, each name once."""
    if len(text) > UTM_MAX:
        raise ValidationError(f"Longer than {UTM_MAX} characters.")
    if text.startswith("?"):
        raise ValidationError("Give the query without its leading '?'.")
    names = []
    for part in text.split("&"):
        found = _UTM_PAIR.fullmatch(part)
        if not found:
            raise ValidationError(
                f"{part[:60]!r} is not name=value: letters, digits, . _ ~ - in names; those, "
                "+ and %XX escapes in values, where {channel} and {post_id} stand for the "
                "channel's and the post's ids."
            )
        if found["value"].endswith("."):
            raise ValidationError(
                f"The value of {found['name']} ends with '.', which would read as the end of "
                "the sentence rather than of the link."
            )
        names.append(found["name"])
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValidationError(f"{twice[0]} is given twice.")


def utm_field(**kwargs):
    return fields.String(
        allow_none=True,
        validate=check_utm,
        metadata={
            "description": "UTM tags: a query string of at most 500 characters, such as "
            "utm_source=linkedin&utm_medium=social&utm_campaign={channel}, added to each "
            "http(s) link of a post's text (and first comment) when it is handed over, never "
            "to the stored text; {channel} is the channel's id and {post_id} the post's. A "
            "link that already has a parameter of the same name keeps its own. null: none.",
            "maxLength": UTM_MAX,
            "example": "utm_source=linkedin&utm_medium=social&utm_campaign={channel}",
        },
        **kwargs,
    )


def publisher_field(**kwargs):
    return fields.String(
        validate=validate.OneOf(PUBLISHERS),
        metadata={
            "description": "Who publishes the channel's due posts: `automation` (claims and "
            "post.due pushes, as always) or `linkedin` (the service itself, with the channel's "
            "LinkedIn connection; a 409 unless it is connected or expiring)."
        },
        **kwargs,
    )


class LinkedInPageSchema(Schema):
    urn = fields.String(required=True, metadata={"example": "urn:li:organization:1"})
    name = fields.String(required=True, allow_none=True)


class ConnectionSchema(Schema):
    """What the channel record shows of its LinkedIn connection: never a token."""

    status = fields.String(
        required=True,
        validate=validate.OneOf(CONNECTION_STATUSES),
        metadata={
            "description": "none (never connected), connected, expiring (ends within 7 days "
            "and cannot be refreshed: reconnect), expired (reconnect), revoked (disconnected)."
        },
    )
    member_name = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Who signed in (personal channels; LinkedIn gives brand "
            "sign-ins no name)."
        },
    )
    expires_at = Timestamp(
        required=True,
        allow_none=True,
        metadata={"description": "Until when the connection works without signing in again."},
    )
    organizations = fields.List(
        fields.Nested(LinkedInPageSchema),
        required=True,
        metadata={
            "description": "The pages the member administers (brand channels): the channel's "
            "author_urn is one of them."
        },
    )


class ChannelMemberSchema(Schema):
    """The member whose LinkedIn profile a personal channel is."""

    id = fields.Integer(dump_only=True)
    name = fields.String(dump_only=True)
    removed_at = Timestamp(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "When they left the workspace: their channel stays, disconnected, "
            "and nothing is scheduled on it."
        },
    )


def others_may_post_field(**kwargs):
    return fields.Boolean(
        truthy={True},  # JSON's true and false only, never "no" or 0
        falsy={False},
        metadata={
            "description": "Personal channels: whether members other than its own may write "
            "posts for it (true by default; each such post still needs its member's approval "
            "before it is scheduled). Only the channel's member changes it; null for a brand "
            "channel."
        },
        **kwargs,
    )


def check_author(channel_type, urn):
    if (
        urn is not None
        and channel_type in AUTHOR_URN
        and not AUTHOR_URN[channel_type].fullmatch(urn)
    ):
        wanted = "urn:li:person:<id>" if channel_type == "personal" else "urn:li:organization:<id>"
        raise ValidationError(f"A {channel_type} channel's author is {wanted}.", "author_urn")


CHANNEL_APPROVALS = ("workspace", "required", "off")


def channel_approvals_field(**kwargs):
    return fields.String(
        validate=validate.OneOf(CHANNEL_APPROVALS),
        metadata={
            "description": "Whether its posts are approved before they are scheduled: "
            "workspace (the default: as the workspace's `approvals` says), required (always, "
            "e.g. a company page) or off (never, e.g. a member's own profile; a post written "
            "for a colleague's profile still needs their yes)."
        },
        **kwargs,
    )


class ChannelSchema(Schema):
    """The channel record; its writable fields (and brand_id) are the create body."""

    class Meta:
        description = (
            "Where posts go: a member's personal LinkedIn profile (at most one each; the "
            "first one's id is `personal`) or a brand page, whose id is the brand_id its posts "
            "carry."
        )

    id = fields.String(dump_only=True)
    type = fields.String(required=True, validate=validate.OneOf(CHANNEL_TYPES))
    kind = fields.String(
        dump_only=True,
        validate=validate.OneOf(CHANNEL_TYPES),
        metadata={"description": "personal or brand: the same as type."},
    )
    member_id = fields.Integer(
        strict=True,
        allow_none=True,
        load_default=None,
        metadata={
            "description": "Personal channels: the member whose LinkedIn profile it is; on "
            "create the caller's own unless an editor names another member. Null for a brand."
        },
    )
    member = fields.Nested(
        ChannelMemberSchema,
        dump_only=True,
        allow_none=True,
        metadata={"description": "That member, {id, name, removed_at}; null for a brand."},
    )
    others_may_post = others_may_post_field(load_default=None, allow_none=True)
    brand_id = Text(
        100,
        load_only=True,
        allow_none=True,
        load_default=None,
        metadata={"description": "Create only, for a brand channel: the brand_id its posts carry."},
    )
    name = Text(100, required=True)
    author_urn = author_urn_field(load_default=None)
    timezone = timezone_field(load_default="UTC")
    slots = slots_field(load_default=list)
    min_gap_minutes = min_gap_field(load_default=0)
    daily_cap = daily_cap_field(load_default=None)
    publisher = publisher_field(load_default="automation")
    recycle_after_days = recycle_after_days_field(load_default=None)
    utm = utm_field(load_default=None)
    approvals = channel_approvals_field(load_default="workspace")
    connection = fields.Nested(
        ConnectionSchema,
        dump_only=True,
        metadata={"description": "The channel's LinkedIn connection (read-only)."},
    )
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True)
    version = fields.Integer(dump_only=True)

    @validates_schema
    def channel_rules(self, data, **kwargs):
        if data.get("type") == "brand":
            if not data.get("brand_id"):
                raise ValidationError(
                    "Required for a brand channel: its posts' brand_id.", "brand_id"
                )
            if data["brand_id"] == PERSONAL:
                raise ValidationError("A brand channel cannot be called personal.", "brand_id")
        if data.get("type") == "personal" and data.get("brand_id") is not None:
            raise ValidationError("The personal channel takes no brand_id.", "brand_id")
        if data.get("type") == "brand":
            for name in ("member_id", "others_may_post"):
                if data.get(name) is not None:
                    raise ValidationError("A brand channel is no member's profile.", name)
        check_author(data.get("type"), data.get("author_urn"))


class ChannelUpdateSchema(Schema):
    """PATCH body: every field optional; type and id never change."""

    name = Text(100)
    author_urn = author_urn_field()
    timezone = timezone_field()
    slots = slots_field()
    min_gap_minutes = min_gap_field()
    daily_cap = daily_cap_field()
    publisher = publisher_field()
    recycle_after_days = recycle_after_days_field()
    utm = utm_field()
    others_may_post = others_may_post_field()
    approvals = channel_approvals_field()


class ChannelListQuerySchema(PageQuerySchema):
    """limit/offset; channels are listed oldest first (the personal one is
    usually made first)."""


class ChannelPageSchema(PageSchema):
    data = fields.List(fields.Nested(ChannelSchema), required=True)


class SlotsQuerySchema(Schema):
    days = QueryInteger(
        load_default=14,
        validate=validate.Range(min=1, max=90),
        metadata={"description": "How many days ahead (1-90, default 14)."},
    )


class UpcomingSlotSchema(Schema):
    at = fields.String(required=True, metadata={"description": "The slot's instant, in UTC."})
    local = fields.String(
        required=True,
        metadata={"description": "The same instant in the channel's zone, with offset."},
    )
    post_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The Scheduled, Publishing or Published post at that instant."},
    )


class UpcomingSlotsSchema(Schema):
    data = fields.List(fields.Nested(UpcomingSlotSchema), required=True)


channel_schema = ChannelSchema()
channel_update_schema = ChannelUpdateSchema()
channels_page_schema = ChannelPageSchema()
channel_list_query_schema = ChannelListQuerySchema()
slots_query_schema = SlotsQuerySchema()
upcoming_slots_schema = UpcomingSlotsSchema()


class ConnectStartSchema(Schema):
    authorize_url = fields.String(
        required=True,
        metadata={
            "description": "Where to send the person's browser: LinkedIn's consent page, with a "
            "state that works once, for 10 minutes."
        },
    )


connect_start_schema = ConnectStartSchema()
