"""Every change to a post is written here, with the webhook event it causes
(webhooks/events.py), whom it notifies (notifications/), its history entry
(history.py) and, when an occurrence of a series finishes, the next
occurrence (planning/recurrence.py), inside the caller's transaction. The
other writers of a post are its siblings: handoffs.py (claims, pushes,
leases and a pushed delivery's outcome), own_handoffs.py (the service's own
publisher's handoffs: taken, marked sending, an unknown outcome kept) and
imports.py (through `insert`); every other change (a review's move, a
workspace's settings) goes through `write`. Nothing outside posts/ writes a
post, so no path can change one and forget its event or its history.
"""

import uuid

from content_publishing import notifications
from content_publishing.analytics import collection, zone
from content_publishing.channels import placement
from content_publishing.errors import conflict
from content_publishing.idempotency import create_once
from content_publishing.planning import queue, recurrence
from content_publishing.planning.plan import channel_of
from content_publishing.posts import attachments, history
from content_publishing.posts.approvals import check_approved, check_may_post
from content_publishing.posts.moves import check_delete, plan_publish, plan_update
from content_publishing.roles import check_post_write
from content_publishing.store import posts as post_store
from content_publishing.store import stats as stats_store
from content_publishing.store.idempotency import post_keys
from content_publishing.webhooks import events


def create(workspace_id, fields, idempotency_key, now, actor=None, author=None):
    """A new Draft, or the post an earlier request with the same
    Idempotency-Key made (inside the caller's transaction). `actor`: the
    id of the key that asks, for the history (None: the service itself);
    `author`: the id of its member, the post's author. The post goes to the
    channel its fields name (channels/placement.py), if its member lets
    others post there (approvals.check_may_post)."""

    def made():
        placed = fields
        if fields.get("channel_id") is not None:
            placed = {**fields, **placement.place(workspace_id, fields, author)}
            check_may_post(workspace_id, placed["channel_id"], author)
        # else the reference interface's type and brand_id: placed by the
        # INSERT itself, and checked on what it found (one round trip)
        post_id = str(uuid.uuid4())
        made = {**kept(workspace_id, placed), "created_by": author}
        return insert(workspace_id, post_id, made, now, actor, placed_by=author)

    return create_once(
        post_keys,
        workspace_id,
        idempotency_key,
        fields,
        insert=made,
        get=post_store.get_post,
        now=now,
    )


def kept_for_preview(workspace_id, fields, author=None):
    """The fields of a post not yet written, as `kept` makes them, without
    the rules (a preview warns of what they would refuse)."""
    fields = {"media_urls": [], **fields, **placement.place(workspace_id, fields, author)}
    fields = attachments.resolved(workspace_id, {}, fields)
    attachments.check_alt(attachments.media_of(fields["media_urls"]), fields["media_alt"])
    return fields


def kept(workspace_id, fields):
    """A new post's fields as they are written: its media kept by reference
    (posts/attachments.py), after the rules of what one post may carry."""
    fields = attachments.resolved(workspace_id, {}, {"media_urls": [], **fields})
    attachments.check(fields)
    return fields


def insert(
    workspace_id, post_id, fields, now, actor=None, action="created", detail=None, placed_by=None
):
    """Write a new post (a create, an import row, a series' next occurrence)
    with its history entry; one with `repeat` starts a series unless it
    continues one. Fields without a channel_id are placed by the store, as
    `placed_by` writes them, and refused (before any history) where their
    channel does not take them."""
    if fields.get("repeat") and not fields.get("series_id"):
        fields = {**fields, "series_id": str(uuid.uuid4()), "occurrence": 1}
    post = post_store.insert_post(workspace_id, post_id, fields, now, placed_by)
    _check_placed(workspace_id, fields, post, post.pop("placed", None), placed_by)
    history.record(
        [
            history.entry(
                workspace_id,
                post_id,
                action,
                None,
                post["status"],
                fields,
                actor,
                now,
                detail=detail,
            )
        ]
    )
    return post


def _check_placed(workspace_id, fields, post, placed, author):
    """What the store found of the channel a post of no channel_id went to
    (None: not set up): a brand_id that is a profile's id, or a profile
    kept to its member, raises the error placing it by reads would have
    (channels/placement.py, approvals.check_may_post); the caller's
    transaction then rolls the row back."""
    if placed is None:
        return
    wrong_kind = placed["type"] != post["type"]
    kept_out = not placed["others_may_post"] and placed["member_id"] != author
    if not (wrong_kind or kept_out):
        return
    placement.place(workspace_id, {**fields, "channel_id": None}, author)
    check_may_post(workspace_id, post["channel_id"], author)
    raise AssertionError(f"channel {post['channel_id']} refused a post: {placed}")


def update(workspace_id, post, changes, scopes, lead_seconds, now, actor=None):
    """A PATCH: `post` (read with lock_post and settled) after every rule,
    written with its event; unchanged when nothing differs."""
    columns = plan_update(workspace_id, post, changes, scopes, lead_seconds, now)
    return write(workspace_id, post, columns, lead_seconds, now, actor)


def publish(workspace_id, post, urn, live_url, lead_seconds, now, actor=None, comment=None):
    """The publish callback: the post Published with its URN and URL (the
    post's LinkedIn address when none is given), and its post.published
    event; unchanged for a retry that repeats what is stored. `comment`: the
    first comment's outcome ({"first_comment_urn"} or
    {"first_comment_error"}), in the same callback or a later one; a failed
    one is a `comment_failed` history entry, a post.first_comment_failed
    event and its author told, and the post stays Published."""
    live_url = live_url or f"https://www.linkedin.com/feed/update/{urn}/"
    columns = plan_publish(post, urn, live_url, comment or {}, now)
    refused = columns.get("first_comment_error") and (
        columns["first_comment_error"] != post.get("first_comment_error")
    )
    if post["status"] == "Published":  # the comment's outcome, reported after the post's
        action = "comment_failed" if columns.get("first_comment_error") else "commented"
        changed = write(workspace_id, post, columns, lead_seconds, now, actor, action=action)
    else:
        changed = write(workspace_id, post, columns, lead_seconds, now, actor, detail=urn)
        if columns.get("first_comment_error"):
            history.change(
                workspace_id,
                changed,
                changed,
                ["first_comment_error"],
                actor,
                now,
                "comment_failed",
            )
    if refused:
        _comment_refused(workspace_id, changed, now, actor)
    return changed


def _comment_refused(workspace_id, post, now, actor):
    """post.first_comment_failed, and its author told (a refusal newly kept)."""
    events.first_comment_failed(workspace_id, post, now)
    # `actor` is the history's (roles.Actor: key and member); the mail names the member
    notifications.first_comment_failed(workspace_id, post, now, getattr(actor, "member_id", None))


def add_to_queue(workspace_id, post, lead_seconds, now, actor=None):
    """A Draft, Approved or Failed post Scheduled at the first free slot of
    its channel (planning/queue.py); 409 no_free_slot when there is none,
    approval_required when the workspace requires an approval it lacks."""
    if post["status"] not in ("Draft", "Approved", "Failed"):
        raise conflict(
            f"Only a Draft or Failed post can be queued; this one is {post['status']}.",
            {"status": post["status"]},
        )
    check_approved(workspace_id, post)
    attachments.check_schedulable(workspace_id, post)
    slot = queue.first_free_slot(workspace_id, post, lead_seconds, now)
    columns = {"status": "Scheduled", "scheduled_at": slot}
    if post["status"] == "Failed":
        columns["last_error"] = None
    return write(
        workspace_id, post, columns, lead_seconds, now, actor, action="queued", detail=slot
    )


def delete(workspace_id, post, grant=None):
    """Draft, Scheduled and Failed posts may be deleted (no event); the
    history goes with the post. A contributor deletes only their own drafts."""
    check_post_write(grant, post, "delete this post")
    check_delete(post)
    post_store.delete_post(workspace_id, post["id"])


def write(
    workspace_id,
    post,
    columns,
    lead_seconds,
    now,
    actor=None,
    updated_at=None,
    action=None,
    detail=None,
    expected_version=None,
):
    """Write `columns` with the event they cause, the history entry and, when
    an occurrence of a series finishes, its next occurrence (or why the
    series stops). `updated_at`: the time the change took effect, when not
    now (a lease that ran out). `expected_version`: write only over that
    version of the post (an approval approves the text it reviewed), else
    409."""
    if not columns:
        return post
    if columns.get("status") == "Scheduled" and (
        post.get("intended_at") or post.get("queue_on_approval")
    ):  # an intent is kept only until the post is planned
        columns = {**columns, "intended_at": None, "queue_on_approval": False}
    columns, following = _finishing(workspace_id, post, columns, lead_seconds, now)
    changed = post_store.update_post(
        workspace_id, post["id"], columns, updated_at or now, expected_version
    )
    if changed is None:
        raise conflict(
            f"The post changed since version {expected_version} was read: nothing was written.",
            {"version": expected_version},
        )
    events.post_changed(workspace_id, post, changed, now)
    notifications.post_changed(workspace_id, post, changed, now)
    if changed["status"] == "Published" and post["status"] != "Published":
        _track(workspace_id, changed, now)
    action = action or history.action_of(post["status"], changed["status"], columns, actor)
    if action in ("scheduled", "queued", "given_back"):
        why = f"; {detail}" if action == "given_back" and detail else ""
        detail = f"for {changed['scheduled_at']}{why}"
    history.change(workspace_id, post, changed, columns, actor, now, action, detail)
    if following:
        insert(
            workspace_id,
            str(uuid.uuid4()),
            following,
            now,
            action="occurrence_created",
            detail=f"occurrence {following['occurrence']} of the series, after post {post['id']}",
        )
    return changed


def _track(workspace_id, post, now):
    """A post that has just gone out gets its row for the analytics (by its
    channel and the quarter-hour it went out in), which its stats will fill,
    and, on a channel connected to LinkedIn, its collections."""
    published = post["published_at"]
    quarter = zone.quarter_of(published)
    stats_store.track_published(workspace_id, post["id"], channel_of(post), published, quarter)
    collection.schedule(workspace_id, post, now)


def _finishing(workspace_id, post, columns, lead_seconds, now):
    """(columns, the next occurrence or None): an occurrence that first
    becomes Published or Failed continues its series, once."""
    status = columns.get("status", post["status"])
    finished = status in ("Published", "Failed") and status != post["status"]
    if not (finished and post["repeat"] and not post["series_continued"]):
        return columns, None
    merged = {**post, **columns}
    following, stopped = recurrence.continuation(workspace_id, merged, lead_seconds, now)
    columns = {**columns, "series_continued": 1}
    if stopped:
        error = merged.get("last_error")
        columns["last_error"] = f"{error}\n\n{stopped}" if error else stopped
    return columns, following
