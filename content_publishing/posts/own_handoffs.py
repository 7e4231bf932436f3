"""Handoffs to the service's own publisher (publisher/ runs them):
due posts of channels the service publishes itself, taken exactly as a
claim takes them, and what LinkedIn's answer makes of each.

    take        Scheduled -> Publishing: the service holds the handoff (history
                `claimed`, no key), posts too long for LinkedIn refused as by a claim
    sending     marked in the database just before the POST of the post itself,
                once: the one condition under which the post is sent
    published   LinkedIn's 201 (or the post found after an unknown outcome)
    failed      a refusal, a connection that expired, an unknown outcome that
                was not found (history `publish_failed`)
    comment_sending  the first comment marked sending, once, just before it is sent
    commented   its outcome kept (nothing left to send)
    comments_left    first comments a stopped publisher left: resumed once, or kept
                as refused when it stopped while sending one
    give_back   Publishing -> Scheduled untried: LinkedIn's 429 (not taken again
                before `retry_not_before`), or a publisher that stopped before sending
    recover     handoffs whose lease ran out: never sent, given back; sent, kept to
                be checked at LinkedIn, never sent again blind

Every change after `take` holds only while the post is still in that very
handoff (its handoff_id, held by the service), so that a late answer never
changes a post that has moved on.
"""

from content_publishing import linkedin, timestamps
from content_publishing.posts.handoffs import handed_over, refuse
from content_publishing.posts.moves import HANDOFF_CLEARED, plan_publish
from content_publishing.posts.writes import publish, write
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store

SERVICE_CLEARED = {**HANDOFF_CLEARED, "handoff_holder": "automation", "handoff_sending_at": None}
CONFIRMED = "confirmed after an unknown outcome"
COMMENT_UNKNOWN = (
    "The publisher stopped while sending the first comment, so whether LinkedIn has it is "
    "unknown: look at the post on LinkedIn, and add the comment by hand if it is not there."
)


def any_work(now, comment_grace):
    """Whether a due post waits for the service, one of its handoffs ran
    out, or a first comment was left behind (due `comment_grace` seconds
    ago): a read that takes no lock, before a round's transaction."""
    return post_store.any_service_work(now, timestamps.later(now, -comment_grace))


def take(now, limit, lease_seconds, lead_seconds, taker):
    """Up to `limit` due posts handed to the service (inside a transaction),
    each Publishing with a lease of `lease_seconds`; their records. `taker`
    names the dispatcher, in the history."""
    until = timestamps.later(now, lease_seconds)
    taken, held = post_store.take_for_service(now, limit, until, linkedin.fits)
    refuse(held, lead_seconds, now)
    handed_over(taken, None, now, by=f"the service's own publisher ({taker})")
    return taken


def sending(post_id, handoff_id, now, until):
    """Mark the handoff sending (its lease until `until`); True if the post
    may be sent: the handoff is current, unexpired and was never sent."""
    return post_store.mark_sending(post_id, handoff_id, now, until)


def unknown(post_id, handoff_id, why, check_at, now):
    """A sent post with an unknown outcome: kept Publishing, with `why`, to
    be checked at LinkedIn once its lease ends at `check_at`."""
    return post_store.note_unknown(post_id, handoff_id, why, check_at, now)


def _held(workspace_id, post_id, handoff_id):
    """The post, locked, while it is still in this service handoff; else None."""
    post = post_store.lock_post(workspace_id, post_id)
    if (
        post is None
        or post["status"] != "Publishing"
        or post["handoff_id"] != handoff_id
        or post["handoff_holder"] != "service"
    ):
        return None
    return post


def held_elsewhere(urns, post_id):
    """The URNs among `urns` another post of the service holds (a read)."""
    return post_store.urns_held(list(urns), post_id)


def published(workspace_id, post_id, handoff_id, urn, now, lead_seconds, confirmed=False):
    """LinkedIn made the post `urn`: Published (its post.published event,
    history `published`); None if the post is no longer in this handoff.
    A URN `confirmed` after an unknown outcome is taken only while no other
    post holds it (read again under the channel's lock, which two checks of
    one channel take in turn): else None, the post left to its next check."""
    if confirmed:
        found = post_store.get_post(workspace_id, post_id)
        if found is not None:
            channel_store.lock_channel(workspace_id, found["channel_id"])
    post = _held(workspace_id, post_id, handoff_id)
    if post is None or (confirmed and post_store.urns_held([urn], post_id)):
        return None
    columns = {
        **plan_publish(
            post, urn, f"https://www.linkedin.com/feed/update/{urn}/", {}, now, by_service=True
        ),
        **SERVICE_CLEARED,
    }
    if post["first_comment"] and not post["first_comment_urn"]:
        columns["comment_due_at"] = now  # sent next, or resumed after a crash
    detail = f"{CONFIRMED}: {urn}" if confirmed else urn
    return write(workspace_id, post, columns, lead_seconds, now, detail=detail)


def comment_sending(post_id, now):
    """Mark the Published post's first comment sending; True if it may be
    sent (it is due and was never marked): a comment is sent once."""
    return post_store.mark_comment_sending(post_id, now)


def commented(workspace_id, post_id, outcome, now, lead_seconds):
    """The first comment's outcome on the Published post ({"first_comment_urn"}
    or {"first_comment_error"}), as the callback keeps it: history
    `commented` or `comment_failed`; the post stays Published, with no
    comment left to send."""
    post = post_store.lock_post(workspace_id, post_id)
    if post is None:
        return None
    post_store.comment_settled(post_id)
    if post["status"] != "Published" or not outcome:
        return None
    return publish(
        workspace_id,
        post,
        post["linkedin_post_id"],
        post["live_url"],
        lead_seconds,
        now,
        comment=outcome,
    )


def failed(workspace_id, post_id, handoff_id, error, now, lead_seconds, detail=None):
    """Failed with `error` as its last_error (post.failed, history
    `publish_failed`); None if the post is no longer in this handoff."""
    post = _held(workspace_id, post_id, handoff_id)
    if post is None:
        return None
    columns = {"status": "Failed", "last_error": error, **SERVICE_CLEARED}
    return write(
        workspace_id, post, columns, lead_seconds, now, action="publish_failed", detail=detail
    )


def give_back(workspace_id, post_id, handoff_id, not_before, why, now, lead_seconds):
    """Back to Scheduled untried, not to be taken before `not_before` (None:
    at once); None if the post is no longer in this handoff."""
    post = _held(workspace_id, post_id, handoff_id)
    if post is None:
        return None
    columns = {"status": "Scheduled", "retry_not_before": not_before, **SERVICE_CLEARED}
    if not_before is not None:  # why it waits, for its status (the post's `retrying`)
        columns["handoff_error"] = why
    return write(workspace_id, post, columns, lead_seconds, now, action="given_back", detail=why)


def recover(now, limit, check_seconds, lead_seconds):
    """The service's handoffs whose lease ran out (inside a transaction). One
    never marked sending was not sent: given back, to be taken again. One
    marked sending has an unknown outcome: taken on for `check_seconds` by
    this caller, to be checked at LinkedIn, and returned ([post records])."""
    to_check = []
    for row in post_store.service_expired(now, limit):
        if row["handoff_sending_at"] is None:
            give_back(
                row["workspace_id"],
                row["id"],
                row["handoff_id"],
                None,
                "the service's publisher stopped before sending it (its lease ran out)",
                now,
                lead_seconds,
            )
        elif post_store.extend_service_lease(
            row["id"], row["handoff_id"], now, timestamps.later(now, check_seconds)
        ):
            to_check.append({**post_store.get_post(row["workspace_id"], row["id"]), **row})
    return to_check


def comments_left(now, limit, grace, lead_seconds):
    """First comments a publisher left behind (inside a transaction): due
    `grace` seconds ago and never marked sending (the publisher stopped
    between the post and its comment), returned ([post records]) to be sent
    once; marked sending `grace` seconds ago with no outcome (it stopped
    while sending), kept as refused, since LinkedIn may have it: never sent
    twice."""
    before = timestamps.later(now, -grace)
    left = []
    for row in post_store.comments_due(before, before, limit):
        if row["comment_sending_at"] is None:
            post = post_store.get_post(row["workspace_id"], row["id"])
            left.append({**post, "workspace_id": row["workspace_id"]})
            continue
        commented(
            row["workspace_id"],
            row["id"],
            {"first_comment_error": COMMENT_UNKNOWN},
            now,
            lead_seconds,
        )
    return left
