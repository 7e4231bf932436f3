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

While the workspace requires approvals, an import never schedules: each
row lands as a Draft, or In review when it says submit, its scheduled_at
kept for when it is approved and scheduled (queue is then ignored: a slot
is taken when the approved post is queued).

The same Idempotency-Key with the same rows answers the posts the first
import made, as a create does; the key is claimed before the rows are
planned, so that concurrent imports with one key wait for the first and
answer what it made (idempotency.run_once), rather than each planning the
rows again and finding the first one's posts in the way.
"""

import json
import uuid

from content_publishing import timestamps
from content_publishing.errors import ApiError, row_errors
from content_publishing.idempotency import run_once
from content_publishing.planning import clock, queue
from content_publishing.planning.plan import ChannelPlan, channel_of
from content_publishing.posts import attachments
from content_publishing.posts.moves import PUBLISH_SCOPE
from content_publishing.posts.writes import insert, kept
from content_publishing.roles import missing
from content_publishing.schemas.imports import WallTime
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store
from content_publishing.store import workspaces as workspace_store
from content_publishing.store.idempotency import import_keys

KEPT = (
    "type",
    "brand_id",
    "content",
    "media_urls",
    "media_alt",
    "document_title",
    "first_comment",
    "repeat",
)


def import_posts(
    workspace_id, rows, invalid, scopes, lead_seconds, idempotency_key, now, actor=None
):  # `scopes`: a roles.Grant from a request; its member is the imported posts' author
    """The imported posts in row order (inside the caller's transaction).
    `rows`: the loaded rows, None where the row did not load; `invalid`: the
    messages of those rows, {1-based row: {field: [messages]}}."""
    good = [row for row in rows if row is not None]
    if PUBLISH_SCOPE not in scopes and any(r["scheduled_at"] or r["queue"] for r in good):
        raise missing(scopes, PUBLISH_SCOPE)
    planned = _import_for_review if workspace_store.approvals_required(workspace_id) else _import
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
        post_id = str(uuid.uuid4())
        fields = {name: row[name] for name in KEPT}
        try:
            fields = kept(workspace_id, fields)
            if row.get("submit"):
                raise _RowError(
                    {"submit": ["Approvals are off in this workspace: nothing is reviewed."]}
                )
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
    made = [
        insert(workspace_id, post_id, {**fields, "created_by": author}, now, actor)
        for post_id, fields in planned
    ]
    return {"id": json.dumps([p["id"] for p in made]), "data": made}


def _import_for_review(workspace_id, rows, invalid, lead_seconds, now, actor=None, author=None):
    """The rows as Drafts (In review with submit), never scheduled."""
    planned, errors = [], dict(invalid)
    for n, row in enumerate(rows, start=1):
        if row is None:
            continue
        fields = {name: row[name] for name in KEPT}
        try:
            fields = kept(workspace_id, fields)
        except ApiError as e:
            errors[n] = e.details if e.code == "validation_error" else {"content": [e.message]}
        fields.update(scheduled_at=row["scheduled_at"])
        if row.get("submit"):
            fields["status"] = "In review"
        planned.append((str(uuid.uuid4()), fields))
    if errors:
        raise row_errors(errors)
    made = [
        insert(workspace_id, post_id, {**fields, "created_by": author}, now, actor)
        for post_id, fields in planned
    ]
    return {"id": json.dumps([p["id"] for p in made]), "data": made}


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
