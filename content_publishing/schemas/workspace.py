"""The workspace's settings: the record, and the change body."""

from marshmallow import Schema, fields

from content_publishing.schemas.common import HttpUrl, Text, Timestamp

NAME_MAX = 100


class WorkspaceSettingsSchema(Schema):
    id = fields.Integer(dump_only=True)
    name = Text(NAME_MAX, dump_only=True)
    chat_webhook_url = fields.String(
        dump_only=True,
        allow_none=True,
        metadata={
            "description": "A Slack-compatible incoming webhook (Slack, Mattermost, "
            "Rocket.Chat, Discord's /slack endpoint) that hears of every notification event; "
            "null: none."
        },
    )
    created_at = Timestamp(dump_only=True)


class WorkspaceSettingsUpdateSchema(Schema):
    name = Text(NAME_MAX, metadata={"description": "The workspace's name, shown in the header."})
    chat_webhook_url = HttpUrl(
        allow_none=True,
        metadata={
            "description": 'Posted {"text": ...} for every notification event; checked by '
            "the SSRF guard when saved and at every message. null: none."
        },
    )


workspace_schema = WorkspaceSettingsSchema()
workspace_update_schema = WorkspaceSettingsUpdateSchema()
