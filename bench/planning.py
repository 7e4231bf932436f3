"""Planning figures (channels, the queue and import): how long a
1,000-row import takes, and how many "add to queue" requests a second the
service answers while they contend for one channel's slots.

    import    POST /api-v2-posts-import with 1,000 Draft rows (JSON), --repeats
              times in a row against real gunicorn: seconds per import and rows/s.
    queue     1,000 Drafts queued by 8 threads at once into a channel with 98
              weekly slots: requests/s, and every post in a slot of its own
              (the rule the database holds).

Python threads, not wrk: each request changes what the next one may take.
A queue request reads the channel's planned posts of the next 90 days, so
its cost grows with the queue: the figure is for a queue filled from empty
to 1,000 posts.
Called by bench/run.py (`--only planning`).
"""

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from bench.config import log
from bench.scenarios import launch_server
from harness import Client, create_key, init_database
from harness.api import CHANNELS, IMPORT, QUEUE

ROWS = 1000
QUEUERS = 8
# 14 times a day, every day: 98 of the 100 slots a channel may have.
SLOTS = [
    {"day": day, "time": f"{hour:02d}:00"}
    for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    for hour in range(7, 21)
]


def run(args, tmp, totals, results, servers):
    rows = 50 if args.smoke else ROWS
    db = tmp / "planning.sqlite"
    init_database(db)
    service = launch_server(tmp, "planning", db, servers, workers=args.workers)
    key = create_key(db, "planner")
    service.wait_ready()
    figures, ok = {}, True
    with Client(service.url, key, timeout=120) as client:
        made = client.post(CHANNELS, {"type": "personal", "name": "Me", "slots": SLOTS})
        ok &= made.status == 201
        seconds, drafts = [], []
        for round_ in range(1 if args.smoke else args.repeats):
            body = {"posts": [draft(round_, i) for i in range(rows)]}
            t0 = time.monotonic()
            r = client.post(IMPORT, body)
            seconds.append(time.monotonic() - t0)
            ok &= r.status == 201 and r.json["count"] == rows
            drafts += [p["id"] for p in (r.json or {}).get("data", [])]
    median = statistics.median(seconds)
    figures["import"] = {"rows": rows, "seconds": median, "rows_per_s": rows / median}
    log(
        f"planning: import of {rows:,} rows in {median:.2f} s (median of {len(seconds)}), "
        f"{rows / median:,.0f} rows/s"
    )
    queued = drafts[:rows]
    answers, wall, retried = queue_all(service.url, key, queued)
    slots = [a.json["scheduled_at"] for a in answers if a.status == 200]
    failed = [a.status or a.error for a in answers if a.status != 200]
    figures["queue"] = {
        "posts": len(queued),
        "requests_per_s": len(queued) / wall,
        "failed": len(failed),
        "busy_retried": retried,
        "shared_slots": len(slots) - len(set(slots)),
    }
    log(
        f"planning: {len(queued):,} posts added to the queue by {QUEUERS} threads in "
        f"{wall:.1f} s: {len(queued) / wall:,.0f} requests/s; failed {len(failed)}, "
        f"503 busy and sent again {retried}, "
        f"slots taken twice {figures['queue']['shared_slots']}"
    )
    results["planning"] = figures
    ok &= not failed and figures["queue"]["shared_slots"] == 0
    log(
        f"  {'PASS' if ok else 'FAIL'}  planning: imports and queue requests all answered, one post per slot"
    )
    return ok


def draft(round_, i):
    return {"type": "personal", "content": f"Planned post {round_}-{i}: notes from the week."}


def queue_all(url, key, post_ids):
    """POST /api-v2-posts-queue for every post, QUEUERS at a time."""

    retried = []

    def send(client, post_id):
        """As a client should: a 503 `busy` (the write lock held past the
        busy timeout) is sent again after its Retry-After, up to 5 times."""
        for _ in range(5):
            r = client.post(QUEUE, {"post_id": post_id})
            if r.status != 503:
                return r
            retried.append(post_id)
            time.sleep(float(r.headers.get("retry-after", "1")))
        return r

    def one(chunk):
        with Client(url, key, timeout=60) as client:
            return [send(client, post_id) for post_id in chunk]

    chunks = [post_ids[i::QUEUERS] for i in range(QUEUERS)]
    t0 = time.monotonic()
    with ThreadPoolExecutor(QUEUERS) as pool:
        answers = [a for part in pool.map(one, chunks) for a in part]
    return answers, time.monotonic() - t0, len(retried)
