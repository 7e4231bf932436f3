"""Wall times in a channel's zone, and the instants they name.

A slot ("Monday 09:30") and a recurring post's instants are wall times in
the channel's zone, kept across daylight saving rather than drifting by an
hour twice a year. Where a wall time and the clock disagree:

- a wall time that does not exist that day (clocks spring forward over it)
  is skipped that day;
- an ambiguous one (clocks fall back and pass it twice) is taken once, at
  its first occurrence (fold 0).

Instants are aware datetimes in UTC; stored text is timestamps.to_text's.
"""

import functools
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@functools.lru_cache(maxsize=256)
def zone(name):
    return ZoneInfo(name)


def instant(wall, where):
    """The UTC instant of the naive wall time `wall` in zone `where`, or None
    when that wall time does not exist there (a spring-forward gap)."""
    aware = wall.replace(tzinfo=where, fold=0)
    utc = aware.astimezone(UTC)
    if utc.astimezone(where).replace(tzinfo=None) != wall:
        return None
    return utc


def wall(moment, where):
    """The naive wall time of an aware `moment` in zone `where`."""
    return moment.astimezone(where).replace(tzinfo=None)


def parse(text):
    """An aware UTC datetime from stored text."""
    return datetime.fromisoformat(text)


def day_bounds(moment, where):
    """(start, end) instants of the local calendar day that holds `moment`:
    23 or 25 hours long on the days the clocks change."""
    day = wall(moment, where).date()
    start = datetime.combine(day, time(0)).replace(tzinfo=where).astimezone(UTC)
    end = datetime.combine(day + timedelta(days=1), time(0)).replace(tzinfo=where).astimezone(UTC)
    return start, end


def slot_instants(slots, where, start, end):
    """The instants of weekly `slots` ([{day, time}]) in zone `where` with
    start <= instant < end, in time order, one at a time: the queue stops
    at the first free one. Wall times in day and time order name instants
    in time order: a skipped wall time is left out, and an ambiguous one
    taken at its first occurrence is earlier than every later wall time."""
    weekly = _weekly(tuple((slot["day"], slot["time"]) for slot in slots))
    day = wall(start, where).date() - timedelta(days=1)  # a slot late the day before may fall in
    last = wall(end, where).date()
    while day <= last:
        for at in weekly[day.weekday()]:
            moment = instant(datetime.combine(day, at), where)
            if moment is None or moment < start:
                continue
            if moment >= end:
                return
            yield moment
        day += timedelta(days=1)


@functools.lru_cache(maxsize=256)
def _weekly(slots):
    """The times of each weekday (0 = Monday) of `slots` ((day, "HH:MM")
    pairs), sorted: read once per set of slots, not per request."""
    by_day = [[] for _ in DAYS]
    for day, text in slots:
        hours, minutes = map(int, text.split(":"))
        by_day[DAYS.index(day)].append(time(hours, minutes))
    return tuple(tuple(sorted(times)) for times in by_day)
