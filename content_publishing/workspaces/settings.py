"""A workspace's settings (docs/api.md, "The workspace"), changed by its
owners and admins: its `name` (unique: 409 when another has it), the
`timezone` the dashboard shows by default, the chat webhook and the
`chat_events` it hears of, and `approvals`, "off" (every post may be scheduled as it
is) or "required" (a post is approved before it is scheduled:
posts/approvals.py).

Each setting may say what a change of it does besides being written
(`AFTER`): turning approvals off takes every post under review back to
Draft, so that a workspace without approvals never shows their statuses.
A new setting is a field of schemas/workspace.py, a column of
store/workspaces.py's SETTINGS and, if it needs one, an entry of AFTER.
"""

from content_publishing.errors import conflict
from content_publishing.posts.approvals import REVIEW_STATUSES, owner_of, required
from content_publishing.posts.writes import write
from content_publishing.store import posts as post_store
from content_publishing.store import workspaces as workspace_store
from content_publishing.store.db import is_unique_violation, savepoint


def change(workspace_id, workspace, changes, lead_seconds, now, actor=None):
    """The workspace (read with lock_workspace, its If-Match checked) with
    `changes` written, and what each one does; unchanged when nothing
    differs."""
    changes = {k: v for k, v in changes.items() if workspace.get(k) != v}
    if not changes:
        return workspace
    try:
        with savepoint():
            changed = workspace_store.update_workspace(workspace_id, changes, now)
    except Exception as error:  # another workspace has that name
        if not is_unique_violation(error):
            raise
        raise conflict(
            f"Another workspace is called {changes['name']!r}: choose another name.",
            {"name": changes.get("name")},
        ) from None
    for name in changes:
        if name in AFTER:
            AFTER[name](workspace_id, changed, lead_seconds, now, actor)
    return changed


def _approvals_changed(workspace_id, workspace, lead_seconds, now, actor):
    """Approvals turned off: every In review and Approved post becomes a
    Draft again (its approval gone), each with its history entry; but for
    one written for a colleague's profile, whose review goes on
    (posts/approvals.py: owner_of)."""
    if workspace["approvals"] != "off":
        return
    for post_id in workspace_store.posts_in_review(workspace_id):
        post = post_store.lock_post(workspace_id, post_id)
        if post is None or post["status"] not in REVIEW_STATUSES:
            continue
        if owner_of(workspace_id, post) is not None or required(workspace_id, post["channel_id"]):
            continue  # a colleague's yes, or a channel that requires approvals itself
        columns = {"status": "Draft", "approved_by": None, "approved_at": None}
        write(
            workspace_id,
            post,
            {k: v for k, v in columns.items() if post.get(k) != v},
            lead_seconds,
            now,
            actor,
            action="returned_to_draft",
            detail="approvals were turned off",
        )


AFTER = {"approvals": _approvals_changed}
