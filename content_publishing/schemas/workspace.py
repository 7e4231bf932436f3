"""The workspace's record and its settings' update body. A new setting is a
field of both (and a column of store/workspaces.py's SETTINGS)."""

from marshmallow import Schema, fields, validate

from content_publishing.schemas.channels import check_timezone
from content_publishing.schemas.common import HttpUrl, Text, Timestamp
from content_publishing.schemas.members import EVENTS

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


def name_field(**kwargs):
    return Text(
        100,
        metadata={
            "description": "What the workspace is called: in every mail's subject and the "
            "dashboard's header; no two workspaces share one."
        },
        **kwargs,
    )


def workspace_zone_field(**kwargs):
    return fields.String(
        validate=check_timezone,
        allow_none=True,
        metadata={
            "description": "The time zone the dashboard shows times in by default (an IANA "
            "name); null: each browser's own.",
            "example": "Europe/Berlin",
        },
        **kwargs,
    )


def chat_events_field(**kwargs):
    return fields.List(
        fields.String(validate=validate.OneOf(EVENTS)),
        allow_none=True,
        metadata={
            "description": "The events the chat webhook hears of; null: every one.",
        },
        **kwargs,
    )


class WorkspaceSettingsSchema(Schema):
    """The workspace as its settings route shows it."""

    id = fields.Integer(dump_only=True)
    name = name_field(dump_only=True)
    approvals = approvals_field(dump_only=True)
    chat_webhook_url = chat_webhook_field(dump_only=True)
    chat_events = chat_events_field(dump_only=True)
    timezone = workspace_zone_field(dump_only=True)
    created_at = Timestamp(dump_only=True)
    updated_at = Timestamp(dump_only=True, allow_none=True)
    version = fields.Integer(dump_only=True)


class WorkspaceUpdateSchema(Schema):
    """PATCH body: each setting optional."""

    name = name_field()
    approvals = approvals_field()
    chat_webhook_url = chat_webhook_field()
    chat_events = chat_events_field()
    timezone = workspace_zone_field()


class ChatTestSchema(Schema):
    """The answer of a test message: queued for the dispatcher."""

    queued = fields.Boolean(required=True)


workspace_schema = WorkspaceSettingsSchema()
chat_test_schema = ChatTestSchema()
workspace_update_schema = WorkspaceUpdateSchema()
