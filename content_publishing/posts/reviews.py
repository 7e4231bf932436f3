"""Approvals and comments (docs/api.md, "Approvals and comments").

While a workspace requires approvals (workspaces.py), a post is reviewed
before it may be scheduled:

    Draft -> In review       submit: its author, or an editor or higher
    In review -> Approved    approve: an editor or higher, never its author
    In review -> Draft       request_changes, with a comment: an editor or higher
    Approved -> Scheduled    as any schedule (PATCH, the queue); only an approved post
    In review | Approved -> Draft   any change of what was reviewed (posts/moves.py)

An approval approves the version it was given for: the view checks
If-Match, and the write is conditional on that version in SQL, so an edit
racing an approve either lands first (and the approve finds a Draft, or a
stale version) or after (and takes the post back to Draft).

A comment belongs to its post and its member; `@<member name>` mentions a
member still in the workspace. Each review's move and each comment that
names members notifies whom it concerns (notifications.py: review.requested,
post.approved, post.changes_requested, comment.mentioned), in the same
transaction (notifications.notify works out who they are); a comment's
`mentions` are the members it names.
"""

import re
from dataclasses import dataclass

from content_publishing import notifications
from content_publishing.errors import conflict, validation_error
from content_publishing.posts.moves import APPROVAL
from content_publishing.posts.writes import write
from content_publishing.roles import check_post_write, check_review
from content_publishing.store import comments as comment_store
from content_publishing.store import workspaces as workspace_store

EVENTS = {  # action: the notification it sends
    "submit": "review.requested",
    "approve": "post.approved",
    "request_changes": "post.changes_requested",
}
MOVES = {  # action: (the status it starts from, the status it makes, its history action)
    "submit": (("Draft",), "In review", "submitted"),
    "approve": (("In review",), "Approved", "approved"),
    "request_changes": (("In review", "Approved"), "Draft", "changes_requested"),
}


@dataclass
class Reviewed:
    """A review's outcome: the post as it now is, and the comment a request
    for changes made."""

    post: dict
    comment: dict | None = None


def review(workspace_id, post, action, comment, grant, lead_seconds, now, actor=None):
    """Make the review's move `action` on `post` (read with lock_post, its
    If-Match checked): 409 when approvals are off or the post is not where
    the action starts; 403 for a member who may not."""
    if not workspace_store.approvals_required(workspace_id):
        raise conflict(
            "Approvals are off in this workspace: PATCH /functions/v1/workspace "
            '{"approvals": "required"} to review posts before they are scheduled.',
            {"approvals": "off"},
        )
    starts, status, history_action = MOVES[action]
    check_review(grant, post, action)
    if action == "submit":
        check_post_write(grant, post, "submit this post")
    if post["status"] not in starts:
        raise conflict(
            f"Only a {' or '.join(starts)} post can be given {action}; this one is "
            f"{post['status']}.",
            {"status": post["status"], "action": action},
        )
    if action == "request_changes" and not comment:
        raise validation_error({"comment": ["Required to ask for changes: say what to change."]})
    member = getattr(grant, "member_id", None)
    columns = {"status": status}
    if action == "approve":
        columns.update(approved_by=member, approved_at=now, reviewed_by=member)
    elif action == "request_changes":
        columns.update({k: None for k in APPROVAL if post.get(k) is not None})
        columns["reviewed_by"] = member
    changed = write(
        workspace_id,
        post,
        columns,
        lead_seconds,
        now,
        actor,
        action=history_action,
        expected_version=post["version"],
    )
    made = None
    if comment:
        made = add_comment(workspace_id, changed, member, comment, now)
    said = comment if action == "request_changes" else None
    notifications.notify(
        workspace_id, EVENTS[action], now, post=changed, actor=member, comment=said
    )
    return Reviewed(changed, made)


def add_comment(workspace_id, post, member_id, body, now):
    """Write a comment by `member_id` on `post`; its record, whose
    `mentions` are the ids of the members it names as @<name> (besides its
    writer), for the notifications."""
    mentions = [m for m in mentioned(workspace_id, body) if m != member_id]
    made = comment_store.add(workspace_id, post["id"], member_id, body, mentions, now)
    if mentions:
        notifications.notify(
            workspace_id,
            "comment.mentioned",
            now,
            post=post,
            actor=member_id,
            mentioned=mentions,
            comment=body,
        )
    return made


def mentioned(workspace_id, body):
    """The ids of the workspace's members named in `body` as @<their name>,
    in any case, the name ending at a character that cannot continue it
    (so @ann does not mention anna); in the order of their membership."""
    text = body.casefold()
    found = []
    for member in workspace_store.active_members(workspace_id):
        name = re.escape("@" + member["name"].casefold())
        if re.search(name + r"(?![\w.-]*\w)", text):
            found.append(member["id"])
    return found
