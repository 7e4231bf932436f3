"""Recurring posts: the next occurrence of a series, made when one finishes.

A post with `repeat` (an RRULE, schemas/recurrence.py) is the first
occurrence of a series; its scheduled_at, read in its channel's zone (UTC
when the channel is not set up), is the rule's start (DTSTART). When an
occurrence first reaches Published or Failed, the next one is created in the
same transaction, as a new Scheduled post with the same content, media,
type, channel and repeat, at the rule's next instant that is strictly after
both the finished occurrence's scheduled_at and now plus the lead time.

- Instants whose time has passed are skipped, never created late: a series
  never fires a burst, however long the service was down.
- An instant whose wall time does not exist (spring forward) is skipped; an
  ambiguous one (fall back) is taken at its first occurrence (clock.py).
- COUNT counts the rule's instants with the start among them, as RFC 5545
  says (the rule's own dates leave out a start that does not match it).
- The series ends when the rule does, when the next instant breaks one of
  the channel's guards or its text is too long for LinkedIn (the reason
  goes into the finished post's last_error), or when the current Scheduled occurrence is deleted or its
  repeat set to null (nothing is left to finish).

Each occurrence continues the series once (posts.series_continued): a
Failed occurrence that is retried and published later makes nothing more.
"""

import itertools
from datetime import UTC, datetime, time, timedelta

from content_publishing import linkedin, timestamps
from content_publishing.planning import clock, periods
from content_publishing.planning.plan import ChannelPlan, channel_of
from content_publishing.schemas.recurrence import read_rule
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store
from content_publishing.store import workspaces as workspace_store

UTC_ZONE = clock.zone("UTC")


def instants(repeat, start, where, after=None):
    """The series' instants in order (aware UTC), from `start` (an aware
    instant, the first) on, in zone `where`; ends with the rule. `after`
    (an aware instant): only those after it are wanted, and the search for
    them is bounded (periods.py): NoDate when the rule names none within
    its budget."""
    rule = read_rule(repeat)
    count = rule.get("COUNT")
    until = rule.get("UNTIL")
    first = clock.wall(start, where)
    limit = None if until is None else _local_until(until, where)
    if limit is not None and first > limit:
        return
    wanted = None if after is None else clock.wall(after, where)
    walls = itertools.chain([first], periods.walls(rule, first, wanted, limit))
    for n, wall in enumerate(walls, start=1):
        if count is not None and n > count:
            return
        moment = clock.instant(wall, where)
        if moment is not None:  # a wall time in a spring-forward gap is skipped
            yield moment


def _local_until(until, where):
    """UNTIL as the naive wall time it bounds: a date is that whole local day."""
    if isinstance(until, datetime):
        return clock.wall(until.replace(tzinfo=UTC), where)
    return datetime.combine(until, time(23, 59, 59, 999999))


def next_instant(repeat, start, where, after):
    """The first instant of the series strictly after `after`, or None when
    the rule has ended; NoDate when it names none within its budget."""
    for moment in instants(repeat, start, where, after):
        if moment > after:
            return moment
    return None


def continuation(workspace_id, post, lead_seconds, now):
    """What finishing `post` (Published or Failed now) does to its series:
    (fields of the next occurrence or None, why the series stops or None).
    Locks the channel's row when there is one, as every scheduling does."""
    if not linkedin.fits(post["content"]):
        return None, f"The series stopped: {linkedin.too_long(post['content'])}"
    if not post.get("approved_by") and workspace_store.approvals_required(
        workspace_id, channel_of(post)
    ):
        return None, (
            "The series stopped: this workspace requires approvals and the series has none; "
            "submit its post for review to start it again."
        )
    channel = channel_store.lock_channel(workspace_id, channel_of(post))
    stopped = _profile_stops(channel, post)
    if stopped:
        return None, stopped
    where = clock.zone(channel["timezone"]) if channel else UTC_ZONE
    start = clock.parse(post["series_start"] or post["scheduled_at"])
    after = max(
        clock.parse(post["scheduled_at"]),
        clock.parse(now) + timedelta(seconds=lead_seconds),
    )
    try:
        moment = next_instant(post["repeat"], start, where, after)
    except periods.NoDate as e:
        return None, (
            f"The series stopped: looking for its next occurrence after "
            f"{timestamps.to_text(after)}, {e}."
        )
    if moment is None:
        return None, None
    if channel is not None:
        found = ChannelPlan(workspace_id, channel).breach(moment, post["id"])
        if found:
            return None, (
                f"The series stopped: its next occurrence, {timestamps.to_text(moment)}, "
                f"would break a guard of channel {channel['id']}: {found[2]}"
            )
    return {
        **{name: post[name] for name in post_store.CARRIED},
        "repeat": post["repeat"],
        "status": "Scheduled",
        "scheduled_at": timestamps.to_text(moment),
        "series_id": post["series_id"],
        "occurrence": post["occurrence"] + 1,
        "series_start": post["series_start"] or post["scheduled_at"],
        "created_by": post.get("created_by"),  # the series' author writes each occurrence
        # each occurrence is approved by the approval of the series' text
        "approved_by": post.get("approved_by"),
        "approved_at": post.get("approved_at"),
        "reviewed_by": post.get("reviewed_by"),
    }, None


def _profile_stops(channel, post):
    """Why a series on a person's profile stops, or None: the member left
    the workspace, or it is a colleague's series they never approved
    (posts/approvals.py's rules, read from the locked channel)."""
    member = channel["member"] if channel else None
    if member is None:
        return None
    if member["removed_at"] is not None:
        return (
            f"The series stopped: channel {channel['id']} is the profile of {member['name']}, "
            "who left the workspace."
        )
    if member["id"] != post.get("created_by") and post.get("approved_by") != member["id"]:
        return (
            f"The series stopped: it goes out on {member['name']}'s profile, and "
            f"{member['name']} has not approved it."
        )
    return None
