"""Post history: what happened to a post, when, and by whose key.

Every change of a post writes one entry in its own transaction
(posts.py, through `record` here): when, the action, the status before and
after, the names of the record fields the change set (never their values:
no content lands here), the key that did it (its prefix, when read) or none
for the service itself, and the handoff. Actions:

    created             a new post (a create, or an import row)
    updated             any other change of fields
    scheduled           a move into Scheduled, or a new scheduled_at while Scheduled
    unscheduled         a move to Draft
    queued              scheduled by "add to queue"
    claimed             handed over: by a claim (its key), or pushed by the dispatcher (none)
    pushed              the dispatcher's post.due delivery was acknowledged
    given_back          Publishing -> Scheduled, the automation's report
    reported_failed     a move to Failed made with a key
    lease_expired       a move to Failed the service made (a handoff ran out)
    refused             a move to Failed the service made: a due post too long for LinkedIn
    publish_failed      a move to Failed the service's own publisher made: LinkedIn refused
                        the post, its connection expired, or an unknown outcome was not
                        found on LinkedIn
    published           the publish callback
    commented           the first comment was posted (reported after the post's own callback)
    comment_failed      the first comment could not be posted (the post stays Published)
    occurrence_created  the next occurrence of a recurring post
    recycled            a queued copy of a Published post (its detail names the original)
    submitted           Draft -> In review: submitted for review (posts/reviews.py)
    approved            In review -> Approved
    changes_requested   In review or Approved -> Draft, with a comment
    returned_to_draft   In review or Approved -> Draft by a change of what was reviewed,
                        or because approvals were turned off

Read back, each entry names the member whose key made it (their name, kept
after they are removed).
"""

from content_publishing.store import history as history_store

# What a change may set that is not a field of the post's record.
INTERNAL = frozenset(
    {
        "handoff_acknowledged",
        "handoff_error",
        "series_continued",
        "comment_due_at",
        "comment_sending_at",
        "series_start",
        "version",
        "updated_at",
    }
)


def action_of(old_status, new_status, columns, key_id):
    """The action a change of `columns` from `old_status` to `new_status` is."""
    if new_status != old_status:
        if new_status == "Scheduled":
            return "given_back" if old_status == "Publishing" else "scheduled"
        if new_status == "Draft":
            return "returned_to_draft" if old_status in ("In review", "Approved") else "unscheduled"
        if new_status == "Failed":
            return "reported_failed" if key_id is not None else "lease_expired"
        if new_status == "Published":
            return "published"
        if new_status == "Publishing":
            return "claimed"
    if new_status == "Scheduled" and "scheduled_at" in columns:
        return "scheduled"
    return "updated"


def entry(
    workspace_id,
    post_id,
    action,
    old_status,
    new_status,
    columns,
    key_id,
    now,
    handoff_id=None,
    detail=None,
):
    return {
        "post_id": post_id,
        "workspace_id": workspace_id,
        "at": now,
        "action": action,
        "status_from": old_status,
        "status_to": new_status,
        "fields": sorted(set(columns) - INTERNAL),
        "key_id": getattr(key_id, "key_id", key_id),
        "member_id": getattr(key_id, "member_id", None),
        "handoff_id": handoff_id,
        "detail": detail,
    }


def record(entries):
    history_store.add(entries)


def change(workspace_id, before, after, columns, key_id, now, action=None, detail=None):
    """The entry of a change of one post, written."""
    record(
        [
            entry(
                workspace_id,
                after["id"],
                action or action_of(before["status"], after["status"], columns, key_id),
                before["status"],
                after["status"],
                columns,
                key_id,
                now,
                after["handoff_id"] or before.get("handoff_id"),
                detail,
            )
        ]
    )
