"""The post lifecycle: which status moves exist and what each one needs.

    Draft -> Scheduled        needs posts:publish and a scheduled_at far enough ahead
    Scheduled -> Draft        unschedule (posts:publish)
    Scheduled -> Failed       needs a last_error (posts:publish)
    Failed -> Draft | Scheduled   retry (posts:publish)
    Scheduled | Failed -> Published   only through the publish callback

A Published post is final. Personal and brand posts follow the same rules:
scheduled_at is when the automation platform should publish; a brand post
also names the company page in brand_id.
"""

import uuid

from marshmallow import ValidationError

import timestamps
from errors import conflict, insufficient_scope, validation_error
from idempotency import create_once
from schemas.posts import check_brand
from store import posts as post_store
from store.idempotency import post_keys

MOVES = {
    "Draft": ("Scheduled",),
    "Scheduled": ("Draft", "Failed"),
    "Failed": ("Draft", "Scheduled"),
    "Published": (),
}
PUBLISH_SCOPE = "posts:publish"
CALLBACK_PATH = "/functions/v1/make-post-callback"


def create_post(user_id, fields, idempotency_key, now):
    """A new Draft, or the post an earlier request with the same
    Idempotency-Key made (inside the caller's transaction)."""
    return create_once(
        post_keys, user_id, idempotency_key, fields,
        insert=lambda: post_store.insert_post(user_id, str(uuid.uuid4()), fields, now),
        get=post_store.get_post,
        now=now,
    )


def plan_update(post, changes, scopes, lead_seconds, now):
    """The column changes a PATCH makes to `post`, after every rule.

    `scopes` are the caller's; `now` is stored text. Raises 409 for a refused
    move, 403 for a publishing operation without posts:publish, and 400 when
    the merged record would be invalid.
    """
    old = post["status"]
    new = changes.get("status", old)
    if old == "Published":
        raise conflict("A published post cannot be changed.", {"status": old})
    if new == "Published":
        raise conflict(
            f"A post becomes Published only through POST {CALLBACK_PATH}.",
            {"status": old, "callback": CALLBACK_PATH},
        )
    if new != old and new not in MOVES[old]:
        raise conflict(
            f"A {old} post cannot move to {new}; allowed: {', '.join(MOVES[old])}.",
            {"status": old, "allowed": list(MOVES[old])},
        )

    changes = dict(changes)
    if changes.get("type") == "personal" and "brand_id" not in changes:
        changes["brand_id"] = None
    if old == "Failed" and new != old and "last_error" not in changes:
        changes["last_error"] = None
    changes = {k: v for k, v in changes.items() if post.get(k) != v}
    merged = {**post, **changes}

    rescheduled = old == new == "Scheduled" and "scheduled_at" in changes
    if (new != old or rescheduled) and PUBLISH_SCOPE not in scopes:
        raise insufficient_scope(PUBLISH_SCOPE)
    try:
        check_brand(merged)
    except ValidationError as e:
        raise validation_error(e.normalized_messages())
    if new == "Scheduled" and (new != old or rescheduled):
        _check_schedule(merged["scheduled_at"], lead_seconds, now)
    if new == "Failed" and not merged.get("last_error"):
        raise validation_error({"last_error": ["Required to mark a post Failed."]})
    return changes


def _check_schedule(scheduled_at, lead_seconds, now):
    if scheduled_at is None:
        raise validation_error({"scheduled_at": ["Required to schedule a post."]})
    earliest = timestamps.later(now, lead_seconds)
    if scheduled_at < earliest:
        raise validation_error(
            {"scheduled_at": [f"Must be at least {lead_seconds} seconds in the future."]}
        )


def plan_publish(post, urn, live_url, now):
    """The column changes of the publish callback, or {} for a retry that
    repeats what is stored. Raises 409 for a Draft or a different URN."""
    if post["status"] == "Published":
        if post["linkedin_post_id"] == urn and post["live_url"] == live_url:
            return {}
        raise conflict(
            "The post is already Published with another linkedin_post_id or live_url.",
            {"linkedin_post_id": post["linkedin_post_id"], "live_url": post["live_url"]},
        )
    if post["status"] == "Draft":
        raise conflict(
            "A Draft post cannot be published; schedule it first.", {"status": post["status"]}
        )
    return {
        "status": "Published",
        "linkedin_post_id": urn,
        "live_url": live_url,
        "published_at": now,
        "last_error": None,
    }
