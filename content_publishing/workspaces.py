"""A workspace's settings (docs/api.md, "The workspace"), changed by its
owners and admins: `approvals`, "off" (every post may be scheduled as it
is) or "required" (a post is approved before it is scheduled:
posts/reviews.py).

Each setting may say what a change of it does besides being written
(`AFTER`): turning approvals off takes every post under review back to
Draft, so that a workspace without approvals never shows their statuses.
A new setting is a field of schemas/workspace.py, a column of
store/workspaces.py's SETTINGS and, if it needs one, an entry of AFTER.
"""

from content_publishing.posts.moves import REVIEW_STATUSES
from content_publishing.posts.writes import write
from content_publishing.store import posts as post_store
from content_publishing.store import workspaces as workspace_store


def change(workspace_id, workspace, changes, lead_seconds, now, actor=None):
    """The workspace (read with lock_workspace, its If-Match checked) with
    `changes` written, and what each one does; unchanged when nothing
    differs."""
    changes = {k: v for k, v in changes.items() if workspace.get(k) != v}
    if not changes:
        return workspace
    changed = workspace_store.update_workspace(workspace_id, changes, now)
    for name in changes:
        if name in AFTER:
            AFTER[name](workspace_id, changed, lead_seconds, now, actor)
    return changed


def _approvals_changed(workspace_id, workspace, lead_seconds, now, actor):
    """Approvals turned off: every In review and Approved post becomes a
    Draft again (its approval gone), each with its history entry."""
    if workspace["approvals"] != "off":
        return
    for post_id in workspace_store.posts_in_review(workspace_id):
        post = post_store.lock_post(workspace_id, post_id)
        if post is None or post["status"] not in REVIEW_STATUSES:
            continue
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
