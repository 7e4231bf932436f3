"""The post lifecycle: which status moves exist and what each one needs.

    Draft -> Scheduled            posts:publish, and a scheduled_at far enough ahead
    Scheduled -> Draft            unschedule (posts:publish)
    Scheduled -> Failed           a last_error (posts:publish)
    Scheduled -> Publishing       only by a claim: the post is handed to one automation
    Publishing -> Published       the publish callback
    Publishing -> Failed          the automation reports a failed attempt (posts:publish)
    Publishing -> Scheduled       the automation gives the post back untried (posts:publish)
    Publishing -> Failed          by itself, when the handoff's lease runs out
    Failed -> Draft | Scheduled   retry (posts:publish)
    Scheduled | Failed -> Published   the publish callback

While the workspace requires approvals (approvals.py), a post passes a
review before it is scheduled: Draft -> In review -> Approved -> Scheduled
(409 approval_required otherwise), and a change of what was reviewed ends
the approval (In review | Approved -> Draft). Scheduled -> Approved
unschedules a post, its approval kept.

A post may repeat (planning/recurrence.py): when an occurrence first
becomes Published or Failed, the next one is created with it. Scheduling
into a channel that is set up keeps to its guards (planning/plan.py).

A Published post is final. While a post is Publishing it is in the
automation's hands: nothing else about it can change. A handoff whose lease
ran out is never handed out again by itself: the post may be live already,
so handing it to a second automation is exactly how duplicates happen.

Personal and brand posts follow the same rules: scheduled_at is when the
automation platform should publish; a brand post also names the company
page in brand_id.

Views load, lock and check If-Match, then call a function of this
package:

    moves.py        the rules of a PATCH, the callback and a DELETE
    writes.py       every change written with its event and history entry
    attachments.py  what a post carries besides its text (media by reference, alt text, a
                    document's title, a first comment), and what one post may carry
    handoffs.py     claims, pushes and leases that run out, and a pushed delivery's outcome
    own_handoffs.py the service's own publisher's handoffs: taken, sending, and its outcome
    imports.py      bulk import from CSV or JSON, all or nothing
    recycle.py      a Published post's copy put back in its channel's queue
    approvals.py    the rules of approvals: when one is needed, who may review, what ends one
    reviews.py      the review's moves (submit, approve, request changes) and comments
    history.py      what a post's history records, and which action each change is
    publish_plan.py a post's publish plan (linkedin_request), built by linkedin/plan.py
    preview.py      the preview of a post's plan, with its warnings
"""

from content_publishing.posts import own_handoffs
from content_publishing.posts.handoffs import (
    EXPIRED_ERRORS,
    Handoff,
    acknowledge_all,
    claim,
    current,
    leases_ran_out,
    note_delivery_error,
    push_due,
    settle,
    settle_all,
)
from content_publishing.posts.moves import PUBLISH_SCOPE
from content_publishing.posts.recycle import recycle
from content_publishing.posts.writes import (
    add_to_queue,
    create,
    delete,
    insert,
    kept_for_preview,
    publish,
    update,
)

__all__ = [
    "EXPIRED_ERRORS",
    "PUBLISH_SCOPE",
    "Handoff",
    "acknowledge_all",
    "add_to_queue",
    "claim",
    "create",
    "current",
    "delete",
    "insert",
    "kept_for_preview",
    "leases_ran_out",
    "note_delivery_error",
    "own_handoffs",
    "publish",
    "push_due",
    "recycle",
    "settle",
    "settle_all",
    "update",
]
