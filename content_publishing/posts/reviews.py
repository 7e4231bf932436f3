"""The review's moves and comments (docs/api.md, "Approvals and comments"):
submit, approve and request changes, as approvals.py's rules allow them.

An approval approves the version it was given for: the view checks
If-Match, and the write is conditional on that version in SQL, so an edit
racing an approve either lands first (and the approve finds a Draft, or a
stale version) or after (and takes the post back to Draft).

A post is submitted with an intent, or keeps the one it was imported with
(`scheduled_at`, or `queue`): the moment it is approved it is scheduled
for that time, or queued in its channel's next free slot, in the same
transaction, as a PATCH or an add to the queue would (their rules: the
lead time, the guards, posts:publish). An approve may give its own intent
(approve and schedule, approve and queue), which must then succeed or
nothing is written; the intent a post was submitted with is tried, and
where it cannot be kept (its time has passed, its slot is taken) the
approval holds and the post waits Approved, saying why (`not_planned`).
A request for changes keeps the intent, for when the post is submitted
again.

A comment belongs to its post and its member; `@<member name>` mentions a
member still in the workspace. Each review's move and each comment that
names members notifies whom it concerns (notifications/rules.py: review.requested,
post.approved, post.changes_requested, comment.mentioned), in the same
transaction (notifications.notify works out who they are); a comment's
`mentions` are the members it names.
"""

import re
from dataclasses import dataclass

from content_publishing import notifications, timestamps
from content_publishing.errors import ApiError, conflict, validation_error
from content_publishing.posts import approvals
from content_publishing.posts.approvals import APPROVAL, MOVES, check_review
from content_publishing.posts.writes import add_to_queue, update, write
from content_publishing.roles import check_post_write
from content_publishing.store import comments as comment_store
from content_publishing.store import workspaces as workspace_store
from content_publishing.store.db import savepoint

WRONG_STATUS = {  # why a move does not apply to a post, in words for people
    "submit": "Only a draft is submitted for review; this post is {status}.",
    "approve": "Only a post in review is approved; this post is {status}.",
    "request_changes": "Changes are asked for a post in review or approved; this post is {status}.",
}
EVENTS = {  # action: the notification it sends
    "submit": "review.requested",
    "approve": "post.approved",
    "request_changes": "post.changes_requested",
}


@dataclass
class Reviewed:
    """A review's outcome: the post as it now is, and the comment a request
    for changes made."""

    post: dict
    comment: dict | None = None
    not_planned: str | None = None  # why an approved post was not scheduled as it was submitted


@dataclass(frozen=True)
class Intent:
    """What a post does once approved: scheduled at `scheduled_at` (stored
    text), or queued (`queue`); neither: it waits Approved."""

    scheduled_at: str | None = None
    queue: bool = False

    def __bool__(self):
        return bool(self.scheduled_at or self.queue)

    def columns(self):
        return {"intended_at": self.scheduled_at, "queue_on_approval": self.queue}


def stored_intent(post):
    return Intent(post.get("intended_at"), bool(post.get("queue_on_approval")))


def review(workspace_id, post, action, comment, grant, lead_seconds, now, actor=None, intent=None):
    """Make the review's move `action` on `post` (read with lock_post, its
    If-Match checked): 409 when approvals are off (and the post needs no
    colleague's approval) or the post is not where the action starts; 403
    for a member who may not. `intent` (an Intent): what a submitted post
    is to do once approved, or what an approve does at once."""
    owner = approvals.owner_of(workspace_id, post)
    if owner is None and not approvals.required(workspace_id, post["channel_id"]):
        raise conflict(
            "Posts of this channel need no approval: schedule or queue the post as it is.",
            {"approvals": "off"},
        )
    starts, status, history_action = MOVES[action]
    check_review(workspace_id, grant, post, action, owner)
    if action == "submit":
        check_post_write(grant, post, "submit this post")
    if post["status"] not in starts:
        raise conflict(
            WRONG_STATUS[action].format(status=post["status"]),
            {"status": post["status"], "action": action},
        )
    if action == "request_changes" and not comment:
        raise validation_error({"comment": ["Required to ask for changes: say what to change."]})
    if intent and action == "request_changes":
        raise validation_error(
            {"queue": ["A post sent back for changes is not scheduled: leave out its time."]}
        )
    if intent and action == "submit":
        _check_time(intent, lead_seconds, now)
    member = getattr(grant, "member_id", None)
    columns = {"status": status}
    if action == "submit" and intent:
        columns.update(intent.columns())
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
    said = comment if action == "request_changes" else None
    asked = [owner["id"]] if owner is not None and action == "submit" else []
    told = notifications.notify(
        workspace_id,
        EVENTS[action],
        now,
        post=changed,
        actor=member,
        comment=said,
        mentioned=asked,  # the colleague whose yes it waits for hears of it, whatever their role
    )
    made = None
    if comment:  # a member told of the review already is not mailed twice for its comment
        made = add_comment(workspace_id, changed, member, comment, now, told=told)
    not_planned = None
    if action == "approve":
        changed, not_planned = _planned(
            workspace_id, changed, intent, grant, lead_seconds, now, actor
        )
    return Reviewed(changed, made, not_planned)


def _check_time(intent, lead_seconds, now):
    if intent.scheduled_at and intent.scheduled_at < timestamps.later(now, lead_seconds):
        raise validation_error(
            {"scheduled_at": [f"Must be at least {lead_seconds} seconds in the future."]}
        )


def _planned(workspace_id, post, intent, grant, lead_seconds, now, actor):
    """(the approved post, scheduled or queued as `intent` (given with the
    approve) or its stored intent says; why it was not, or None). A given
    intent that cannot be kept refuses the approve with it; a stored one
    leaves the post Approved."""
    given = bool(intent)
    intent = intent if given else stored_intent(post)
    if not intent:
        return post, None

    def plan():
        if intent.queue:
            return add_to_queue(workspace_id, post, lead_seconds, now, actor)
        _check_time(intent, lead_seconds, now)
        changes = {"status": "Scheduled", "scheduled_at": intent.scheduled_at}
        return update(workspace_id, post, changes, grant, lead_seconds, now, actor)

    if given:
        return plan(), None
    try:
        with savepoint():
            return plan(), None
    except ApiError as error:
        return post, f"Approved, but not scheduled as it was submitted: {error.message}"


def add_comment(workspace_id, post, member_id, body, now, told=()):
    """Write a comment by `member_id` on `post`; its record, whose
    `mentions` are the ids of the members it names as @<name> (besides its
    writer), for the notifications (`told`: members who heard of the
    review this comment goes with; the chat heard of it too)."""
    mentions = [m for m in mentioned(workspace_id, body) if m != member_id]
    made = comment_store.add(workspace_id, post["id"], member_id, body, mentions, now)
    if [m for m in mentions if m not in told]:
        notifications.notify(
            workspace_id,
            "comment.mentioned",
            now,
            post=post,
            actor=member_id,
            mentioned=mentions,
            comment=body,
            told=told,
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
