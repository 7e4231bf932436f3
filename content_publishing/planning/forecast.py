"""A series' coming occurrences: the repeats that are planned but not yet posts.

A recurring series holds one post at a time ahead of now (recurrence.py):
its next occurrence is made only when the current one finishes. A calendar
that showed posts alone would show the first Monday of a weekly series and
leave the next ones empty, so this module works out, for a range of time,
where each series will go next, by the same rule that will make those
posts: the rule's instants after both the current occurrence's scheduled_at
and now plus the lead time, in the channel's zone, counted from the series'
start (COUNT, UNTIL), skipping the wall times daylight saving removes.

The search is bounded (periods.py): a rule that names no date within its
budget of periods from now shows no repeats, rather than keeping the
request searching to the year 9999.

A repeat that would break one of its channel's guards ends the series when
its turn comes (recurrence.continuation); the forecast says so on that
repeat (`stops`) and shows none after it. It reckons with the posts planned
now and the other repeats it foresees; what is planned later may change
that.
"""

import heapq
import itertools
from datetime import timedelta

from content_publishing import timestamps
from content_publishing.planning import clock, periods
from content_publishing.planning.plan import ChannelPlan, channel_of
from content_publishing.planning.recurrence import UTC_ZONE, instants
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store

MOST = 1000  # repeats in one answer; a month of a daily series is 31


def planned_repeats(workspace_id, start, end, lead_seconds, now):
    """([repeat, ...] soonest first, more): the coming occurrences of the
    workspace's series with start <= scheduled_at < end (aware instants), at most
    MOST; `more` when the range holds more than that."""
    heads = post_store.series_heads(workspace_id, timestamps.to_text(end))
    plans = {}
    earliest = clock.parse(now) + timedelta(seconds=lead_seconds)
    found = []
    for head in heads:
        plan = _plan_for(workspace_id, channel_of(head), plans, earliest, end)
        found.append(_repeats(head, plan, earliest, start, end))
    merged = heapq.merge(*found, key=lambda r: (r["scheduled_at"], r["series_id"]))
    listed = list(itertools.islice(merged, MOST + 1))
    return listed[:MOST], len(listed) > MOST


def _plan_for(workspace_id, channel_id, plans, earliest, end):
    """The channel's ChannelPlan, its posts up to `end` read once; None for
    a channel that is not set up (no guards, UTC)."""
    if channel_id not in plans:
        channel = channel_store.get_channel(workspace_id, channel_id)
        # the repeats are this module's to foresee, each series' after its own
        plans[channel_id] = ChannelPlan(workspace_id, channel, series=False) if channel else None
        if plans[channel_id] and earliest < end:
            plans[channel_id].cover(earliest, end)
    return plans[channel_id]


def _repeats(head, plan, earliest, start, end):
    """The repeats of `head`'s series from start to end, in time order."""
    where = plan.zone if plan else UTC_ZONE
    after = max(clock.parse(head["scheduled_at"]), earliest)
    first = clock.parse(head["series_start"] or head["scheduled_at"])
    occurrence = head["occurrence"] or 1
    shown = []
    try:
        for moment in instants(head["repeat"], first, where, after):
            if moment >= end:
                break
            if moment <= after:
                continue
            occurrence += 1
            stops = _planned(head, plan, moment, occurrence)
            if moment >= start:
                shown.append(_repeat(head, moment, occurrence, stops))
            if stops:
                break
    except periods.NoDate:  # no more repeats within the search's bound: none shown
        pass
    return shown


def _planned(head, plan, moment, occurrence):
    """None, or why the series stops at this repeat (a guard it would break);
    a repeat that breaks none takes its place in the channel's plan."""
    if plan is None:
        return None
    breach = plan.breach(moment)
    if breach:
        return f"The series stops here: this repeat would break a guard. {breach[2]}"
    plan.take(f"repeat {head['series_id']} {occurrence}", moment)
    return None


def _repeat(head, moment, occurrence, stops):
    return {
        "series_id": head["series_id"],
        "post_id": head["id"],
        "occurrence": occurrence,
        "scheduled_at": timestamps.to_text(moment),
        "channel_id": head["channel_id"],
        "type": head["type"],
        "brand_id": head["brand_id"],
        "content": head["content"],
        "media_urls": head["media_urls"],
        "repeat": head["repeat"],
        "stops": stops,
    }
