"""The workspace's record and its settings' update body. A new setting is a
field of both (and a column of store/workspaces.py's SETTINGS)."""

from marshmallow import Schema, fields, validate

from content_publishing.schemas.common import HttpUrl, Timestamp

APPROVALS = ("off", "required")


def approvals_field(**kwargs):
    return fields.String(
        validate=validate.OneOf(APPROVALS),
        metadata={
            "description": "off (the default): posts are scheduled as they are. required: a post "
            "is submitted for review and approved by an editor or higher (never its author) "
            "before it may be scheduled. Turning it off takes every In review and Approved post "
            "back to Draft."
        },
        **kwargs,
    )


def chat_webhook_field(**kwargs):
    return HttpUrl(
        allow_none=True,
        metadata={
            "description": "A Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat, "
            'Discord\'s /slack endpoint), posted {"text": ...} for every notification event; '
            "checked by the SSRF guard when saved and at every message. null: none."
        },
        **kwargs,
    )


class WorkspaceSettingsSchema(Schema):
    """The workspace as its settings route shows it."""

    id = fields.Integer(dump_only=True)
    name = fields.String(dump_only=True)
    approvals = approvals_field(dump_only=True)
    chat_webhook_url = chat_webhook_field(dump_only=True)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True, allow_none=True)
    version = fields.Integer(dump_only=True)


class WorkspaceUpdateSchema(Schema):
    """PATCH body: each setting optional."""

    approvals = approvals_field()
    chat_webhook_url = chat_webhook_field()


workspace_schema = WorkspaceSettingsSchema()
workspace_update_schema = WorkspaceUpdateSchema()
