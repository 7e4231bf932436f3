"""Handing posts to the automation: claims, pushes to a post.due endpoint,
and leases that run out. A handoff whose lease ran out is never handed out
again by itself: the post may be live already, so handing it to a second
automation is exactly how duplicates happen.
"""

from collections import namedtuple

from content_publishing import linkedin, notifications, timestamps
from content_publishing.posts import history, publish_plan
from content_publishing.posts.moves import HANDOFF_CLEARED
from content_publishing.posts.writes import write
from content_publishing.store import posts as post_store
from content_publishing.webhooks import events


def claim(workspace_id, now, limit, lease_seconds, post_type=None, actor=None, *, lead_seconds):
    """Hand up to `limit` due posts to the caller (inside a transaction).
    A due post too long for LinkedIn is failed instead (`refuse`), and the
    next due one taken in its place."""
    claimed, expires_at = [], timestamps.later(now, lease_seconds)
    while len(claimed) < limit:
        handed, held = post_store.claim_due(
            workspace_id, now, limit - len(claimed), expires_at, post_type, linkedin.fits
        )
        claimed += handed
        refuse(held, lead_seconds, now)
        if not held:
            break
    handed_over(claimed, actor, now)
    return claimed


def refuse(held, lead_seconds, now):
    """Due posts (workspace_id, post_id) whose escaped text is over LinkedIn's
    limit, locked and still Scheduled: each becomes Failed, with a
    last_error that says why and its post.failed event, never handed over.
    Only a post scheduled before the limit was checked can be one: every
    way of scheduling refuses such a text."""
    for workspace_id, post_id in held:
        post = post_store.lock_post(workspace_id, post_id)
        columns = {
            "status": "Failed",
            "last_error": "Not handed to the automation. " + linkedin.too_long(post["content"]),
        }
        detail = f"{linkedin.commentary_length(post['content'])} characters escaped"
        write(workspace_id, post, columns, lead_seconds, now, action="refused", detail=detail)


def handed_over(posts, actor, now, by=None):
    """The `claimed` history entries: by a claim's key, by the dispatcher's
    push (None), or by the service's own publisher (`by` names it)."""
    said = f"by {by}, " if by else ""
    history.record(
        [
            history.entry(
                post["workspace_id"],
                post["id"],
                "claimed",
                "Scheduled",
                "Publishing",
                ["status", "handoff_id", "handoff_expires_at", "handoff_count"],
                actor,
                now,
                post["handoff_id"],
                f"{said}until {post['handoff_expires_at']}",
            )
            for post in posts
        ]
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


Handoff = namedtuple(
    "Handoff", "callback_url lease_seconds linkedin_version linkedin_api_base public_url"
)


def push_due(now, limit, max_delay, handoff, lead_seconds):
    """Hand due posts of workspaces with an enabled post.due endpoint to it (inside
    a transaction), each with its post.due event. Not yet acknowledged: the
    handoff's deadline is scheduled_at + max_delay until a delivery gets a
    2xx, when the lease (handoff.lease_seconds) starts. A due post too long
    for LinkedIn is failed instead (`refuse`). Returns how many posts it
    pushed or failed."""
    pushed, held = post_store.push_due(
        now, limit, lambda at: timestamps.later(at, max_delay), linkedin.fits
    )
    refuse(held, lead_seconds, now)
    handed_over(pushed, None, now)
    for workspace_id in {post["workspace_id"] for post in pushed}:
        mine = [post for post in pushed if post["workspace_id"] == workspace_id]
        target = publish_plan.Target(
            handoff.linkedin_version, handoff.linkedin_api_base, handoff.public_url
        )
        requests = publish_plan.requests_for(workspace_id, mine, target)
        told = {"callback_url": handoff.callback_url, "lease_seconds": handoff.lease_seconds}
        handed = [(post, {**told, "linkedin_request": requests[post["id"]]}) for post in mine]
        events.posts_due(workspace_id, handed, now)
    return len(pushed) + len(held)


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
    """An automation's handoff whose lease ran out. The service's own
    publisher's handoffs are settled by it (own_handoffs.py): it knows
    whether it sent the post."""
    return (
        post["status"] == "Publishing"
        and post.get("handoff_holder", "automation") == "automation"
        and post["handoff_expires_at"] <= now
    )


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


def settle(workspace_id, post, lead_seconds, now):
    """`current`, written (with its post.failed event, and the next
    occurrence of a series): for a post read with lock_post before a change,
    inside the caller's transaction."""
    if not _expired(post, now):
        return post
    changes = {**HANDOFF_CLEARED, "status": "Failed", "last_error": expired_error(post)}
    return write(
        workspace_id,
        post,
        changes,
        lead_seconds,
        now,
        updated_at=post["handoff_expires_at"],
        detail=f"the lease ran out at {post['handoff_expires_at']}",
    )


def leases_ran_out(now, workspace_id=None):
    """Whether any handoff (one workspace's, or anyone's) has run out by `now`: a
    read that takes no lock, so that a write transaction is opened only when
    settle_all has work."""
    return post_store.has_expired_handoffs(now, workspace_id)


def settle_all(now, lead_seconds, workspace_id=None):
    """Write every lease that ran out by `now` (one workspace's, or all) as Failed,
    with their post.failed events, inside the caller's transaction: one
    UPDATE, but one by one for occurrences whose series goes on. Before list
    reads, so that filters and totals agree with the records. Returns how
    many posts it changed."""
    continuing = post_store.expired_series_occurrences(now, workspace_id)
    for row in continuing:
        settle(
            row["workspace_id"],
            post_store.lock_post(row["workspace_id"], row["id"]),
            lead_seconds,
            now,
        )
    handoffs = post_store.expired_handoffs(now, workspace_id)  # {id: (handoff_id, expires_at)}
    expired = post_store.expire_handoffs(now, EXPIRED_ERRORS, workspace_id)
    changed = ["status", "last_error", "handoff_id", "handoff_expires_at"]
    entries = []
    for post in post_store.records([row["id"] for row in expired]):
        events.post_changed(post["workspace_id"], {"status": "Publishing"}, post, now)
        notifications.post_changed(post["workspace_id"], {"status": "Publishing"}, post, now)
        handoff_id, ran_out = handoffs.get(post["id"], (None, post["updated_at"]))
        entries.append(
            history.entry(
                post["workspace_id"],
                post["id"],
                "lease_expired",
                "Publishing",
                "Failed",
                changed,
                None,
                now,
                handoff_id,
                f"the lease ran out at {ran_out}",
            )
        )
    history.record(entries)
    return len(continuing) + len(expired)


def acknowledge_all(handoffs, now, lease_until):
    """Pushed post.due deliveries got their 2xx: for each (post_id,
    handoff_id), the automation has the post and its lease starts now (the
    `pushed` history entry), while that handoff is current and
    unacknowledged. One statement for the posts and one for their history;
    how many were acknowledged."""
    done = post_store.acknowledge_handoffs(handoffs, now, lease_until)
    history.record(
        [
            history.entry(
                post["workspace_id"],
                post["id"],
                "pushed",
                "Publishing",
                "Publishing",
                ["handoff_expires_at"],
                None,
                now,
                post["handoff_id"],
                f"acknowledged; the lease runs until {lease_until}",
            )
            for post in done
        ]
    )
    return len(done)


def note_delivery_error(post_id, handoff_id, error):
    """A pushed handoff's delivery failed: keep the error for the post's
    last_error, should no delivery ever be acknowledged. Bookkeeping of the
    handoff, not a change of the post: no new version, event or history."""
    post_store.note_handoff_error(post_id, handoff_id, error)
