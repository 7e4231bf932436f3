"""Accounts: signing in, links, sessions, the account and its second
factor (docs/accounts.md)."""

from marshmallow import Schema, fields, validate

from content_publishing.schemas.common import Text, Timestamp
from content_publishing.schemas.members import EMAIL_MAX, NAME_MAX, named_domain

TOKEN = {"validate": validate.Length(min=1, max=200)}
SCOPES = (  # as roles.SCOPES
    "posts:read",
    "posts:write",
    "posts:publish",
    "articles:read",
    "articles:write",
    "webhooks:manage",
    "members:manage",
)
PASSWORD_MIN, PASSWORD_MAX = 10, 256  # as accounts/passwords.py, which also refuses common ones


def email(**kwargs):
    kwargs.setdefault(
        "metadata", {"description": "The account's address; compared whatever its case."}
    )
    return fields.Email(validate=[validate.Length(max=EMAIL_MAX), named_domain], **kwargs)


def password_field(new=False, **kwargs):
    kwargs.setdefault(
        "metadata",
        {
            "description": f"At least {PASSWORD_MIN} characters, and not one of the "
            "1,000 most common passwords."
            if new
            else "The account's password."
        },
    )
    return fields.String(
        validate=validate.Length(min=PASSWORD_MIN if new else 1, max=PASSWORD_MAX),
        load_only=True,
        **kwargs,
    )


class SignInSchema(Schema):
    email = email(required=True)
    password = password_field(required=True)
    code = fields.String(
        validate=validate.Length(min=1, max=40),
        metadata={"description": "The second factor: a 6-digit TOTP code or a recovery code."},
    )
    workspace_id = fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=2**63 - 1),
        metadata={"description": "The workspace to sign in to; the oldest membership if none."},
    )


class LinkRequestSchema(Schema):
    email = email(required=True)


class LinkUseSchema(Schema):
    token = fields.String(required=True, load_only=True, **TOKEN)
    password = password_field(new=True, metadata={"description": "A new password to set."})
    email = email(metadata={"description": "The first owner's link: the address to sign in with."})
    code = fields.String(
        validate=validate.Length(min=1, max=40),
        metadata={"description": "The second factor, when the account has one in force."},
    )


class AccountSchema(Schema):
    id = fields.Integer(dump_only=True)
    email = fields.String(dump_only=True)
    name = fields.String(dump_only=True)
    has_password = fields.Boolean(dump_only=True)
    second_factor = fields.Boolean(
        dump_only=True, metadata={"description": "Whether TOTP is in force for the account."}
    )


class AccountUpdateSchema(Schema):
    name = Text(NAME_MAX, bidi_ok=False, metadata={"description": "The name shown to people."})
    password = password_field(new=True)
    current_password = password_field(
        metadata={"description": "Needed to change the password when the account has one."}
    )


class MembershipSchema(Schema):
    workspace_id = fields.Integer(dump_only=True)
    workspace_name = fields.String(dump_only=True)
    member_id = fields.Integer(dump_only=True)
    role = fields.String(dump_only=True)


class SessionSchema(Schema):
    id = fields.Integer(dump_only=True)
    device = fields.String(dump_only=True, allow_none=True)
    address = fields.String(dump_only=True, allow_none=True)
    workspace_name = fields.String(dump_only=True)
    created_at = Timestamp(dump_only=True)
    last_seen_at = Timestamp(dump_only=True)
    expires_at = Timestamp(dump_only=True)
    current = fields.Boolean(dump_only=True, metadata={"description": "This request's session."})


class SessionsSchema(Schema):
    data = fields.List(fields.Nested(SessionSchema), dump_only=True)


class SignedInSchema(Schema):
    account = fields.Nested(AccountSchema, dump_only=True)
    workspace = fields.Nested(MembershipSchema, dump_only=True)
    csrf_token = fields.String(
        dump_only=True,
        metadata={"description": "Send it as X-CSRF-Token with every change by this session."},
    )
    session = fields.Nested(SessionSchema, dump_only=True)


class LinkSentSchema(Schema):
    mail = fields.Boolean(
        dump_only=True,
        metadata={
            "description": "Whether this service mails links at all (FLASK_SMTP_URL). It says "
            "nothing of the address: the answer is the same whether it is anyone's."
        },
    )
    message = fields.String(dump_only=True)


class SwitchSchema(Schema):
    workspace_id = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=1, max=2**63 - 1)
    )


class SecondFactorSchema(Schema):
    action = fields.String(
        required=True,
        validate=validate.OneOf(["begin", "confirm", "off"]),
        metadata={"description": "begin: a new secret; confirm: its first code; off: remove."},
    )
    code = fields.String(validate=validate.Length(min=1, max=40))
    current_password = password_field()


class SecondFactorAnswerSchema(Schema):
    second_factor = fields.Boolean(dump_only=True)
    secret = fields.String(dump_only=True, metadata={"description": "begin: shown once."})
    otpauth_uri = fields.String(dump_only=True, metadata={"description": "begin: shown once."})
    qr_svg = fields.String(
        dump_only=True, metadata={"description": "begin: the URI as an SVG QR code, shown once."}
    )
    recovery_codes = fields.List(
        fields.String(), dump_only=True, metadata={"description": "confirm: shown once."}
    )


sign_in_schema = SignInSchema()
link_request_schema = LinkRequestSchema()
link_use_schema = LinkUseSchema()
account_schema = AccountSchema()
account_update_schema = AccountUpdateSchema()
session_schema = SessionSchema()
sessions_schema = SessionsSchema()
signed_in_schema = SignedInSchema()
link_sent_schema = LinkSentSchema()
switch_schema = SwitchSchema()
second_factor_schema = SecondFactorSchema()
second_factor_answer_schema = SecondFactorAnswerSchema()


class OwnKeySchema(Schema):
    """One of the caller's own keys (the keys page); `key` only when made."""

    id = fields.Integer(dump_only=True)
    prefix = fields.String(dump_only=True)
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)),
        required=True,
        validate=validate.Length(min=1, max=len(SCOPES)),
        metadata={"description": "At most what the caller's role (and key) allows."},
    )
    expires_at = Timestamp(allow_none=True, load_default=None)
    revoked_at = Timestamp(dump_only=True, allow_none=True)
    last_used_at = Timestamp(dump_only=True, allow_none=True)
    created_at = Timestamp(dump_only=True)
    key = fields.String(dump_only=True, metadata={"description": "The key, shown only when made."})


class OwnKeysSchema(Schema):
    data = fields.List(fields.Nested(OwnKeySchema), dump_only=True)


class StrictBoolean(fields.Boolean):
    """true or false, and nothing else (not 0, 1 or "true")."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class RequireSchema(Schema):
    required = StrictBoolean(
        required=True,
        metadata={"description": "Require a second factor: true or false, nothing else."},
    )


own_key_schema = OwnKeySchema()
own_keys_schema = OwnKeysSchema()
require_schema = RequireSchema()
