"""Local weeks, weekdays and hours of a channel's zone, as whole numbers the
database can group by.

Each published post keeps the quarter-hour it went out in, counted from
1970 in UTC (post_metrics.published_quarter: epoch seconds // 900). Every
zone's offset from UTC since 1980 is a whole number of quarter-hours
(+05:30, +05:45 and -03:30 included), so a post's local quarter-hour is its
UTC one plus the zone's offset, in quarters, at that moment. The offsets
over a range are found here, with zoneinfo (the tzdata the rest of the
service reads), as periods: from this quarter-hour on, this offset. The
database adds the period's offset (store/analytics.py), so a post at 09:15
in Berlin counts as Monday 09:00 in winter and in summer alike. Shifted by
three days (1970-01-01 was a Thursday), local day 0 is a Monday, so local
weeks start on Monday:

    local        = quarter + offset + 3 days        (in quarter-hours)
    week         = local // (7 * 96)
    hour of week = local % (7 * 96) // 4             (0: Monday 00:00-00:59)
"""

import math
from datetime import date, datetime, timedelta

from content_publishing import timestamps

QUARTER = 900  # seconds
PER_DAY = 96
PER_WEEK = 7 * PER_DAY
PER_HOUR = 4
EPOCH_MONDAY = date(1969, 12, 29)  # local day 0 after the shift
PROBE = 6 * 3600  # seconds: no zone changes its offset twice within six hours


def quarter_of(text):
    """The quarter-hour since 1970 (UTC) of a stored timestamp."""
    return math.floor(timestamps.parse(text).timestamp()) // QUARTER


def _offset(where, second):
    return int(datetime.fromtimestamp(second, where).utcoffset().total_seconds())


def periods(where, start, end):
    """[(first quarter-hour, offset in quarter-hours)] of zone `where` from
    `start` to `end` (aware datetimes), in order; the first covers every
    quarter before the second period."""
    first, last = math.floor(start.timestamp()), math.floor(end.timestamp())
    found = [(first // QUARTER, _offset(where, first))]
    probe = first
    while probe < last:
        step = min(last, probe + PROBE)
        if _offset(where, step) != found[-1][1]:
            low, high = probe, step  # the offset changes in (low, high]
            while high - low > 1:
                middle = (low + high) // 2
                if _offset(where, middle) == found[-1][1]:
                    low = middle
                else:
                    high = middle
            found.append((-(-high // QUARTER), _offset(where, high)))
        probe = step
    return [(quarter, offset // QUARTER) for quarter, offset in found]


def week_index(moment, where):
    """The local week (Monday-start) that holds an aware datetime."""
    local_day = moment.astimezone(where).date()
    return (local_day - EPOCH_MONDAY).days // 7


def week_monday(index):
    """The local Monday that starts week `index`."""
    return EPOCH_MONDAY + timedelta(weeks=index)
