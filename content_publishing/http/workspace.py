"""The caller's workspace and its settings.

GET    /functions/v1/workspace   the workspace: its name and settings (approvals, the chat
                                 webhook of notifications) (posts:read)
PATCH  /functions/v1/workspace   change its settings (members:manage: owners and admins)
POST   /functions/v1/workspace-chat-test   send a test message to its chat (members:manage)

The settings and what a change of each does are the domain's
(workspaces/settings.py); a new setting needs nothing here.
"""

from flask import Blueprint, current_app, g

from content_publishing import notifications, timestamps
from content_publishing.auth import require_scope
from content_publishing.errors import conflict
from content_publishing.http.apidoc import doc
from content_publishing.http.common import check_if_match, lead_seconds, render, with_etag
from content_publishing.schemas.workspace import (
    chat_test_schema,
    workspace_schema,
    workspace_update_schema,
)
from content_publishing.store import workspaces as workspace_store
from content_publishing.store.db import transaction
from content_publishing.webhooks import rules as webhook_rules
from content_publishing.workspaces import settings as workspace_settings

bp = Blueprint("workspace", __name__)


@bp.get("/workspace")
@doc(
    "Get the workspace and its settings",
    response=workspace_schema,
    headers=["ETag"],
    description="Every member may read it: whether posts need an approval (`approvals`).",
)
@require_scope("posts:read")
def get_workspace():
    found = workspace_store.get_workspace(g.workspace_id)
    return with_etag(render(workspace_schema, found), found)


@bp.patch("/workspace")
@doc(
    "Change the workspace's settings",
    body=workspace_update_schema,
    response=workspace_schema,
    errors=[412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description='Owners and admins (members:manage). `approvals`: "required" makes every post '
    'pass a review before it may be scheduled; "off" (the default) takes every In review and '
    "Approved post back to Draft. `chat_webhook_url`: where every notification event is "
    "posted; the SSRF guard checks it (a 400 naming it), as it does a webhook endpoint's URL.",
)
@require_scope("members:manage")
def update_workspace(body):
    webhook_rules.check_destination(  # before the transaction: it may wait for DNS
        body.get("chat_webhook_url"), webhook_rules.guard(current_app.config), "chat_webhook_url"
    )
    with transaction():
        now = timestamps.now_text()
        found = workspace_store.lock_workspace(g.workspace_id)
        check_if_match(found)
        found = workspace_settings.change(g.workspace_id, found, body, lead_seconds(), now, g.actor)
    return with_etag(render(workspace_schema, found), found)


@bp.post("/workspace-chat-test")
@doc(
    "Send a test message to the workspace's chat",
    response=chat_test_schema,
    status=202,
    errors=[409],
    description="Owners and admins (members:manage). Queues a message to the chat webhook, "
    "sent by the dispatcher as every notification is; 409 when the workspace has none.",
)
@require_scope("members:manage")
def test_chat():
    with transaction():
        if not notifications.test_chat(g.workspace_id, g.member_id, timestamps.now_text()):
            raise conflict(
                "This workspace has no chat webhook: add its address first.",
                {"chat_webhook_url": None},
            )
    return {"queued": True}, 202
