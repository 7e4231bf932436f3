"""The dates a repeat rule names (schemas/recurrence.py's part of RFC 5545's
RRULE), period by period, with a bound on the work.

A rule's periods are days (DAILY), weeks from Monday (WEEKLY) or months
(MONTHLY), every INTERVAL-th one from the start's. In each period the rule
names its dates, RFC 5545's way:

    DAILY     the period's day, if it is one of BYDAY and BYMONTHDAY (each a limit)
    WEEKLY    the week's BYDAY days (the start's weekday without BYDAY)
    MONTHLY   the month's BYMONTHDAY days, or its BYDAY days (1MO: the first
              Monday, -1FR: the last Friday; MO: every Monday), or those of
              both when both are given; the start's day of the month without
              either (a month without that day has none)

every one at the start's time of day. A BYDAY list is a union: MO,1FR is
every Monday and the first Friday (python-dateutil, which the service used
before, read it as days that are both, which is none).

The work is bounded: a rule whose dates are rare or none at all (the 30th
that is the first Monday) would otherwise be searched to the year 9999.
`walls` looks at most `budget` periods from the one that holds `after`, and
raises NoDate when they name no date it was asked for (a MONTHLY rule
whose BYMONTHDAY and BYDAY never meet is refused when it is saved:
schemas/recurrence.py). Periods before
`after` are only walked when COUNT needs the dates before it counted, and
then only from the series' start, which was a time it was scheduled for.
"""

import calendar
import functools
import itertools
from datetime import date, datetime, timedelta

from content_publishing.schemas.recurrence import WEEKDAYS, month_pattern, never_matches, resolved

BUDGET = 1000  # periods looked at per series and request, from the one that holds `after`
UNITS = {"DAILY": "days", "WEEKLY": "weeks", "MONTHLY": "months"}
CYCLE = 400 * 12  # months, after which the calendar repeats itself


class NoDate(Exception):
    """The budget ran out before the rule named a date after `after`, or
    the rule names none at all (`periods` 0)."""

    def __init__(self, rule, periods):
        unit = UNITS[rule["FREQ"]]
        super().__init__(
            f"its rule names no date in the {periods:,} {unit} searched"
            if periods
            else "its rule names no date in any month (its BYMONTHDAY and BYDAY never meet)"
        )


def walls(rule, first, after=None, until=None, budget=BUDGET):
    """The naive wall times the rule names strictly after `first` (its
    start, a naive wall time), in order, up to `until` (a naive wall time)
    or the year 9999. `after`: the caller wants dates after this wall time
    only; for a rule without COUNT the periods that end before it are
    skipped, not walked. NoDate once `budget` periods from the one that
    holds `after` (the start's without it) have been looked at."""
    if never_matches(rule):  # stored before such a rule was refused
        raise NoDate(rule, 0)
    interval = rule.get("INTERVAL", 1)
    days = _pattern(rule, first)
    horizon = 0 if after is None else _periods_before(rule, first, after, interval)
    at = first.time().replace(microsecond=0)  # as python-dateutil had it
    tried = 0
    for period in itertools.count(0 if "COUNT" in rule else horizon):
        found = days(period * interval)
        if found is None:  # past the year 9999
            return
        begins, dates = found
        if until is not None and begins > until.date():
            return
        for day in dates:
            wall = datetime.combine(day, at)
            if wall <= first:
                continue
            if until is not None and wall > until:
                return
            yield wall
        if period >= horizon:
            tried += 1
            if tried >= budget:
                raise NoDate(rule, budget)


def _periods_before(rule, first, after, interval):
    """How many whole periods of the rule end before `after`, less two (a
    wall time and an instant may differ by a day's hours)."""
    if rule["FREQ"] == "DAILY":
        units = (after.date() - first.date()).days
    elif rule["FREQ"] == "WEEKLY":
        units = (_monday(after.date()) - _monday(first.date())).days // 7
    else:
        units = (after.year * 12 + after.month) - (first.year * 12 + first.month)
    return max(0, units // interval - 2)


def _monday(day):
    return day - timedelta(days=day.weekday())


def _pattern(rule, first):
    """days(k): (the first day of the period k units after the start's, the
    dates the rule names in it, sorted); None past the year 9999."""
    start = first.date()
    if rule["FREQ"] == "DAILY":
        allowed = _day_filter(rule)

        def daily(k):
            try:
                day = start + timedelta(days=k)
            except OverflowError:
                return None
            return day, [day] if allowed(day) else []

        return daily
    if rule["FREQ"] == "WEEKLY":
        offsets = sorted({WEEKDAYS[d] for d in rule.get("BYDAY", ())} or {start.weekday()})
        monday = _monday(start)

        def weekly(k):
            try:
                week = monday + timedelta(weeks=k)
                return week, [week + timedelta(days=n) for n in offsets]
            except OverflowError:
                return None

        return weekly
    month_days = month_pattern(
        tuple(rule.get("BYMONTHDAY", ())), tuple(rule.get("BYDAY", ())), start.day
    )
    origin = start.year * 12 + start.month - 1

    def monthly(k):
        year, month = divmod(origin + k, 12)
        if year > 9999:
            return None
        named = month_days(*_kinds()[(origin + k) % CYCLE])
        return date(year, month + 1, 1), [date(year, month + 1, d) for d in named]

    return monthly


@functools.cache
def _kinds():
    """(length, weekday of the 1st) of every month of a 400-year cycle, by
    (year * 12 + month - 1) % CYCLE: after 400 years the Gregorian calendar's
    leap years and weekdays repeat, so a month's kind is a look-up."""
    found = [None] * CYCLE
    for year in range(2000, 2400):
        for month in range(12):
            first_weekday, length = calendar.monthrange(year, month + 1)
            found[(year * 12 + month) % CYCLE] = (length, first_weekday)
    return found


def _day_filter(rule):
    """A DAILY rule's limits: the day's weekday in BYDAY, its day of the
    month in BYMONTHDAY (a negative one counted from the month's end)."""
    weekdays = {WEEKDAYS[d] for d in rule.get("BYDAY", ())}
    month_days = rule.get("BYMONTHDAY")

    def allowed(day):
        if weekdays and day.weekday() not in weekdays:
            return False
        if month_days:
            length = calendar.monthrange(day.year, day.month)[1]
            return day.day in resolved(month_days, length)
        return True

    return allowed
