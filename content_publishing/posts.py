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

Every change to a post is written here, together with the webhook event it
causes (webhooks/events.py), inside the caller's transaction: views load,
lock and check If-Match, then call one function of this module. Nothing else
writes a post, so no path can change one and forget its event.
"""

import uuid
from collections import namedtuple

from marshmallow import ValidationError

from content_publishing import linkedin, timestamps
from content_publishing.errors import conflict, insufficient_scope, validation_error
from content_publishing.idempotency import create_once
from content_publishing.planning import queue, recurrence
from content_publishing.planning.plan import channel_of, check_guards
from content_publishing.schemas.posts import check_brand
from content_publishing.store import posts as post_store
from content_publishing.store.idempotency import post_keys
from content_publishing.webhooks import events

MOVES = {
    "Draft": ("Scheduled",),
    "Scheduled": ("Draft", "Failed"),
    "Publishing": ("Failed", "Scheduled"),
    "Failed": ("Draft", "Scheduled"),
    "Published": (),
}
DELETABLE = ("Draft", "Scheduled", "Failed")
PUBLISH_SCOPE = "posts:publish"
CALLBACK_PATH = "/functions/v1/make-post-callback"
CLAIM_PATH = "/functions/v1/api-v2-posts-claim"
HANDOFF_CLEARED = {
    "handoff_id": None,
    "handoff_expires_at": None,
    "handoff_acknowledged": 1,
    "handoff_error": None,
}


def create(user_id, fields, idempotency_key, now):
    """A new Draft, or the post an earlier request with the same
    Idempotency-Key made (inside the caller's transaction)."""
    return create_once(
        post_keys,
        user_id,
        idempotency_key,
        fields,
        insert=lambda: insert(user_id, str(uuid.uuid4()), fields, now),
        get=post_store.get_post,
        now=now,
    )


def insert(user_id, post_id, fields, now):
    """Write a new post (a create, an import row, a series' next occurrence);
    one with `repeat` starts a series unless it continues one."""
    if fields.get("repeat") and not fields.get("series_id"):
        fields = {**fields, "series_id": str(uuid.uuid4()), "occurrence": 1}
    return post_store.insert_post(user_id, post_id, fields, now)


# --- handoffs ---------------------------------------------------------------


def claim(user_id, now, limit, lease_seconds, post_type=None):
    """Hand up to `limit` due posts to the caller (inside a transaction)."""
    return post_store.claim_due(
        user_id, now, limit, timestamps.later(now, lease_seconds), post_type
    )


# last_error of a post whose handoff ran out: the text before and after the
# expiry time, for a handoff the automation took (a claim, or a pushed post.due
# it acknowledged), then for a pushed one it never acknowledged, which is
# followed by the last delivery error.
EXPIRED_ERRORS = (
    "The handoff to the automation expired at ",
    " without a result: the post may already be live on the network. Check before retrying it.",
    "No post.due delivery was acknowledged by ",
    ", so the post was not handed to the automation. Last delivery error: ",
)


Handoff = namedtuple("Handoff", "callback_url lease_seconds linkedin_version linkedin_api_base")


def push_due(now, limit, max_delay, handoff):
    """Hand due posts of users with an enabled post.due endpoint to it (inside
    a transaction), each with its post.due event. Not yet acknowledged: the
    handoff's deadline is scheduled_at + max_delay until a delivery gets a
    2xx, when the lease (handoff.lease_seconds) starts. Returns how many."""
    pushed = post_store.push_due(now, limit, lambda at: timestamps.later(at, max_delay))
    for user_id in {post["user_id"] for post in pushed}:
        mine = [post for post in pushed if post["user_id"] == user_id]
        requests = linkedin.requests_for(
            user_id, mine, handoff.linkedin_version, handoff.linkedin_api_base
        )
        for post in mine:
            told = {
                "callback_url": handoff.callback_url,
                "lease_seconds": handoff.lease_seconds,
                "linkedin_request": requests[post["id"]],
            }
            events.post_due(user_id, post, told, now)
    return len(pushed)


def expired_error(post):
    if post["handoff_acknowledged"]:
        return EXPIRED_ERRORS[0] + post["handoff_expires_at"] + EXPIRED_ERRORS[1]
    return (
        EXPIRED_ERRORS[2]
        + post["handoff_expires_at"]
        + EXPIRED_ERRORS[3]
        + (post["handoff_error"] or "none")
    )


def _expired(post, now):
    return post["status"] == "Publishing" and post["handoff_expires_at"] <= now


def current(post, now):
    """The post as it stands at `now`: a Publishing post whose lease has run
    out reads as the Failed post it becomes, exactly as `settle` and
    `settle_all` write it, whether or not the row has been rewritten yet."""
    if not _expired(post, now):
        return post
    return {
        **post,
        **HANDOFF_CLEARED,
        "status": "Failed",
        "last_error": expired_error(post),
        "updated_at": post["handoff_expires_at"],
        "version": post["version"] + 1,
    }


def settle(user_id, post, lead_seconds, now):
    """`current`, written (with its post.failed event, and the next
    occurrence of a series): for a post read with lock_post before a change,
    inside the caller's transaction."""
    if not _expired(post, now):
        return post
    changes = {**HANDOFF_CLEARED, "status": "Failed", "last_error": expired_error(post)}
    return _write(user_id, post, changes, lead_seconds, now, post["handoff_expires_at"])


def leases_ran_out(now, user_id=None):
    """Whether any handoff (one user's, or anyone's) has run out by `now`: a
    read that takes no lock, so that a write transaction is opened only when
    settle_all has work."""
    return post_store.has_expired_handoffs(now, user_id)


def settle_all(now, lead_seconds, user_id=None):
    """Write every lease that ran out by `now` (one user's, or all) as Failed,
    with their post.failed events, inside the caller's transaction: one
    UPDATE, but one by one for occurrences whose series goes on. Before list
    reads, so that filters and totals agree with the records. Returns how
    many posts it changed."""
    continuing = post_store.expired_series_occurrences(now, user_id)
    for row in continuing:
        settle(row["user_id"], post_store.lock_post(row["user_id"], row["id"]), lead_seconds, now)
    expired = post_store.expire_handoffs(now, EXPIRED_ERRORS, user_id)
    for post in post_store.records([row["id"] for row in expired]):
        events.post_changed(post["user_id"], {"status": "Publishing"}, post, now)
    return len(continuing) + len(expired)


# --- PATCH, the callback, DELETE ------------------------------------------------


def update(user_id, post, changes, scopes, lead_seconds, now):
    """A PATCH: `post` (read with lock_post and settled) after every rule,
    written with its event; unchanged when nothing differs."""
    columns = plan_update(user_id, post, changes, scopes, lead_seconds, now)
    return _write(user_id, post, columns, lead_seconds, now)


def publish(user_id, post, urn, live_url, lead_seconds, now):
    """The publish callback: the post Published with its URN and URL (the
    post's LinkedIn address when none is given), and its post.published
    event; unchanged for a retry that repeats what is stored."""
    live_url = live_url or f"https://www.linkedin.com/feed/update/{urn}/"
    return _write(user_id, post, plan_publish(post, urn, live_url, now), lead_seconds, now)


def add_to_queue(user_id, post, lead_seconds, now):
    """A Draft or Failed post Scheduled at the first free slot of its channel
    (planning/queue.py); 409 no_free_slot when there is none."""
    if post["status"] not in ("Draft", "Failed"):
        raise conflict(
            f"Only a Draft or Failed post can be queued; this one is {post['status']}.",
            {"status": post["status"]},
        )
    columns = {
        "status": "Scheduled",
        "scheduled_at": queue.first_free_slot(user_id, post, lead_seconds, now),
    }
    if post["status"] == "Failed":
        columns["last_error"] = None
    return _write(user_id, post, columns, lead_seconds, now)


def delete(user_id, post):
    """Draft, Scheduled and Failed posts may be deleted (no event)."""
    check_delete(post)
    post_store.delete_post(user_id, post["id"])


def _write(user_id, post, columns, lead_seconds, now, updated_at=None):
    """Write `columns` with the event they cause and, when an occurrence of a
    series finishes, its next occurrence (or why the series stops)."""
    if not columns:
        return post
    columns, following = _finishing(user_id, post, columns, lead_seconds, now)
    changed = post_store.update_post(user_id, post["id"], columns, updated_at or now)
    events.post_changed(user_id, post, changed, now)
    if following:
        insert(user_id, str(uuid.uuid4()), following, now)
    return changed


def _finishing(user_id, post, columns, lead_seconds, now):
    """(columns, the next occurrence or None): an occurrence that first
    becomes Published or Failed continues its series, once."""
    status = columns.get("status", post["status"])
    finished = status in ("Published", "Failed") and status != post["status"]
    if not (finished and post["repeat"] and not post["series_continued"]):
        return columns, None
    merged = {**post, **columns}
    following, stopped = recurrence.continuation(user_id, merged, lead_seconds, now)
    columns = {**columns, "series_continued": 1}
    if stopped:
        error = merged.get("last_error")
        columns["last_error"] = f"{error}\n\n{stopped}" if error else stopped
    return columns, following


def plan_update(user_id, post, changes, scopes, lead_seconds, now):
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
    if new == "Publishing" and old != new:
        raise conflict(
            f"A post becomes Publishing only when an automation claims it: POST {CLAIM_PATH}.",
            {"status": old, "claim": CLAIM_PATH},
        )
    if new != old and new not in MOVES[old]:
        if old == "Publishing":
            raise _in_the_automations_hands(post)
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
    if old == "Publishing":
        return _plan_report(post, changes, scopes)
    if "repeat" in changes:
        changes = _plan_repeat(post, changes)
    merged = {**post, **changes}

    rescheduled = old == new == "Scheduled" and "scheduled_at" in changes
    moved = old == new == "Scheduled" and bool(changes.keys() & {"type", "brand_id"})
    if (new != old or rescheduled) and PUBLISH_SCOPE not in scopes:
        raise insufficient_scope(PUBLISH_SCOPE)
    try:
        check_brand(merged)
    except ValidationError as e:
        raise validation_error(e.normalized_messages()) from None
    if new == "Scheduled" and (new != old or rescheduled):
        _check_schedule(merged["scheduled_at"], lead_seconds, now)
    if new == "Scheduled" and (new != old or rescheduled or moved):
        check_guards(user_id, post["id"], channel_of(merged), merged["scheduled_at"])
    if new == "Failed" and not merged.get("last_error"):
        raise validation_error({"last_error": ["Required to mark a post Failed."]})
    return changes


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
        raise insufficient_scope(PUBLISH_SCOPE)
    if new == "Failed" and not changes.get("last_error"):
        raise validation_error({"last_error": ["Required to mark a post Failed."]})
    return {**changes, **HANDOFF_CLEARED}


def _in_the_automations_hands(post):
    return conflict(
        "The post is in the automation's hands (Publishing): only a report can change it, "
        '{"status": "Failed", "last_error": "..."} or {"status": "Scheduled"} to give it back.',
        {"status": "Publishing", "handoff_id": post["handoff_id"]},
    )


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
        **HANDOFF_CLEARED,
    }


def check_delete(post):
    """Draft, Scheduled and Failed posts may be deleted; a Publishing post is
    in the automation's hands and a Published one is on the network."""
    if post["status"] not in DELETABLE:
        raise conflict(
            f"A {post['status']} post cannot be deleted; only {', '.join(DELETABLE)} posts can.",
            {"status": post["status"]},
        )
