"""What a key's holder may read of it: GET /functions/v1/me."""

from marshmallow import Schema, fields

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
    key = fields.Nested(KeySchema, dump_only=True)


me_schema = MeSchema()
