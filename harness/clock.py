"""Times a test needs from the wall clock: a moment a little ahead, and a
wait until one has passed (a key that expires in a second, say, since the
CLI refuses to make one that has expired already)."""

import time
from datetime import UTC, datetime, timedelta


def ahead(seconds):
    """RFC 3339 text of now + `seconds`, in UTC."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def wait_past(moment):
    """Sleep until the RFC 3339 `moment` has passed (by a few milliseconds)."""
    remaining = (datetime.fromisoformat(moment) - datetime.now(UTC)).total_seconds()
    if remaining > -0.005:
        time.sleep(remaining + 0.01)
