"""A workspace's members: the record, the invitation and change bodies, and
taking up an invitation."""

from marshmallow import Schema, ValidationError, fields, pre_dump, validate

from content_publishing.schemas.common import Text, Timestamp

ROLES = ("owner", "admin", "editor", "contributor", "viewer")  # as roles.ROLES
NAME_MAX = 100
EMAIL_MAX = 254
EVENTS = (  # as notifications.EVENTS
    "review.requested",
    "post.approved",
    "post.changes_requested",
    "comment.mentioned",
    "post.failed",
    "post.first_comment_failed",
    "channel.disconnected",
)


def notify_field(**kwargs):
    return fields.List(
        fields.String(validate=validate.OneOf(EVENTS)),
        validate=validate.Length(max=len(EVENTS) * 2),
        metadata={
            "description": "The notification events the member wants by email: any of "
            + ", ".join(EVENTS)
            + ". Every one by default (and null sets that again); [] for none. The "
            "workspace's chat hears of every event whatever members choose."
        },
        **kwargs,
    )


def named_domain(value):
    """An address at a domain name: an address literal (a@[127.0.0.1]) names
    a host by its address, which the mail of a member should never go to."""
    if value is not None and value.rpartition("@")[2].startswith("["):
        raise ValidationError(
            "Give an address at a domain name, not at an address literal such as [127.0.0.1]."
        )


def email_field(**kwargs):
    return fields.Email(
        allow_none=True,
        validate=[validate.Length(max=EMAIL_MAX), named_domain],
        metadata={
            "description": "Where notifications go; null: none. At a domain name, not an "
            "address literal."
        },
        **kwargs,
    )


def check_email(value):
    """ValidationError unless `value` is an email a member may have (the CLI's
    --email, as the API takes it)."""
    email_field().deserialize(value)


class MemberSchema(Schema):
    id = fields.Integer(dump_only=True)
    name = Text(
        NAME_MAX,
        required=True,
        bidi_ok=False,
        metadata={
            "description": "Unique in the workspace; shown on posts, in history and in "
            "notifications. No bidirectional formatting characters (U+202E and the like)."
        },
    )
    email = email_field(load_default=None)
    role = fields.String(
        required=True,
        validate=validate.OneOf(ROLES),
        metadata={"description": "What the member's keys may do, within their scopes."},
    )
    notify = notify_field(dump_only=True)
    created_at = Timestamp(dump_only=True)
    removed_at = Timestamp(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "When the member was removed (every key revoked); null: a member."
        },
    )

    @pre_dump
    def _wanted(self, member, **kwargs):
        return self.finish_render(dict(member))

    def finish_render(self, shown):
        """A member's notify is kept as None while they want every event."""
        if "notify" in shown and shown["notify"] is None:
            shown["notify"] = list(EVENTS)
        return shown


class InvitedMemberSchema(MemberSchema):
    invite_url = fields.String(
        dump_only=True,
        metadata={
            "description": "The dashboard's page that takes up the invitation, shown only here: "
            "its token works once, for 7 days, and makes the member's first key."
        },
    )
    invite_expires_at = Timestamp(dump_only=True)


class MemberBriefSchema(Schema):
    """A member as a key's holder sees themself (GET /me) or an invitation names them."""

    id = fields.Integer(dump_only=True)
    name = fields.String(dump_only=True)
    email = fields.String(dump_only=True, allow_none=True)
    role = fields.String(dump_only=True, validate=validate.OneOf(ROLES))


class MemberUpdateSchema(Schema):
    role = fields.String(validate=validate.OneOf(ROLES))
    email = email_field()
    notify = notify_field(allow_none=True)


class MembersSchema(Schema):
    data = fields.List(fields.Nested(MemberSchema), dump_only=True)


class InviteAcceptSchema(Schema):
    token = fields.String(required=True, validate=validate.Length(min=1, max=200))
    password = fields.String(
        load_only=True,
        validate=validate.Length(min=10, max=256),
        metadata={
            "description": "Make the member's account with this password (at least 10 "
            "characters, not one of the 1,000 most common), for the invitation's email; or, "
            "when an account has that email, its password. Without it a signed-in session's "
            "account takes the member up (send X-CSRF-Token), and otherwise only the key is made."
        },
    )


class InviteSchema(Schema):
    """What an invitation shows before it is taken up (GET /invites/{token})."""

    workspace = fields.Dict(dump_only=True, metadata={"description": "{id, name}"})
    member = fields.Nested(MemberBriefSchema, dump_only=True)
    invited_by = fields.String(
        dump_only=True, allow_none=True, metadata={"description": "null: the operator."}
    )
    expires_at = Timestamp(dump_only=True)
    has_account = fields.Boolean(
        dump_only=True,
        metadata={
            "description": "Whether the invitation's email has an account (sign in, then accept)."
        },
    )


class AcceptedSchema(Schema):
    workspace = fields.Dict(dump_only=True, metadata={"description": "{id, name}"})
    member = fields.Nested(MemberBriefSchema, dump_only=True)
    key_id = fields.Integer(dump_only=True)
    key = fields.String(
        dump_only=True, metadata={"description": "The member's first key, shown only here."}
    )
    scopes = fields.List(fields.String(), dump_only=True)
    csrf_token = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={"description": "With a session (the cookie set): its CSRF token; else null."},
    )


member_schema = MemberSchema()
invited_member_schema = InvitedMemberSchema()
member_update_schema = MemberUpdateSchema()
members_schema = MembersSchema()
invite_accept_schema = InviteAcceptSchema()
accepted_schema = AcceptedSchema()
invite_schema = InviteSchema()
