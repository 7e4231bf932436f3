"""RFC 3339 timestamps as the service stores and returns them.

Stored as fixed-width UTC text (``2026-01-02T03:04:05.000006Z``) so that
string order is time order and SQLite indexes compare them correctly.
"""

from datetime import datetime, timezone

def now():
    return datetime.now(timezone.utc)


def to_text(moment):
    """An aware datetime as stored text, in UTC (years always 4 digits)."""
    utc = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return utc.isoformat(timespec="microseconds") + "Z"


def now_text():
    return to_text(now())


def parse(text):
    """Parse RFC 3339 text with an offset; naive input is refused."""
    moment = datetime.fromisoformat(text.replace("z", "Z"))
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("timestamp needs a UTC offset, for example 2026-01-02T09:00:00Z")
    return moment
