"""Local weeks, weekdays and hours of a channel's zone, as whole numbers the
database can group by.

A post's local second is its epoch second plus the zone's UTC offset at
that instant. The offsets over a range are found here, with zoneinfo (the
tzdata the rest of the service reads), as periods: from this epoch second
on, this offset. The database adds the period's offset to each post
(store/analytics.py), so a post at 09:15 in Berlin counts as Monday 09:00
in winter and in summer alike, and a zone half an hour off UTC is read
right too. Shifted by three days (1970-01-01 was a Thursday), local day 0 is
a Monday, so local weeks start on Monday:

    week         = (local second + 3 days) // 7 days
    hour of week = (local second + 3 days) % 7 days // 1 hour    (0: Monday 00:00-00:59)
"""

import math
from datetime import date, datetime, timedelta

MONDAY_SHIFT = 3 * 86400
WEEK = 7 * 86400
HOUR = 3600
EPOCH_MONDAY = date(1969, 12, 29)  # local day 0 after the shift
PROBE = timedelta(hours=6)  # no zone changes its offset twice within six hours


def epoch(moment):
    """Whole seconds since 1970 of an aware datetime (rounded down)."""
    return math.floor(moment.timestamp())


def offset(where, second):
    return int(datetime.fromtimestamp(second, where).utcoffset().total_seconds())


def periods(where, start, end):
    """[(first epoch second, UTC offset in seconds)] of zone `where` from
    `start` to `end` (aware datetimes), in order; the first covers every
    second before the second period."""
    first, last = epoch(start), epoch(end)
    found = [(first, offset(where, first))]
    probe = first
    while probe < last:
        step = min(last, probe + int(PROBE.total_seconds()))
        if offset(where, step) != found[-1][1]:
            low, high = probe, step  # the offset changes in (low, high]
            while high - low > 1:
                middle = (low + high) // 2
                if offset(where, middle) == found[-1][1]:
                    low = middle
                else:
                    high = middle
            found.append((high, offset(where, high)))
        probe = step
    return found


def week_index(moment, where):
    """The local week (Monday-start) that holds an aware datetime."""
    local_day = moment.astimezone(where).date()
    return (local_day - EPOCH_MONDAY).days // 7


def week_monday(index):
    """The local Monday that starts week `index`."""
    return EPOCH_MONDAY + timedelta(weeks=index)
