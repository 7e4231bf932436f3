"""Add to queue: the first free slot of the post's channel.

A slot is free when no Scheduled, Publishing or Published post of the
channel is at exactly that instant and planning there keeps to the guards.
The search starts at now plus the scheduling lead time. The channel's row
is locked first, so that concurrent queue requests for one channel take one
slot each.

It never reads the whole queue. The channel keeps queue_full_until: every
slot before it was found taken or barred when the queue last passed it, and
stays so, for slots are freed only by a planned post leaving its place
(unscheduled, failed, moved to another time or channel, deleted) or by a
change of the channel's slots, zone or guards. The first is noted by the
database's triggers as a hole at the instant the post left (migration
0011_channel_rule_and_queue.sql); the second forgets queue_full_until
(channels/changes.py). So the search looks around each hole after the
start, then from queue_full_until on, a day at a time and then more, up to
90 days past the channel's last planned post, and moves queue_full_until
to the slot it takes there (once it has moved 12 hours of slots). A queue request costs the same with 100 posts queued as with
10,000 (`make bench`, planning).
"""

from datetime import timedelta

from content_publishing import timestamps
from content_publishing.errors import no_free_slot
from content_publishing.planning import clock
from content_publishing.planning.plan import ChannelPlan, channel_of
from content_publishing.store import channels as channel_store

HORIZON_DAYS = 90  # past the channel's last planned post (or the start, when later)
FIRST_STRETCH = timedelta(days=1)  # read from queue_full_until on; doubled while nothing is free
HOLES_AT_ONCE = 20
# queue_full_until is written when the queue has moved this far past it:
# about once every 7 requests with 14 slots a day, not on each.
SAVE_AFTER = timedelta(hours=12)


def first_free_slot(workspace_id, post, lead_seconds, now, plan=None):
    """Stored text of the first free slot for `post`, or no_free_slot (409).
    `plan`: the channel's ChannelPlan when the caller holds one (an import)."""
    channel_id = channel_of(post)
    given = plan is not None
    if plan is None:
        channel = channel_store.lock_channel(workspace_id, channel_id)
        if channel is None:
            raise no_free_slot(
                channel_id,
                f"Channel {channel_id} is not set up, so it has no posting slots: create it with "
                "POST /functions/v1/channels and give it slots.",
            )
        plan = ChannelPlan(workspace_id, channel)
    if not plan.channel["slots"]:
        raise no_free_slot(
            channel_id,
            f"Channel {channel_id} has no posting slots: add some with "
            f"PATCH /functions/v1/channels-item/{channel_id}.",
        )
    start = clock.parse(now) + timedelta(seconds=lead_seconds)
    moment = _search(plan, start, post["id"])
    if moment is None:
        raise no_free_slot(
            channel_id,
            f"Channel {channel_id} has no free slot that keeps to its guards in the "
            f"{HORIZON_DAYS} days after its last planned post.",
        )
    plan.take(post["id"], moment)
    if plan.full_until is None or moment > plan.full_until:
        plan.full_until = moment
    if not given:
        remember(plan, SAVE_AFTER)
    return timestamps.to_text(moment)


def remember(plan, after=timedelta(0)):
    """Write the plan's queue_full_until once it is `after` past what the
    channel holds (an import writes it once, after its rows). One behind the
    truth is only slower to search from; a row written on every request
    grows PostgreSQL's versions of it faster than they are pruned."""
    held = plan.channel.get("queue_full_until")
    if plan.full_until is None or (held and plan.full_until - clock.parse(held) < after):
        return
    if held and plan.full_until <= clock.parse(held):
        return
    text = timestamps.to_text(plan.full_until)
    channel_store.set_queue_full_until(plan.workspace_id, plan.channel["id"], text)
    plan.channel["queue_full_until"] = text


def _search(plan, start, post_id):
    full_until = plan.full_until
    if full_until is not None and start < full_until:
        if plan.channel.get("queue_hole"):  # read with the channel's lock
            moment = _in_holes(plan, start, full_until, post_id)
            if moment is not None:
                return moment
        start = full_until
    return _onwards(plan, start, post_id)


def _in_holes(plan, start, full_until, post_id):
    """The first free slot from `start` to `full_until`: one near an instant
    a planned post left. A hole near which nothing is free is forgotten."""
    workspace_id, channel_id = plan.workspace_id, plan.channel["id"]
    after = None
    while True:
        holes = channel_store.queue_holes(workspace_id, channel_id, after, HOLES_AT_ONCE)
        spent = []
        for text in holes:
            low, high = _freed_by(plan, clock.parse(text))
            moment = None
            if high > start:
                moment = plan.first_free(max(low, start), min(high, full_until), post_id)
            if moment is not None:
                _forget(plan, spent)
                return moment
            spent.append(text)
        _forget(plan, spent)
        if len(holes) < HOLES_AT_ONCE:
            return None
        after = holes[-1]


def _freed_by(plan, moment):
    """(low, high): the slots a post leaving `moment` may free, those within
    min_gap_minutes of it and those of its local day (daily_cap)."""
    day_start, day_end = clock.day_bounds(moment, plan.zone)
    return min(day_start, moment - plan.gap), max(day_end, moment + plan.gap + _TICK)


_TICK = timedelta(microseconds=1)


def _forget(plan, holes):
    if holes:
        channel_store.forget_queue_holes(plan.workspace_id, plan.channel["id"], holes)


def _onwards(plan, start, post_id):
    """The first free slot from `start` on, read a stretch at a time."""
    stretch, end_of_search = FIRST_STRETCH, None
    while True:
        end = start + stretch
        moment = plan.first_free(start, end, post_id)
        if moment is not None:
            return moment
        if end_of_search is None:
            last = channel_store.last_planned(plan.workspace_id, plan.channel["id"])
            known = [start, plan.latest()] + ([clock.parse(last)] if last else [])
            end_of_search = max(m for m in known if m is not None) + timedelta(days=HORIZON_DAYS)
        if end >= end_of_search:
            return None
        start, stretch = end, min(stretch * 2, end_of_search - end)
