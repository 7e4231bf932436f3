"""Due posts, and concurrent claimers draining them: the exactly-once
checks of the tests, `python -m bench` and `python -m faults` share this.

schedule_posts() imports Scheduled posts through the API (the
server must allow the times: a negative FLASK_SCHEDULE_MIN_LEAD_SECONDS lets
them lie in the past, so they are due at once). drain() runs claimer
threads, spread over one or more servers, until nothing is due; a claimer
whose server stops answering goes on with the next one, as an automation
behind a balancer would. The result says what every answer handed out and
how many claims got no answer (those may have taken posts nobody heard of).
"""

import collections
import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from harness.api import CLAIM, IMPORT
from harness.http_client import Client

IMPORT_ROWS = 500  # of the 1,000 an import takes: a few batches side by side


def schedule_posts(url, key, times, content="due", threads=4):
    """One Scheduled post per RFC 3339 time in `times`; returns their ids in
    order. Made through the bulk import, IMPORT_ROWS posts a request (a few
    requests in parallel), since thousands of single creates and schedules
    took most of a claim test's time; what is tested is the claiming."""
    rows = [
        {"type": "personal", "content": f"{content} {i}", "scheduled_at": when}
        for i, when in enumerate(times)
    ]
    batches = [rows[i : i + IMPORT_ROWS] for i in range(0, len(rows), IMPORT_ROWS)]

    def one(batch):
        with Client(url, key, timeout=60) as client:
            r = client.post(IMPORT, {"posts": batch})
        if r.status != 201:
            raise RuntimeError(
                f"importing due posts answered {r.status or r.error}: {r.text[:300]}"
            )
        made = r.json["data"]
        assert all(p["status"] == "Scheduled" for p in made), made[:2]
        return [p["id"] for p in made]

    with ThreadPoolExecutor(threads) as pool:
        return [post_id for ids in pool.map(one, batches) for post_id in ids]


def past(i):
    """The i-th of a row of distinct times long past, a minute apart (no two
    posts of a channel share a minute): due at once, in order."""
    moment = datetime(2020, 1, 1, tzinfo=UTC) + timedelta(minutes=i)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class Claims:
    """What a drain handed out: `claimed` [(post id, handoff id, status)],
    `requests`, `unanswered` (claims with no answer: a server died),
    `errors` (answers other than 200), `seconds`."""

    def __init__(self):
        self.claimed, self.errors = [], []
        self.requests = self.unanswered = 0
        self.seconds = 0.0
        self.lock = threading.Lock()

    def counts(self):
        return collections.Counter(post_id for post_id, _, _ in self.claimed)

    def duplicates(self):
        """Posts that more than one answer handed out: must be none."""
        return sorted(post_id for post_id, n in self.counts().items() if n > 1)

    def ids(self):
        return set(self.counts())


def drain(urls, key, threads, limit=10, timeout=600.0, pause=0.0):
    """`threads` claimers (spread over `urls`) claim `limit` at a time until a
    claim answers an empty list, or `timeout` seconds pass; returns Claims.
    `pause`: seconds each claimer waits between claims (spreads a drain over
    a fault)."""
    result = Claims()
    deadline = time.monotonic() + timeout

    def claimer(n):
        turn, clients = n, {}
        with contextlib.ExitStack() as stack:
            while time.monotonic() < deadline:
                url = urls[turn % len(urls)]
                if url not in clients:
                    clients[url] = stack.enter_context(Client(url, key, timeout=30))
                client = clients[url]
                r = client.post(CLAIM, {"limit": limit})
                with result.lock:
                    result.requests += 1
                    if r.status is None:
                        result.unanswered += 1
                    elif r.status != 200:
                        result.errors.append(r)
                    else:
                        result.claimed.extend(
                            (p["id"], p["handoff_id"], p["status"]) for p in r.json["data"]
                        )
                if r.status is None:
                    turn += 1  # that server is gone: the next one
                    time.sleep(0.05)
                elif r.status != 200 or not r.json["data"]:
                    return
                elif pause:
                    time.sleep(pause)

    pool = [threading.Thread(target=claimer, args=(n,), daemon=True) for n in range(threads)]
    started = time.monotonic()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(max(0.1, deadline + 60 - time.monotonic()))
    result.seconds = time.monotonic() - started
    if any(thread.is_alive() for thread in pool):
        raise RuntimeError(f"claimers still running {timeout + 60:.0f} s after they started")
    return result
