"""RFC 3339 timestamps as the service reads, stores and returns them.

Input is RFC 3339 section 5.6 `date-time` and nothing else: a `T` (or `t`)
between date and time, seconds, at most nine fractional digits, and `Z` (or
`z`) or a `+hh:mm`/`-hh:mm` offset. Other ISO 8601 forms (week dates, basic
format, a space instead of `T`, no seconds, offsets with seconds) are
refused, because a client that sends them would be surprised by what another
parser makes of them.

Stored as fixed-width UTC text (``2026-01-02T03:04:05.000006Z``) so that
string order is time order and indexes compare them correctly. Digits beyond
microseconds are dropped (truncated, so a time never moves later).
"""

import re
from datetime import UTC, datetime, timedelta, timezone

_DATE_TIME = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]"
    r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?:\.(?P<fraction>[0-9]{1,9}))?"
    r"(?:(?P<utc>[Zz])|(?P<sign>[+-])(?P<off_hour>[0-9]{2}):(?P<off_minute>[0-9]{2}))"
)
# The same grammar for the OpenAPI document (a JSON Schema regex).
PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9](\.[0-9]{1,9})?"
    r"([Zz]|[+-][0-9]{2}:[0-5][0-9])$"
)
EXAMPLE = "2026-06-01T09:00:00Z"


def now():
    return datetime.now(UTC)


def to_text(moment):
    """An aware datetime as stored text, in UTC (years always 4 digits)."""
    utc = moment.astimezone(UTC).replace(tzinfo=None)
    return utc.isoformat(timespec="microseconds") + "Z"


def now_text():
    return to_text(now())


def later(text, seconds):
    """Stored text `seconds` after stored text `text`."""
    return to_text(parse(text) + timedelta(seconds=seconds))


def parse(text):
    """An aware datetime from RFC 3339 text; ValueError saying why if it is not."""
    match = _DATE_TIME.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not an RFC 3339 date-time such as {EXAMPLE}")
    if match["second"] == "60":
        raise ValueError("leap seconds (:60) are not supported")
    offset = timedelta(0)
    if match["sign"]:
        hours, minutes = int(match["off_hour"]), int(match["off_minute"])
        if hours > 23 or minutes > 59:
            raise ValueError("the UTC offset is out of range")
        offset = timedelta(hours=hours, minutes=minutes) * (-1 if match["sign"] == "-" else 1)
    fraction = (match["fraction"] or "")[:6].ljust(6, "0")
    try:
        return datetime.fromisoformat(
            f"{match['date']}T{match['hour']}:{match['minute']}:{match['second']}.{fraction}"
        ).replace(tzinfo=timezone(offset))
    except ValueError:
        raise ValueError("not a real date and time (month, day or hour out of range)") from None
