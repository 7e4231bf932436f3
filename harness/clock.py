"""Times a test needs from the wall clock: a moment a little ahead, a
wait until one has passed (a key that expires in a second, say, since the
CLI refuses to make one that has expired already), and past minutes of
their own for posts due at once."""

import threading
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


class PastMinutes:
    """Due moments in minutes nobody else took: no two posts of one channel
    share a minute (the same-minute guard), Published ones included, so
    posts a module makes due at once, test after test, each go at a minute
    of their own, counting back from the first call. `take(n)`: n moments
    in n minutes running forward in time (the posts of one import keep
    their order), older than any taken before."""

    def __init__(self, seconds_into_minute=30):
        self.lock = threading.Lock()
        self.seconds = seconds_into_minute
        self.next_free = None  # the earliest minute taken so far

    def take(self, count):
        with self.lock:
            if self.next_free is None:
                self.next_free = datetime.now(UTC).replace(second=0, microsecond=0)
            self.next_free -= timedelta(minutes=count)
            first = self.next_free
        return [
            (first + timedelta(minutes=i, seconds=self.seconds)).isoformat() for i in range(count)
        ]
