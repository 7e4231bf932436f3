"""A channel's planned posts in memory: which slots are free, and whether a
time keeps to the channel's guards.

The guards, over the channel's Scheduled, Publishing and Published posts
and every planned occurrence of its series still going (those not yet
rows: a series makes its next occurrence when one finishes,
recurrence.py):

- no two posts of the channel in one minute, whatever its other guards;
- min_gap_minutes: no other such post closer in time than that;
- daily_cap: at most that many in one local day of the channel's zone.

A series' planned occurrence counts as its current occurrence's post (its
id), so that moving that post leaves its own series out of its way.

A ChannelPlan reads the posts around the times it is asked about once, and
keeps what it is told is taken since, so that a queue (90 days of slots) or
an import (rows in order, each seeing the rows before it) checks every
instant without a query each. It is built inside the transaction that holds
the channel's row lock (store.channels.lock_channel), so the posts it read
stay the channel's posts until the change commits.
"""

import bisect
from datetime import timedelta

from content_publishing import timestamps
from content_publishing.errors import schedule_conflict
from content_publishing.planning import clock
from content_publishing.store import channels as channel_store


def check_guards(workspace_id, post_id, channel_id, scheduled_at):
    """schedule_conflict (409) if planning the post at `scheduled_at` (stored
    text) breaks a guard of its channel; nothing for a channel not set up.
    Locks the channel's row (inside the caller's transaction)."""
    channel = channel_store.lock_channel(workspace_id, channel_id)
    if channel is not None:
        ChannelPlan(workspace_id, channel).check(clock.parse(scheduled_at), post_id)


def channel_of(post):
    """The channel a post belongs to: the channel_id it carries (the rule of
    type and brand_id placed it there when it named none: channels/
    placement.py). Its row lock, its guards (store.channels.CHANNEL_OF_POST,
    the same in SQL) and its author all go by this."""
    return post["channel_id"]


class ChannelPlan:
    def __init__(self, workspace_id, channel, series=True):
        """`series`: count the live series' occurrences to come (the
        forecast, which works them out itself, says not to)."""
        self.workspace_id = workspace_id
        self.channel = channel
        self.zone = clock.zone(channel["timezone"])
        self.gap = timedelta(minutes=channel["min_gap_minutes"])
        self.cap = channel["daily_cap"]
        self.spans = []  # (start, end) already read, apart and in order
        self.at = {}  # post id -> instant
        self.order = []  # (instant, post id), sorted: the planned posts in time order
        self.series = None if series else []  # the live series, read when first needed
        full = channel.get("queue_full_until")
        self.full_until = clock.parse(full) if full else None  # planning/queue.py

    # --- what is planned -----------------------------------------------------------

    def cover(self, start, end):
        """Read the channel's planned posts from `start` to `end` (and what
        the guards of those times need around them), unless read already."""
        start = min(start - self.gap, clock.day_bounds(start, self.zone)[0])
        end = max(end + self.gap, clock.day_bounds(end, self.zone)[1])
        for s, e in self.spans:  # read only what no earlier read covered
            if s <= start < e:
                start = e
            if s < end <= e:
                end = s
        if start >= end:
            return
        for row in channel_store.planned_between(
            self.workspace_id,
            self.channel["id"],
            timestamps.to_text(start),
            timestamps.to_text(end),
        ):
            if row["id"] not in self.at:
                self.take(row["id"], clock.parse(row["scheduled_at"]))
        for post_id, moment in self._occurrences(start, end):
            bisect.insort(self.order, (moment, post_id))
        self._covered(start, end)

    def _occurrences(self, start, end):
        """(post id, instant) of the live series' occurrences to come, with
        start <= instant < end: each after its current occurrence."""
        from content_publishing.planning import periods, recurrence  # recurrence uses plans

        if self.series is None:
            self.series = channel_store.live_series(self.workspace_id, self.channel["id"])
        for row in self.series:
            current = clock.parse(row["scheduled_at"])
            first = clock.parse(row["series_start"] or row["scheduled_at"])
            after = max(start, current)
            try:
                for moment in recurrence.instants(row["repeat"], first, self.zone, after):
                    if moment >= end:
                        break
                    if moment > current and moment >= start:
                        yield row["id"], moment
            except periods.NoDate:  # a rule that names no date soon names none here
                continue

    def _covered(self, start, end):
        spans = []
        for s, e in sorted([*self.spans, (start, end)]):
            if spans and s <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(e, spans[-1][1]))
            else:
                spans.append((s, e))
        self.spans = spans

    def latest(self):
        """The instant of the latest planned post this plan knows of, or None."""
        return self.order[-1][0] if self.order else None

    def take(self, post_id, moment):
        """`post_id` is now planned at `moment` (a row of an import, a queued post)."""
        if post_id in self.at:
            self.order.remove((self.at[post_id], post_id))
        self.at[post_id] = moment
        bisect.insort(self.order, (moment, post_id))

    def between(self, start, end, post_id=None):
        """Ids of planned posts with start <= instant < end, but `post_id`."""
        low = bisect.bisect_left(self.order, (start, ""))
        high = bisect.bisect_left(self.order, (end, ""))
        return [i for _, i in self.order[low:high] if i != post_id]

    def occupant(self, moment):
        """The id of a planned post at exactly `moment`, or None."""
        self.cover(moment, moment)
        found = self.between(moment, moment + timedelta(microseconds=1))
        return found[0] if found else None

    # --- the guards ----------------------------------------------------------------

    def breach(self, moment, post_id=None):
        """None, or (rule, conflicting post ids, message) if planning `post_id`
        at `moment` breaks a guard."""
        self.cover(moment, moment)
        minute = moment.replace(second=0, microsecond=0)
        same = sorted(set(self.between(minute, minute + timedelta(minutes=1), post_id)))
        if same:
            return (
                "same_minute",
                same,
                f"Another post of channel {self.channel['id']} goes out at "
                f"{timestamps.to_text(minute)[:16].replace('T', ' ')} UTC: no two posts of "
                "a channel share a minute.",
            )
        if self.gap:
            tick = timedelta(microseconds=1)  # "closer than the gap": the ends are allowed
            near = sorted(set(self.between(moment - self.gap + tick, moment + self.gap, post_id)))
            if near:
                minutes = self.channel["min_gap_minutes"]
                return (
                    "min_gap_minutes",
                    near,
                    f"Another post of channel {self.channel['id']} is planned less than "
                    f"{minutes} minutes from {timestamps.to_text(moment)} (min_gap_minutes).",
                )
        if self.cap:
            start, end = clock.day_bounds(moment, self.zone)
            same_day = sorted(self.between(start, end, post_id))  # each occurrence counts
            if len(same_day) >= self.cap:
                day = clock.wall(moment, self.zone).date().isoformat()
                return (
                    "daily_cap",
                    same_day,
                    f"Channel {self.channel['id']} already has {len(same_day)} posts planned on "
                    f"{day} ({self.channel['timezone']}), its daily_cap.",
                )
        return None

    def check(self, moment, post_id=None):
        """schedule_conflict (409) if planning `post_id` at `moment` breaks a guard."""
        found = self.breach(moment, post_id)
        if found:
            rule, conflicting, message = found
            raise schedule_conflict(self.channel["id"], rule, conflicting, message)

    def first_free(self, start, end, post_id=None):
        """The first slot instant from `start` (inclusive) to `end` that no
        planned post holds and that keeps to the guards, or None."""
        self.cover(start, end)
        for moment in clock.slot_instants(self.channel["slots"], self.zone, start, end):
            if self.occupant(moment) is None and self.breach(moment, post_id) is None:
                return moment
        return None
