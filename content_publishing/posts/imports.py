"""Bulk import: rows of posts (schemas/imports.py), all or nothing.

Each row becomes a Draft; a Scheduled post when it gives scheduled_at (the
lead time and its channel's guards apply, the rows above it counted); or a
queued one when it says queue (its channel's next free slot, taken in row
order). A scheduled_at without an offset, as a spreadsheet writes a local
time, is read in the row's channel's zone (local_instant). Every row keeps
to what one post may carry (posts/attachments.py);
a row that schedules or queues needs what scheduling needs there too (a
text that fits LinkedIn's limit once escaped, a document's title); a Draft
row may be longer. Every row is
checked before anything is written: any bad row fails the import with every
bad row named (errors.row_errors), and nothing is stored. Rows that schedule
need posts:publish.

Where approvals are required (the workspace's rule, or the row's
channel's own: posts/approvals.py), a row is never scheduled at once: it
lands as a Draft, or In review when it says submit, keeping its intent
(scheduled_at, or queue) on the record; the moment it is approved it is
scheduled or queued (posts/reviews.py), a slot being taken only then.
Rows of channels that need no approval in the same import are scheduled
and queued as ever.

A row names its channel (`channel`: an id, or a channel's name), or its
type and brand_id place it as a create's do (channels/placement.py). A row
for a colleague's profile keeps to posts/approvals.py: never where they
keep it to themselves, and never scheduled or queued without their
approval: it lands as a Draft, or In review with submit.

The same Idempotency-Key with the same rows answers the posts the first
import made, as a create does; the key is claimed before the rows are
planned, so that concurrent imports with one key wait for the first and
answer what it made (idempotency.run_once), rather than each planning the
rows again and finding the first one's posts in the way.
"""

import json
import uuid
from datetime import timedelta

from content_publishing import timestamps
from content_publishing.channels import placement
from content_publishing.errors import ApiError, row_errors
from content_publishing.idempotency import run_once
from content_publishing.planning import clock, queue
from content_publishing.planning.plan import ChannelPlan, channel_of
from content_publishing.posts import approvals, attachments
from content_publishing.posts.moves import PUBLISH_SCOPE
from content_publishing.posts.writes import insert, kept
from content_publishing.roles import missing
from content_publishing.schemas.imports import WallTime
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store
from content_publishing.store.idempotency import import_keys

KEPT = (*post_store.CARRIED, "repeat")  # what a row's post is made of


def import_posts(
    workspace_id, rows, invalid, scopes, lead_seconds, idempotency_key, now, actor=None
):  # `scopes`: a roles.Grant from a request; its member is the imported posts' author
    """The imported posts in row order (inside the caller's transaction).
    `rows`: the loaded rows, None where the row did not load; `invalid`: the
    messages of those rows, {1-based row: {field: [messages]}}."""
    good = [row for row in rows if row is not None]
    if PUBLISH_SCOPE not in scopes and any(r["scheduled_at"] or r["queue"] for r in good):
        raise missing(scopes, PUBLISH_SCOPE)
    planned = _import
    if invalid:  # before the key: a request that cannot import is never remembered
        planned(workspace_id, rows, invalid, lead_seconds, now, actor, _author(scopes))
    batch = run_once(
        import_keys,
        workspace_id,
        idempotency_key,
        {"posts": rows},
        run=lambda: planned(workspace_id, rows, invalid, lead_seconds, now, actor, _author(scopes)),
        get=_batch,
        now=now,
    )
    return batch["data"]


def _nth(now, n):
    """`now` plus `n` microseconds, as stored text."""
    return timestamps.to_text(timestamps.parse(now) + timedelta(microseconds=n))


def _batch(workspace_id, post_ids):
    """What an earlier import with the key made: the posts still there, in row order."""
    found = [post_store.get_post(workspace_id, post_id) for post_id in json.loads(post_ids)]
    return {"data": [post for post in found if post is not None]}


def _author(scopes):
    return getattr(scopes, "member_id", None)


def _import(workspace_id, rows, invalid, lead_seconds, now, actor=None, author=None):
    plans = _Plans(workspace_id)
    earliest = timestamps.later(now, lead_seconds)
    planned, errors = [], dict(invalid)
    for n, row in enumerate(rows, start=1):
        if row is None:
            continue
        post_id, fields = str(uuid.uuid4()), {}
        try:
            fields = kept(workspace_id, _placed(workspace_id, row, author))
            if _for_review(plans, row, fields, author):
                planned.append((post_id, fields))
                continue
            if row["scheduled_at"] or row["queue"]:
                attachments.check_schedulable(workspace_id, fields)
            if row["scheduled_at"]:
                _schedule(plans, post_id, fields, row["scheduled_at"], earliest, lead_seconds)
            elif row["queue"]:
                slot = queue.first_free_slot(
                    workspace_id,
                    {"id": post_id, **fields},
                    lead_seconds,
                    now,
                    plans.get(channel_of(fields)),
                )
                fields.update(status="Scheduled", scheduled_at=slot)
        except _RowError as e:
            errors[n] = e.messages
        except ApiError as e:  # what a post may carry or scheduling needs; no free slot
            errors[n] = e.details if e.code == "validation_error" else {"queue": [e.message]}
        planned.append((post_id, fields))
    if errors:
        raise row_errors(errors)
    for plan in plans.plans.values():
        if plan is not None:
            queue.remember(plan)
    made = [  # a microsecond apart: a list by creation time keeps the rows' order
        insert(workspace_id, post_id, {**fields, "created_by": author}, _nth(now, n), actor)
        for n, (post_id, fields) in enumerate(planned)
    ]
    return {"id": json.dumps([p["id"] for p in made]), "data": made}


def _keep_intent(plans, row, fields):
    """A row where approvals are required: a Draft (In review with submit)
    that keeps what it asks for, its time or the queue, for its approval."""
    at = row["scheduled_at"]
    if isinstance(at, WallTime):
        at = local_instant(plans.get(channel_of(fields)), at)
    fields.update(
        status="In review" if row.get("submit") else "Draft",
        scheduled_at=at,
        intended_at=at,
        queue_on_approval=bool(row["queue"]) and not at,
    )


def _placed(workspace_id, row, author):
    """The row's fields on its channel (by id or name, else by type and
    brand_id), if its member lets `author` post there."""
    fields = {name: row.get(name) for name in KEPT if name != "channel_id"}
    if row.get("channel") is not None:
        fields["channel_id"] = _channel_named(workspace_id, row["channel"])
    placed = {**fields, **placement.place(workspace_id, fields, author)}
    try:
        approvals.check_may_post(workspace_id, placed["channel_id"], author)
    except ApiError as e:
        raise _RowError({"channel": [e.message]}) from None
    return placed


def _channel_named(workspace_id, name):
    """The id of the workspace's channel of that id, else of that name."""
    if channel_store.get_channel(workspace_id, name) is not None:
        return name
    found = channel_store.named(workspace_id, name)
    if len(found) == 1:
        return found[0]
    if not found:
        raise _RowError({"channel": [f"No channel has the id or the name {name!r}."]})
    raise _RowError(
        {"channel": [f"{len(found)} channels are called {name!r}: give the channel's id."]}
    )


def _for_review(plans, row, fields, author):
    """Whether the row lands for a review: where approvals are required
    (_keep_intent), or for its profile's member's (where they are not): In
    review with submit, else a Draft, its scheduled_at kept for when it is
    approved. A row that would be scheduled on a colleague's profile, or
    reviewed where nobody reviews, is refused."""
    workspace_id = plans.workspace_id
    owner = approvals.owner_of(workspace_id, {**fields, "created_by": author})
    if owner is None and approvals.required(workspace_id, channel_of(fields)):
        _keep_intent(plans, row, fields)
        return True
    if owner is None:
        if row.get("submit"):
            raise _RowError(
                {"submit": ["Approvals are off in this workspace: nothing is reviewed."]}
            )
        if row["scheduled_at"] or row["queue"]:
            try:
                approvals.check_member_stays(workspace_id, fields["channel_id"])
            except ApiError as e:
                raise _RowError({"channel": [e.message]}) from None
        return False
    if not row.get("submit") and (row["scheduled_at"] or row["queue"]):
        raise _RowError(
            {
                "channel": [
                    f"The row goes out on {owner['name']}'s LinkedIn profile, so "
                    f"{owner['name']} approves it before it is scheduled: import it with "
                    "submit (it lands In review), without scheduled_at or queue."
                ]
            }
        )
    if row.get("submit"):
        _keep_intent(plans, row, fields)
    return True


class _RowError(Exception):
    def __init__(self, messages):
        super().__init__(messages)
        self.messages = messages


def _schedule(plans, post_id, fields, at, earliest, lead_seconds):
    """`fields` Scheduled at the row's `at` (a local time read in its
    channel's zone first), within the lead time and the guards."""
    if isinstance(at, WallTime):
        at = local_instant(plans.get(channel_of(fields)), at)
    fields.update(status="Scheduled", scheduled_at=at)
    _check_time(plans, post_id, fields, earliest, lead_seconds)


def local_instant(plan, wall):
    """The stored text of the local time `wall` (a WallTime) in the zone of
    the channel planned by `plan`: a time the clocks skip that day is
    refused, saying so; one they pass twice is its first occurrence
    (planning/clock.py, as slots are read)."""
    if plan is None:
        raise _RowError(
            {
                "scheduled_at": [
                    "A time without an offset is read in its channel's time zone, and this "
                    "channel is not set up: set it up, or give an offset (Z or +01:00)."
                ]
            }
        )
    naive, zone = wall.naive(), plan.channel["timezone"]
    moment = clock.instant(naive, plan.zone)
    if moment is None:
        raise _RowError(
            {
                "scheduled_at": [
                    f"{naive:%Y-%m-%d %H:%M} does not exist in {zone}: the clocks go forward "
                    "over it that day. Give a time after the change, or an offset."
                ]
            }
        )
    return timestamps.to_text(moment)


def _check_time(plans, post_id, fields, earliest, lead_seconds):
    if fields["scheduled_at"] < earliest:
        raise _RowError(
            {"scheduled_at": [f"Must be at least {lead_seconds} seconds in the future."]}
        )
    plan = plans.get(channel_of(fields))
    if plan is None:
        return
    moment = clock.parse(fields["scheduled_at"])
    found = plan.breach(moment, post_id)
    if found:
        raise _RowError({"scheduled_at": [found[2]]})
    plan.take(post_id, moment)


class _Plans:
    """One ChannelPlan per channel the rows schedule into, its row locked once."""

    def __init__(self, workspace_id):
        self.workspace_id = workspace_id
        self.plans = {}

    def get(self, channel_id):
        if channel_id not in self.plans:
            channel = channel_store.lock_channel(self.workspace_id, channel_id)
            self.plans[channel_id] = ChannelPlan(self.workspace_id, channel) if channel else None
        return self.plans[channel_id]
