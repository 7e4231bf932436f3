"""The post lifecycle's rules: which status moves exist, who may make them,
and what a PATCH, the callback or a DELETE may do to a post. They plan a
change (the columns it writes) and refuse what breaks a rule; writes.py
writes it.
"""

import uuid

from marshmallow import ValidationError

from content_publishing import timestamps
from content_publishing.channels import placement
from content_publishing.errors import conflict, validation_error
from content_publishing.planning.plan import channel_of, check_guards
from content_publishing.posts import approvals, attachments
from content_publishing.posts.approvals import REVIEW_PATH, REVIEW_STATUSES
from content_publishing.roles import check_post_write, missing
from content_publishing.schemas.posts import check_brand

MOVES = {
    "Draft": ("Scheduled",),
    "In review": ("Draft",),
    "Approved": ("Draft", "Scheduled"),
    "Scheduled": ("Draft", "Failed", "Approved"),
    "Publishing": ("Failed", "Scheduled"),
    "Failed": ("Draft", "Scheduled"),
    "Published": (),
}
DELETABLE = ("Draft", "Scheduled", "Failed")  # and a post under review (REVIEW_STATUSES)
PUBLISH_SCOPE = "posts:publish"
CALLBACK_PATH = "/functions/v1/make-post-callback"
CLAIM_PATH = "/functions/v1/api-v2-posts-claim"
HANDOFF_CLEARED = {
    "handoff_id": None,
    "handoff_expires_at": None,
    "handoff_acknowledged": 1,
    "handoff_error": None,
}


def plan_update(workspace_id, post, changes, scopes, lead_seconds, now):
    """The column changes a PATCH makes to `post`, after every rule.

    `scopes` are the caller's; `now` is stored text. Raises 409 for a refused
    move, 403 for a publishing operation without posts:publish, and 400 when
    the merged record would be invalid.
    """
    check_post_write(scopes, post)
    old = post["status"]
    new = changes.get("status", old)
    _check_move(workspace_id, post, old, new)
    member_id = getattr(scopes, "member_id", None)
    changes = _normalised(workspace_id, post, changes, old, new, member_id)
    if "channel_id" in changes:
        approvals.check_may_post(workspace_id, changes["channel_id"], member_id)
    if old == "Publishing":
        return _plan_report(post, changes, scopes)
    changes = approvals.unapproved(workspace_id, post, changes)
    if "repeat" in changes:
        changes = _plan_repeat(post, changes)
    _check_merged(workspace_id, post, changes, scopes, lead_seconds, now)
    return changes


def _check_move(workspace_id, post, old, new):
    """Refuse a status move that no PATCH may make."""
    if old == "Published":
        raise conflict("A published post cannot be changed.", {"status": old})
    if new == "Published":
        raise conflict(
            f"A post becomes Published only through POST {CALLBACK_PATH}.",
            {"status": old, "callback": CALLBACK_PATH},
        )
    if new == "Publishing" and old != new:
        raise conflict(
            f"A post becomes Publishing only when an automation claims it: POST {CLAIM_PATH}.",
            {"status": old, "claim": CLAIM_PATH},
        )
    if old == "Publishing" and post.get("handoff_holder") == "service":
        raise _in_the_services_hands(post)
    if new in REVIEW_STATUSES and new != old and (new == "In review" or old != "Scheduled"):
        raise conflict(
            f"A post becomes {new} only through POST {REVIEW_PATH}.",
            {"status": old, "review": REVIEW_PATH},
        )
    if old == "In review" and new == "Scheduled":
        approvals.check_approved(workspace_id, post)  # never approved yet: approval_required
    if new != old and new not in MOVES[old]:
        if old == "Publishing":
            raise _in_the_automations_hands(post)
        reviewed = approvals.needed(workspace_id, post)
        allowed = [s for s in MOVES[old] if s not in REVIEW_STATUSES or reviewed]
        raise conflict(
            f"A {old} post cannot move to {new}; allowed: {', '.join(allowed)}.",
            {"status": old, "allowed": allowed},
        )


def _normalised(workspace_id, post, changes, old, new, member_id=None):
    """The changes as they would be stored (the post's channel placed again
    when they move it: channels/placement.py), less those that change
    nothing."""
    changes = dict(changes)
    if changes.get("type") == "personal" and "brand_id" not in changes:
        changes["brand_id"] = None
    changes = placement.replace(workspace_id, post, changes, member_id)
    if old == "Failed" and new != old and "last_error" not in changes:
        changes["last_error"] = None
    changes = attachments.resolved(workspace_id, post, changes)  # as stored, to compare
    return {k: v for k, v in changes.items() if post.get(k) != v}


def _check_merged(workspace_id, post, changes, scopes, lead_seconds, now):
    """Refuse changes whose merged record breaks a rule: the scope a
    schedule needs, the brand, the media, the lead time and the guards."""
    old = post["status"]
    merged = {**post, **changes}
    new = merged["status"]
    rescheduled = old == new == "Scheduled" and "scheduled_at" in changes
    moved = old == new == "Scheduled" and "channel_id" in changes
    withdrawn = new == "Draft" and old in REVIEW_STATUSES  # not a publishing move
    if (new != old or rescheduled) and not withdrawn and PUBLISH_SCOPE not in scopes:
        raise missing(scopes, PUBLISH_SCOPE)
    if new in ("Scheduled", "Approved") and new != old:
        approvals.check_approved(workspace_id, {**merged, "status": old}, new)
    try:
        check_brand(merged)
    except ValidationError as e:
        raise validation_error(e.normalized_messages()) from None
    if changes.keys() & {"media_urls", "media_alt"}:
        attachments.check(merged)
    if new == "Scheduled" and changes:  # no change writes what LinkedIn would refuse
        attachments.check_schedulable(workspace_id, merged)
    if new == "Scheduled" and (new != old or rescheduled):
        _check_schedule(merged["scheduled_at"], lead_seconds, now)
    if new == "Scheduled" and (new != old or rescheduled or moved):
        check_guards(workspace_id, post["id"], channel_of(merged), merged["scheduled_at"])
    if new == "Failed" and not merged.get("last_error"):
        raise validation_error({"last_error": ["Required to mark a post Failed."]})


def _plan_repeat(post, changes):
    """`repeat` changes only while the post is a Draft or Scheduled; setting
    one on a post outside a series starts a series."""
    if post["status"] not in ("Draft", "Scheduled"):
        raise conflict(
            f"repeat can be set only while a post is a Draft or Scheduled; this one is "
            f"{post['status']}.",
            {"status": post["status"]},
        )
    if changes["repeat"] and not post["series_id"]:
        return {**changes, "series_id": str(uuid.uuid4()), "occurrence": 1}
    return changes


def _plan_report(post, changes, scopes):
    """A Publishing post takes only the automation's report: Failed with a
    last_error, or Scheduled to give it back untried. Both end the handoff."""
    if not changes:
        return {}
    new = changes.get("status")
    allowed = {"status", "last_error"} if new == "Failed" else {"status"}
    if new is None or changes.keys() - allowed:
        raise _in_the_automations_hands(post)
    if PUBLISH_SCOPE not in scopes:
        raise missing(scopes, PUBLISH_SCOPE)
    if new == "Failed" and not changes.get("last_error"):
        raise validation_error({"last_error": ["Required to mark a post Failed."]})
    return {**changes, **HANDOFF_CLEARED}


def _in_the_automations_hands(post):
    return conflict(
        "The post is in the automation's hands (Publishing): only a report can change it, "
        '{"status": "Failed", "last_error": "..."} or {"status": "Scheduled"} to give it back.',
        {"status": "Publishing", "handoff_id": post["handoff_id"]},
    )


def _in_the_services_hands(post):
    """A post the service is publishing itself: no report, from anyone, may
    end that handoff, since the service may be sending it right now."""
    return conflict(
        "The service is publishing this post to LinkedIn itself (Publishing): it cannot be "
        "changed or reported until LinkedIn's answer is known.",
        {"status": "Publishing", "handoff_id": post["handoff_id"], "publisher": "linkedin"},
    )


def _check_schedule(scheduled_at, lead_seconds, now):
    if scheduled_at is None:
        raise validation_error({"scheduled_at": ["Required to schedule a post."]})
    earliest = timestamps.later(now, lead_seconds)
    if scheduled_at < earliest:
        raise validation_error(
            {"scheduled_at": [f"Must be at least {lead_seconds} seconds in the future."]}
        )


def plan_publish(post, urn, live_url, comment, now, by_service=False):
    """The column changes of the publish callback, or {} for a retry that
    repeats what is stored (`by_service`: the service's own publisher, whose
    handoff no callback may end). `comment`: the first comment's outcome, if the
    callback reports one ({"first_comment_urn": ...} or
    {"first_comment_error": ...}). Raises 409 for a Draft or a different URN."""
    if post["status"] == "Published":
        if post["linkedin_post_id"] == urn and post["live_url"] == live_url:
            return _plan_comment(post, comment)
        raise conflict(
            "The post is already Published with another linkedin_post_id or live_url.",
            {"linkedin_post_id": post["linkedin_post_id"], "live_url": post["live_url"]},
        )
    if post["status"] in ("Draft", *REVIEW_STATUSES):
        raise conflict(
            f"A {post['status']} post cannot be published; schedule it first.",
            {"status": post["status"]},
        )
    if (
        post["status"] == "Publishing"
        and post.get("handoff_holder") == "service"
        and not by_service
    ):
        raise _in_the_services_hands(post)
    return {
        "status": "Published",
        "linkedin_post_id": urn,
        "live_url": live_url,
        "published_at": now,
        "last_error": None,
        **HANDOFF_CLEARED,
        **_plan_comment(post, comment),
    }


def _plan_comment(post, comment):
    """The first comment's outcome, reported with the publish callback or by
    the same callback again later: once posted (a URN) it stays; a failure
    may be followed by a URN (a later try of the comment worked). A failed
    comment never touches the post's status: the post is live."""
    urn, error = comment.get("first_comment_urn"), comment.get("first_comment_error")
    stored_urn, stored_error = post["first_comment_urn"], post["first_comment_error"]
    if (urn is None and error is None) or (urn is not None and urn == stored_urn):
        return {}
    if error is not None and error == stored_error:
        return {}
    if stored_urn is not None:
        raise conflict(
            "The first comment was reported posted already, as another URN."
            if urn
            else "The first comment was reported posted already; it cannot have failed since.",
            {"first_comment_urn": stored_urn},
        )
    if urn is not None:
        return {"first_comment_urn": urn, "first_comment_error": None}
    return {"first_comment_error": error}


def check_delete(post):
    """Draft, Scheduled and Failed posts may be deleted; a Publishing post is
    in the automation's hands and a Published one is on the network."""
    if post["status"] not in DELETABLE + REVIEW_STATUSES:
        raise conflict(
            f"A {post['status']} post cannot be deleted; only {', '.join(DELETABLE)} posts can.",
            {"status": post["status"]},
        )
