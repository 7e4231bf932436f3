"""The workspace's settings.

GET    /functions/v1/workspace    the caller's workspace: its name and chat webhook
PATCH  /functions/v1/workspace    change its name or chat webhook (owners and admins)

The chat webhook's URL is checked by the SSRF guard here, before the
transaction (it may wait for DNS), as a webhook endpoint's is, and again
whenever a message goes to it (notifier.py).
"""

from flask import Blueprint, current_app, g

from content_publishing import members
from content_publishing.auth import require_scope
from content_publishing.http.apidoc import doc
from content_publishing.schemas.common import render
from content_publishing.schemas.workspace import workspace_schema, workspace_update_schema
from content_publishing.store import members as member_store
from content_publishing.store.db import transaction
from content_publishing.webhooks import rules as webhook_rules

bp = Blueprint("workspace", __name__)


@bp.get("/workspace")
@doc(
    "Read the workspace's settings",
    response=workspace_schema,
    description="Every member reads them.",
)
@require_scope("posts:read")
def get_workspace():
    return render(workspace_schema, member_store.get_workspace(g.workspace_id))


@bp.patch("/workspace")
@doc(
    "Change the workspace's settings",
    body=workspace_update_schema,
    response=workspace_schema,
    errors=[409],
    description="Owners and admins (members:manage). `chat_webhook_url` must pass the SSRF "
    "guard (400 naming it otherwise), as a webhook endpoint's URL does; null removes it. A "
    "name another workspace has is a 409.",
)
@require_scope("members:manage")
def update_workspace(body):
    webhook_rules.check_destination(
        body.get("chat_webhook_url"), webhook_rules.guard(current_app.config), "chat_webhook_url"
    )
    with transaction():
        member_store.lock_workspace(g.workspace_id)
        workspace = member_store.get_workspace(g.workspace_id)
        workspace = members.change_workspace(g.workspace_id, workspace, body)
    return render(workspace_schema, workspace)
