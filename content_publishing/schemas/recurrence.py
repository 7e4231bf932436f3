"""The `repeat` of a recurring post: the part of RFC 5545's RRULE it accepts.

    FREQ=DAILY|WEEKLY|MONTHLY        required
    INTERVAL=n                       1-999
    BYDAY=MO,WE,...                  MONTHLY may give an ordinal: 1MO, -1FR (1-5, -1 to -5)
    BYMONTHDAY=1,15,-1               1-31 or -1 to -31; not with WEEKLY (RFC 5545)
    COUNT=n                          1-10000: the series' instants, its first included
    UNTIL=20261231 | 20261231T170000Z   the last day (local), or the last moment (UTC)

At most one of COUNT and UNTIL (RFC 5545 forbids both). Names are
case-insensitive; each at most once. Anything else (HOURLY, BYHOUR,
BYSETPOS, a second rule) is refused with a message naming what, so that no
rule the service would read differently from the client is stored. The rule
is checked here, before planning/periods.py, which finds its dates, is
handed values it would loop on for ever (INTERVAL=0) or take another way.
A MONTHLY rule whose BYMONTHDAY and BYDAY never meet (the 30th that is the
first Monday) is refused too: it names no date in any month, whatever its
start (`never_matches`, from the days each kind of month holds: its length
and the weekday of its 1st).
"""

import functools
import re
from datetime import date, datetime

from marshmallow import ValidationError, fields

FREQS = ("DAILY", "WEEKLY", "MONTHLY")
DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
WEEKDAYS = {day: n for n, day in enumerate(DAYS)}  # Monday 0, as datetime counts them
MAX_LENGTH = 300
_DAY = re.compile(r"([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)")
_MONTH_DAY = re.compile(r"[+-]?(?:[1-9]|[12][0-9]|3[01])")
_UNTIL_DATE = re.compile(r"[0-9]{8}")
_UNTIL_UTC = re.compile(r"[0-9]{8}T[0-9]{6}Z")


def parse_rule(text):
    """The rule as {name: value} with normalised values, or ValidationError;
    a rule whose BYMONTHDAY and BYDAY never meet is refused."""
    rule = read_rule(text)
    if never_matches(rule):
        raise ValidationError(
            f"BYMONTHDAY={','.join(map(str, rule['BYMONTHDAY']))} and "
            f"BYDAY={','.join(rule['BYDAY'])} never meet: no month has such a day, so the "
            "series would never repeat."
        )
    return rule


def read_rule(text):
    """The rule as parse_rule reads it, without refusing one that never
    meets: what a series stored before that check holds is still read."""
    if not isinstance(text, str) or not text.strip():
        raise ValidationError("Give a rule such as FREQ=WEEKLY;BYDAY=MO,WE.")
    if len(text) > MAX_LENGTH:
        raise ValidationError(f"Longer than {MAX_LENGTH} characters.")
    parts = _parts(text.strip())
    rule = {"FREQ": _freq(parts.get("FREQ"))}
    if "INTERVAL" in parts:
        rule["INTERVAL"] = _number(parts["INTERVAL"], "INTERVAL", 1, 999)
    if "BYDAY" in parts:
        rule["BYDAY"] = _by_day(parts["BYDAY"], rule["FREQ"])
    if "BYMONTHDAY" in parts:
        if rule["FREQ"] == "WEEKLY":
            raise ValidationError("BYMONTHDAY cannot be used with FREQ=WEEKLY (RFC 5545).")
        rule["BYMONTHDAY"] = _month_days(parts["BYMONTHDAY"])
    if "COUNT" in parts and "UNTIL" in parts:
        raise ValidationError("Give COUNT or UNTIL, not both (RFC 5545).")
    if "COUNT" in parts:
        rule["COUNT"] = _number(parts["COUNT"], "COUNT", 1, 10000)
    if "UNTIL" in parts:
        rule["UNTIL"] = _until(parts["UNTIL"])
    return rule


def _parts(body):
    """{NAME: VALUE} of `NAME=VALUE;...` (an `RRULE:` prefix allowed), each
    name known and given once."""
    if body.upper().startswith("RRULE:"):
        body = body[len("RRULE:") :]
    parts = {}
    for part in body.split(";"):
        name, sep, value = part.partition("=")
        name = name.strip().upper()
        if not sep or not name or not value.strip():
            raise ValidationError(f"{part!r} is not NAME=VALUE.")
        if name in parts:
            raise ValidationError(f"{name} is given more than once.")
        parts[name] = value.strip().upper()
    unknown = sorted(parts.keys() - {"FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "COUNT", "UNTIL"})
    if unknown:
        raise ValidationError(
            f"{', '.join(unknown)} not supported: use FREQ, INTERVAL, BYDAY, BYMONTHDAY, "
            "and COUNT or UNTIL."
        )
    return parts


def rule_text(rule):
    """The normalised spelling of a parsed rule (what is stored and returned)."""
    return ";".join(
        f"{name}={','.join(map(str, value)) if isinstance(value, list) else _plain(value)}"
        for name, value in rule.items()
    )


def _plain(value):
    if isinstance(value, datetime):
        return value.strftime("%Y%m%dT%H%M%SZ")
    if isinstance(value, date):
        return value.strftime("%Y%m%d")
    return str(value)


def _freq(value):
    if value is None:
        raise ValidationError("FREQ is required: DAILY, WEEKLY or MONTHLY.")
    if value not in FREQS:
        raise ValidationError(f"FREQ={value} not supported: use DAILY, WEEKLY or MONTHLY.")
    return value


def _number(value, name, low, high):
    if not re.fullmatch(r"[0-9]{1,6}", value) or not low <= int(value) <= high:
        raise ValidationError(f"{name} must be a whole number from {low} to {high}.")
    return int(value)


def _by_day(value, freq):
    days = []
    for item in value.split(","):
        match = _DAY.fullmatch(item.strip())
        if not match:
            raise ValidationError(f"BYDAY: {item!r} is not a day (MO, TU, WE, TH, FR, SA, SU).")
        if match[1] and freq != "MONTHLY":
            raise ValidationError(f"BYDAY: {item} has an ordinal, which only FREQ=MONTHLY takes.")
        if match[1] and int(match[1]) == 0:
            raise ValidationError(f"BYDAY: {item} has an ordinal of 0.")
        days.append(item.strip())
    if len(set(days)) != len(days):
        raise ValidationError("BYDAY names a day twice.")
    return days


def _month_days(value):
    found = []
    for item in value.split(","):
        if not _MONTH_DAY.fullmatch(item.strip()):
            raise ValidationError(f"BYMONTHDAY: {item!r} is not 1-31 or -1 to -31.")
        found.append(int(item))
    if len(set(found)) != len(found):
        raise ValidationError("BYMONTHDAY names a day twice.")
    return found


def _until(value):
    try:
        if _UNTIL_DATE.fullmatch(value):
            return datetime.strptime(value, "%Y%m%d").date()
        if _UNTIL_UTC.fullmatch(value):
            return datetime.strptime(value, "%Y%m%dT%H%M%SZ")
    except ValueError:
        raise ValidationError(f"UNTIL={value} is not a real date.") from None
    raise ValidationError(
        f"UNTIL={value} must be a date (20261231, through that day in the channel's zone) "
        "or a UTC time (20261231T170000Z)."
    )


class Repeat(fields.String):
    """A `repeat` rule; stored and returned in its normalised spelling."""

    def __init__(self, **kwargs):
        super().__init__(
            allow_none=True,
            metadata={
                "description": "An RFC 5545 RRULE: FREQ=DAILY|WEEKLY|MONTHLY with INTERVAL, "
                "BYDAY, BYMONTHDAY, and COUNT or UNTIL, such as FREQ=WEEKLY;BYDAY=MO,TH;COUNT=8. "
                "The post's scheduled_at is the first occurrence. Null: not recurring.",
                "example": "FREQ=WEEKLY;BYDAY=MO,TH;COUNT=8",
                "maxLength": MAX_LENGTH,
            },
            **kwargs,
        )

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        return rule_text(parse_rule(text))


# --- the days of a month a rule names (planning/periods.py walks them) -----------------


def resolved(month_days, length):
    """BYMONTHDAY values as days of a month of `length` days."""
    return {d if d > 0 else length + d + 1 for d in month_days if abs(d) <= length}


@functools.lru_cache(maxsize=256)
def month_pattern(month_days, by_day, start_day):
    """days(length, first_weekday): a MONTHLY rule's days of a month, which
    depend only on its length and the weekday of its 1st (28 kinds)."""

    @functools.cache
    def days(length, first_weekday):
        chosen = None
        if month_days:
            chosen = resolved(month_days, length)
        if by_day:
            named = _weekdays_of_month(by_day, length, first_weekday)
            chosen = named if chosen is None else chosen & named
        if chosen is None:
            chosen = {start_day} if start_day <= length else set()
        return sorted(chosen)

    return days


def _weekdays_of_month(by_day, length, first_weekday):
    """The days of a month that BYDAY names: every such weekday, or the
    n-th one (from the end when n is negative)."""
    named = set()
    for item in by_day:
        ordinal, weekday = item[:-2], WEEKDAYS[item[-2:]]
        matching = [d for d in range(1, length + 1) if (first_weekday + d - 1) % 7 == weekday]
        if not ordinal:
            named.update(matching)
        elif -len(matching) <= int(ordinal) <= len(matching):
            n = int(ordinal)
            named.add(matching[n - 1 if n > 0 else n])
    return named


def never_matches(rule):
    """Whether a MONTHLY rule names no day of any month whatever its start:
    BYMONTHDAY and BYDAY that never meet (the 30th that is a first Monday).
    Every kind of month (its length, the weekday of its 1st) is tried."""
    if rule["FREQ"] != "MONTHLY" or not (rule.get("BYMONTHDAY") and rule.get("BYDAY")):
        return False
    days = month_pattern(tuple(rule["BYMONTHDAY"]), tuple(rule["BYDAY"]), 1)
    return not any(days(length, weekday) for length in (28, 29, 30, 31) for weekday in range(7))
