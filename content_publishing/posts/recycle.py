"""Recycling: a Published post's copy put back in its channel's queue, so
that evergreen content goes out again without being typed again.

The copy carries what the original carried (text, media, alt text, a
document's title, a first comment, its approval; not its repeat: a copy is
one post) and `recycled_from`, the original's id. It takes the channel's next free slot
as "add to queue" does (planning/queue.py), and must not go out sooner than
the channel's `recycle_after_days` after the original went out: sooner is a
409 too_soon that says from when it may.
"""

import uuid
from datetime import timedelta

from content_publishing import timestamps
from content_publishing.errors import not_published, too_soon
from content_publishing.idempotency import create_once
from content_publishing.planning import clock, queue
from content_publishing.planning.plan import channel_of
from content_publishing.posts import attachments
from content_publishing.posts.approvals import check_approved
from content_publishing.posts.writes import insert, kept
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store
from content_publishing.store.idempotency import post_keys

APPROVAL = ("approved_by", "approved_at", "reviewed_by")


def recycle(workspace_id, post, lead_seconds, idempotency_key, now, actor=None, author=None):
    """The copy of the Published `post` (read with lock_post), Scheduled at
    its channel's next free slot (inside the caller's transaction); `author`:
    the member who recycles it, the copy's author. The same Idempotency-Key
    again answers the first copy."""
    if post["status"] != "Published":
        raise not_published(
            post["status"],
            f"Only a Published post can be recycled; this one is {post['status']}.",
        )
    return create_once(
        post_keys,
        workspace_id,
        idempotency_key,
        {"recycled_from": post["id"]},
        insert=lambda: _copy(workspace_id, post, lead_seconds, now, actor, author),
        get=post_store.get_post,
        now=now,
    )


def _copy(workspace_id, post, lead_seconds, now, actor, author):
    copy_id = str(uuid.uuid4())
    fields = kept(workspace_id, {name: post[name] for name in post_store.CARRIED})
    # The approval of the text, as a series' next occurrence keeps it: where
    # approvals are required, a post published without one is refused.
    fields.update({name: post.get(name) for name in APPROVAL})
    check_approved(workspace_id, {**fields, "status": post["status"], "created_by": author})
    attachments.check_schedulable(workspace_id, fields)
    slot = queue.first_free_slot(workspace_id, {"id": copy_id, **fields}, lead_seconds, now)
    # first_free_slot holds the channel's lock: it is read as the queue saw it.
    channel = channel_store.get_channel(workspace_id, channel_of(post))
    _check_wait(channel, post, slot)
    fields.update(
        status="Scheduled", scheduled_at=slot, recycled_from=post["id"], created_by=author
    )
    detail = f"for {slot}; recycled from post {post['id']}"
    return insert(workspace_id, copy_id, fields, now, actor, action="recycled", detail=detail)


def _check_wait(channel, post, slot):
    """too_soon when `slot` comes before the channel's recycle_after_days
    have passed since the original went out."""
    days = channel["recycle_after_days"]
    if not days or not post["published_at"]:
        return
    earliest = clock.parse(post["published_at"]) + timedelta(days=days)
    if clock.parse(slot) >= earliest:
        return
    zone = clock.zone(channel["timezone"])
    local = clock.wall(earliest, zone)
    raise too_soon(
        f"Channel {channel['id']} recycles a post {days} days after it went out at the "
        f"soonest: this one went out at {post['published_at']}, so a copy may go out from "
        f"{local:%Y-%m-%d %H:%M} ({channel['timezone']}) on; the queue's next free slot "
        f"is {slot}. Recycle it then.",
        {
            "channel": channel["id"],
            "recycle_after_days": days,
            "published_at": post["published_at"],
            "earliest_at": timestamps.to_text(earliest),
            "next_slot": slot,
        },
    )
