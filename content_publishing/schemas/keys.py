"""What a key's owner may read of it: GET /functions/v1/me."""

from marshmallow import Schema, fields

from content_publishing.schemas.common import Timestamp


class KeySchema(Schema):
    id = fields.Integer(dump_only=True, metadata={"description": "The id `keys list` shows."})
    prefix = fields.String(
        dump_only=True,
        metadata={"description": "`svc_live_` and the key's first four characters: never the key."},
    )
    scopes = fields.List(fields.String(), dump_only=True)
    expires_at = Timestamp(dump_only=True, allow_none=True)
    created_at = Timestamp(dump_only=True)


class MeSchema(Schema):
    user = fields.String(dump_only=True, metadata={"description": "The key's owner."})
    key = fields.Nested(KeySchema, dump_only=True)


me_schema = MeSchema()
