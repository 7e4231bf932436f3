"""What a key's holder may read of it: GET /functions/v1/me."""

from marshmallow import Schema, fields

from content_publishing.schemas.accounts import AccountSchema, MembershipSchema  # noqa: F401
from content_publishing.schemas.common import Timestamp
from content_publishing.schemas.members import MemberBriefSchema


class KeySchema(Schema):
    id = fields.Integer(dump_only=True, metadata={"description": "The id `keys list` shows."})
    prefix = fields.String(
        dump_only=True,
        metadata={"description": "`svc_live_` and the key's first four characters: never the key."},
    )
    scopes = fields.List(fields.String(), dump_only=True)
    expires_at = Timestamp(dump_only=True, allow_none=True)
    created_at = Timestamp(dump_only=True)


class WorkspaceSchema(Schema):
    id = fields.Integer(dump_only=True)
    name = fields.String(dump_only=True)
    created_at = Timestamp(dump_only=True)


class MeSchema(Schema):
    user = fields.String(
        dump_only=True,
        metadata={"description": "The key's workspace's name (as before workspaces: its owner)."},
    )
    workspace = fields.Nested(WorkspaceSchema, dump_only=True)
    member = fields.Nested(
        MemberBriefSchema,
        dump_only=True,
        metadata={"description": "The member the key belongs to; `role` bounds its scopes."},
    )
    key = fields.Nested(
        KeySchema,
        dump_only=True,
        allow_none=True,
        metadata={"description": "The calling key; null for a session."},
    )
    account = fields.Nested(
        "AccountSchema",
        dump_only=True,
        allow_none=True,
        metadata={"description": "The person's account (a session's; a key's member's, if any)."},
    )
    session = fields.Nested(
        "MeSessionSchema",
        dump_only=True,
        allow_none=True,
        metadata={"description": "The calling session and its CSRF token; null for a key."},
    )
    workspaces = fields.List(
        fields.Nested("MembershipSchema"),
        dump_only=True,
        metadata={"description": "The account's workspaces, to switch between (PATCH /session)."},
    )


class MeSessionSchema(Schema):
    id = fields.Integer(dump_only=True)
    csrf_token = fields.String(
        dump_only=True, metadata={"description": "Send it as X-CSRF-Token with every change."}
    )
    created_at = Timestamp(dump_only=True)
    expires_at = Timestamp(dump_only=True)


me_schema = MeSchema()
