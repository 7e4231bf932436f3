"""The rules of approvals, in one place (docs/api.md, "Approvals"): when a
post needs one, who may make each review's move, and what ends one.

While a workspace requires approvals (workspaces/settings.py), a post is
reviewed before it may be scheduled:

    Draft -> In review       submit: its author, or an editor or higher
    In review -> Approved    approve: an editor or higher, never its author nor a member
                             who changed what is reviewed since its last approval
    In review -> Draft       request_changes, with a comment: an editor or higher
    Approved -> Scheduled    as any schedule (PATCH, the queue); only an approved post
    In review | Approved -> Draft   any change of what was reviewed

A post written for a colleague's profile needs that colleague's yes
(the owner's approval): a post on a personal channel whose member is not
the post's author is reviewed the same way, in any workspace, approvals
on or off, and only the channel's member approves it (an editor cannot
approve it for them; they, or an editor, may ask for changes). Their
approval is the one that holds, also where the workspace requires
approvals. A member may keep their channel to themselves
(`others_may_post: false`): nobody else writes posts for it (403). Nothing
is scheduled on the channel of a member who left the workspace (409).

The moves themselves, with their comments and notifications, are
reviews.py's; a PATCH's other rules are moves.py's.
"""

from content_publishing.errors import (
    approval_required,
    conflict,
    forbidden,
    owner_approval_required,
)
from content_publishing.roles import Grant
from content_publishing.store import channels as channel_store
from content_publishing.store import history as history_store
from content_publishing.store.workspaces import approvals_required

REVIEW_PATH = "/functions/v1/api-v2-posts-review/{id}"
REVIEW_STATUSES = ("In review", "Approved")  # only while the workspace requires approvals
# What a review approves: a change of any of them ends the approval.
REVIEWED = frozenset(
    {
        "channel_id",
        "type",
        "brand_id",
        "content",
        "media_urls",
        "media_alt",
        "document_title",
        "first_comment",
    }
)
APPROVAL = ("approved_by", "approved_at")
MOVES = {  # action: (the status it starts from, the status it makes, its history action)
    "submit": (("Draft",), "In review", "submitted"),
    "approve": (("In review",), "Approved", "approved"),
    "request_changes": (("In review", "Approved"), "Draft", "changes_requested"),
}


def required(workspace_id, channel_id=None):
    """Whether the posts of `channel_id` are approved before they are
    scheduled: its own rule (a company page that always needs one, a
    profile that never does), else the workspace's."""
    return approvals_required(workspace_id, channel_id)


def member_of(workspace_id, channel_id):
    """The member whose profile the channel is ({id, name, removed_at}, and
    the channel's `channel_id` and `others_may_post`), or None: a brand
    channel, or one not set up."""
    channel = channel_store.get_channel(workspace_id, channel_id)
    if channel is None or channel["member"] is None:
        return None
    return {
        **channel["member"],
        "channel_id": channel["id"],
        "others_may_post": channel["others_may_post"],
    }


def owner_of(workspace_id, post):
    """The member whose approval `post` needs, its channel being their
    profile and its author someone else; or None."""
    member = member_of(workspace_id, post["channel_id"])
    if member is None or member["id"] == post.get("created_by"):
        return None
    return member


def needed(workspace_id, post):
    """Whether `post` is reviewed before it is scheduled: the workspace
    requires approvals, or it needs its profile's member's yes."""
    return required(workspace_id, post["channel_id"]) or owner_of(workspace_id, post) is not None


def check_may_post(workspace_id, channel_id, member_id):
    """403 forbidden when the channel's member keeps it to themselves
    (others_may_post: false) and `member_id` is someone else."""
    member = member_of(workspace_id, channel_id)
    if member is None or member["others_may_post"] or member["id"] == member_id:
        return
    raise forbidden(
        f"Channel {channel_id} is {member['name']}'s LinkedIn profile, and {member['name']} "
        "keeps it to themselves (others_may_post: false): only they write posts for it.",
        {"channel_id": channel_id, "others_may_post": False, "member_id": member["id"]},
    )


def check_review(workspace_id, grant, post, action, owner=None):
    """Who may make a review's move: its author or an editor or higher
    submits; an editor or higher approves or asks for changes, and never
    approves their own post, nor one whose reviewed fields they changed
    since it was last approved (`changers`: four eyes). A post that needs
    `owner`'s approval (owner_of) is approved by `owner` alone, whatever
    their role and whatever they changed (their yes is to go out under
    their own name); they or an editor ask for changes."""
    if not isinstance(grant, Grant):
        return
    if action == "submit":
        if grant.member_id != post.get("created_by"):
            grant.require_role("editor", "submit another member's post for review")
        return
    if owner is not None and grant.member_id == owner["id"]:
        return
    if owner is not None and action == "approve":
        raise forbidden(
            f"This post goes out on {owner['name']}'s LinkedIn profile: only {owner['name']} "
            "approves it; an editor cannot approve it for them.",
            {"role": grant.role, "member_id": owner["id"], "channel_id": owner["channel_id"]},
        )
    grant.require_role("editor", "approve posts or ask for changes")
    if action == "approve" and grant.member_id == post.get("created_by"):
        raise forbidden(
            "A member may not approve their own post: another editor, admin or owner approves it.",
            {"role": grant.role, "author": post.get("created_by")},
        )
    if action == "approve":
        changed = changers(workspace_id, post["id"]).get(grant.member_id)
        if changed:
            raise forbidden(
                "A member who changed what is reviewed may not approve it: another editor, "
                "admin or owner approves it (four eyes).",
                {"role": grant.role, "changed": sorted(changed)},
            )


def changers(workspace_id, post_id):
    """{member_id: the reviewed fields they changed} of every member who
    changed the post's content, media, first comment or channel (REVIEWED)
    since it was last approved, or ever if it never was. Read from the
    post's history, which every change of a post writes in its own
    transaction (posts/writes.py), so that the set cannot drift from what
    happened; a request for changes does not wash an edit out, since the
    edited text may still be what is approved."""
    found = {}
    for member_id, fields in history_store.changers_since_approval(workspace_id, post_id):
        reviewed = REVIEWED.intersection(fields)
        if reviewed:
            found.setdefault(member_id, set()).update(reviewed)
    return found


def unapproved(workspace_id, post, changes):
    """A change of what was reviewed ends the approval, and takes a post
    under review back to Draft (a Scheduled one too, when the workspace
    requires approvals: its new text was never approved). A move to Draft
    ends it as well: a Draft holds no approval."""
    edited = bool(changes.keys() & REVIEWED)
    if not edited and changes.get("status") != "Draft":
        return changes
    changes = {**changes, **{k: None for k in APPROVAL if post.get(k) is not None}}
    if not edited:
        return changes
    status = changes.get("status", post["status"])
    if status in REVIEW_STATUSES or (
        status == "Scheduled"
        and "status" not in changes
        and needed(workspace_id, {**post, **changes})
    ):
        changes["status"] = "Draft"
    return changes


def check_approved(workspace_id, post, status="Scheduled"):
    """409 approval_required: the workspace requires approvals and `post`
    (merged with its changes) has none that holds, so it may not become
    `status` (Scheduled, or Approved again after it was unscheduled); 409
    owner_approval_required: it needs its profile's member's approval and
    has not theirs (a post with no approval at all, where the workspace
    requires them, is approval_required, as before: the way on is the same
    review); 409 conflict: its channel's member left."""
    check_member_stays(workspace_id, post["channel_id"])
    owner = owner_of(workspace_id, post)
    required_here = required(workspace_id, post["channel_id"])
    if status == "Approved" and not required_here and owner is None:
        raise conflict(
            "Posts of this channel need no approval: unschedule the post to Draft.",
            {"approvals": "off"},
        )
    if required_here and not post.get("approved_by"):
        who = owner["name"] if owner is not None else "an editor"
        raise approval_required(
            "This post needs an approval before it is scheduled: submit it for review, and "
            f"{who} approves it (it can be scheduled or queued the moment it is approved).",
            {"status": post["status"], "review": REVIEW_PATH},
        )
    if owner is not None and post.get("approved_by") != owner["id"]:
        raise owner_approval_required(
            f"This post goes out on {owner['name']}'s LinkedIn profile, so {owner['name']} "
            f"approves it before it is scheduled: submit it for review, and {owner['name']} "
            "approves it under Needs review.",
            {
                "status": post["status"],
                "channel_id": owner["channel_id"],
                "member_id": owner["id"],
                "review": REVIEW_PATH,
            },
        )


def check_member_stays(workspace_id, channel_id):
    """409 conflict when the channel is the profile of a member who left
    the workspace: nothing goes out in their name."""
    member = member_of(workspace_id, channel_id)
    if member is not None and member["removed_at"] is not None:
        raise conflict(
            f"Channel {channel_id} is the LinkedIn profile of {member['name']}, who left the "
            "workspace: nothing is scheduled in their name.",
            {
                "channel_id": channel_id,
                "member_id": member["id"],
                "removed_at": member["removed_at"],
            },
        )
