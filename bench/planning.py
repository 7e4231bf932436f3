"""Planning figures: how long a 1,000-row import takes, and how many "add
to queue" requests a second the service answers while they contend for one
channel's slots, with a short queue and a long one, on SQLite and
PostgreSQL.

    import    POST /api-v2-posts-import with 1,000 Draft rows (JSON), --repeats
              times in a row against real gunicorn: seconds per import and rows/s.
    queue     Drafts queued by 8 threads at once into a channel with 98 weekly
              slots that already holds 100 queued posts, and into one that
              holds 10,000 (about two years of slots), in turn, --repeats
              rounds: requests/s of each, time per request deep vs shallow,
              503 busy answers, and every post in a slot of its own (the rule
              the channel's row lock holds).

    calendar  GET /api-v2-posts-occurrences over a quarter with 40 series
              whose rule never repeats, beside one weekly series:
              milliseconds per request (median of 20). The rule is
              FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30 from a February, which
              the API takes and which searches its whole bound of 1,000
              months: the worst case. (FREQ=MONTHLY;BYMONTHDAY=30;BYDAY=1MO is
              refused now, and one stored before is known to name no date
              without a search; tests/test_occurrences.py has it.)
    header    an import whose CSV header has 50,000 columns (390 KB): a 400
              naming the column limit, milliseconds per request (median of 5).

Python threads, not wrk: each request changes what the next one may take.
The targets (docs/performance.md): at least 300 requests/s with 10,000
queued, at most 1.2x the time per request with 100, and no 503; the
calendar and the wide header each answered within 300 ms.
Called by bench/run.py (`--only planning`).
"""

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from bench.config import log
from bench.scenarios import launch_server
from bench.wrk import wrk
from harness import Client, create_key, init_database
from harness.api import CHANNELS, IMPORT, POSTS, QUEUE

ROWS = 1000
QUEUERS = 8
SHALLOW, DEEP = 100, 10_000
WARM_UP = 100  # queue requests before the timed runs
TARGET_QUEUE_RPS = 300
TARGET_QUEUE_FLAT = 1.2
TARGET_ANSWER_MS = 300  # the calendar with 40 series that never repeat; a 50,000-column header
NO_FEBRUARY = "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30"  # from a February: never met
OCCURRENCES = "/functions/v1/api-v2-posts-occurrences"
# 14 times a day, every day: 98 of the 100 slots a channel may have.
SLOTS = [
    {"day": day, "time": f"{hour:02d}:00"}
    for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    for hour in range(7, 21)
]


def run(args, tmp, totals, results, servers, fresh_pg=None):
    name = "pg-planning" if fresh_pg else "planning"
    db = fresh_pg("planning") if fresh_pg else tmp / "planning.sqlite"
    init_database(db)
    service = launch_server(tmp, name, db, servers, workers=args.workers)
    ceiling = launch_server(
        tmp, f"{name}-ceiling", db, servers, app="bench.ceiling_app:app", workers=args.workers
    )
    key = create_key(db, "planner")
    service.wait_ready(), ceiling.wait_ready()
    label = "PostgreSQL" if fresh_pg else "SQLite"
    with Client(service.url, key, timeout=120) as client:
        figures = {"import": _imports(args, client, label)}
        figures["calendar"] = _calendar(client, label)
        figures["header"] = _wide_header(client, label)
        narrow = type(args)(**{**vars(args), "connections": QUEUERS})
        before = wrk(narrow, ceiling, "ceiling.lua", args.duration, {}, totals, "queue ceiling")
        figures["queue"] = _queues(args, client, service.url, key, label)
        after = wrk(narrow, ceiling, "ceiling.lua", args.duration, {}, totals, "queue ceiling")
    q = figures["queue"]
    q["ceiling_rps"] = (before["rps"] + after["rps"]) / 2
    q["ratio"] = q["requests_per_s"]["deep"] / q["ceiling_rps"]
    log(
        f"{label} planning: the bare-Flask ceiling at {QUEUERS} connections around the queue "
        f"runs: {q['ceiling_rps']:,.0f} req/s; add to queue with {q['depths']['deep']:,} queued "
        f"is {q['ratio']:.2f} of it"
    )
    (results["postgresql"] if fresh_pg else results)["planning"] = figures
    ok = figures["import"]["ok"] and q["failed"] == 0 and q["shared_slots"] == 0
    ok &= figures["calendar"]["ok"] and figures["header"]["ok"]
    log(
        f"  {'PASS' if ok else 'FAIL'}  {label} planning: imports and queue requests all "
        "answered, one post per slot"
    )
    return ok


def _imports(args, client, label):
    rows = 50 if args.smoke else ROWS
    seconds, ok = [], True
    for round_ in range(1 if args.smoke else args.repeats):
        body = {"posts": [draft("personal", f"{round_}-{i}") for i in range(rows)]}
        t0 = time.monotonic()
        r = client.post(IMPORT, body)
        seconds.append(time.monotonic() - t0)
        ok &= r.status == 201 and r.json["count"] == rows
    median = statistics.median(seconds)
    log(
        f"{label} planning: import of {rows:,} rows in {median:.2f} s (median of "
        f"{len(seconds)}), {rows / median:,.0f} rows/s"
    )
    return {"rows": rows, "seconds": median, "rows_per_s": rows / median, "ok": ok}


def _calendar(client, label):
    """The quarter's repeats with 40 series that never repeat beside a
    weekly one: ms per request, and whether only the weekly one's came."""
    rows = [series_row(f"feb-{n}", "2031-02-10T09:00:00Z", NO_FEBRUARY) for n in range(40)]
    rows.append(series_row("weekly", "2031-06-02T07:00:00Z", "FREQ=WEEKLY;BYDAY=MO"))
    made = client.post(IMPORT, {"posts": rows})
    if made.status != 201:
        raise RuntimeError(f"importing the calendar's series: {made}")
    weekly = made.json["data"][-1]["series_id"]
    path = f"{OCCURRENCES}?from=2031-06-01T00:00:00Z&to=2031-09-01T00:00:00Z"
    seconds, ok = [], True
    for _ in range(20):
        t0 = time.monotonic()
        r = client.get(path)
        seconds.append(time.monotonic() - t0)
        ok &= r.status == 200 and {f["series_id"] for f in r.json["data"]} == {weekly}
    ms = statistics.median(seconds) * 1000
    log(
        f"{label} planning: the calendar's quarter with 40 series that never repeat and a "
        f"weekly one in {ms:.0f} ms (median of {len(seconds)}; max {max(seconds) * 1000:.0f})"
    )
    return {"ms": ms, "ok": ok}


def series_row(brand, at, repeat):
    return {
        "type": "brand",
        "brand_id": brand,
        "content": f"A series of {brand}.",
        "scheduled_at": at,
        "repeat": repeat,
    }


def _wide_header(client, label):
    """A 50,000-column header: ms per 400, and whether it named the limit."""
    header = ",".join(["type", "content", *(f"col{n}" for n in range(49_998))])
    body = (header + "\npersonal,x\n").encode()
    seconds, ok = [], True
    for _ in range(5):
        t0 = time.monotonic()
        r = client.post(IMPORT, body, headers={"Content-Type": "text/csv"})
        seconds.append(time.monotonic() - t0)
        ok &= r.status == 400 and "at most 100" in r.json["error"]["message"]
    ms = statistics.median(seconds) * 1000
    log(
        f"{label} planning: an import with a {len(body) // 1000:,} KB header of 50,000 columns "
        f"refused in {ms:.0f} ms (median of {len(seconds)})"
    )
    return {"ms": ms, "ok": ok}


def _queues(args, client, url, key, label):
    """Shallow and deep channels in turn, a fresh shallow one each round."""
    shallow, deep = (10, 300) if args.smoke else (SHALLOW, DEEP)
    per_run = 50 if args.smoke else (600 if args.quick else 1000)
    rounds = 1 if args.smoke or args.quick else args.repeats
    t0 = time.monotonic()
    fill(client, "deep", deep)
    log(f"{label} planning: {deep:,} posts queued on channel deep in {time.monotonic() - t0:.1f} s")
    for round_ in range(rounds):
        fill(client, f"shallow-{round_}", shallow)
    # Not timed: the first requests after a bulk load meet PostgreSQL's
    # autovacuum and cold caches.
    queue_all(url, key, make_drafts(client, "deep", 10 if args.smoke else WARM_UP))
    runs = {"shallow": [], "deep": []}
    for round_ in range(rounds):
        for depth, channel in (("shallow", f"shallow-{round_}"), ("deep", "deep")):
            drafts = make_drafts(client, channel, per_run)
            runs[depth].append(queue_all(url, key, drafts))
    shared = shared_slots(client, "deep")
    rps = {
        depth: statistics.median(r["requests_per_s"] for r in done) for depth, done in runs.items()
    }
    figures = {
        "posts_per_run": per_run,
        "depths": {"shallow": shallow, "deep": deep},
        "requests_per_s": rps,
        "slowdown": rps["shallow"] / rps["deep"],
        "busy": sum(r["busy"] for done in runs.values() for r in done),
        "failed": sum(r["failed"] for done in runs.values() for r in done),
        "shared_slots": shared + sum(r["shared_slots"] for done in runs.values() for r in done),
    }
    log(
        f"{label} planning: add to queue by {QUEUERS} threads, {per_run:,} posts a run, median "
        f"of {rounds}: {rps['shallow']:,.0f} requests/s with {shallow:,} queued, "
        f"{rps['deep']:,.0f} with {deep:,} (time per request x{figures['slowdown']:.2f}); "
        f"503 busy {figures['busy']}, failed {figures['failed']}, "
        f"slots taken twice {figures['shared_slots']}"
    )
    return figures


def draft(brand, tag):
    if brand == "personal":
        return {"type": "personal", "content": f"Planned post {tag}: notes from the week."}
    return {"type": "brand", "brand_id": brand, "content": f"Planned post {tag} of {brand}."}


def fill(client, channel, n):
    """Channel `channel` with 98 weekly slots and `n` posts queued (imports
    of queued rows, 1,000 at a time)."""
    made = client.post(
        CHANNELS, {"type": "brand", "brand_id": channel, "name": channel, "slots": SLOTS}
    )
    if made.status != 201:
        raise RuntimeError(f"creating channel {channel}: {made}")
    for start in range(0, n, ROWS):
        rows = [{**draft(channel, i), "queue": True} for i in range(start, min(n, start + ROWS))]
        r = client.post(IMPORT, {"posts": rows})
        if r.status != 201:
            raise RuntimeError(f"queueing {len(rows)} posts on {channel}: {r}")


def make_drafts(client, channel, n):
    ids = []
    for start in range(0, n, ROWS):
        rows = [draft(channel, f"d{i}") for i in range(start, min(n, start + ROWS))]
        r = client.post(IMPORT, {"posts": rows})
        if r.status != 201:
            raise RuntimeError(f"making {len(rows)} Drafts of {channel}: {r}")
        ids += [p["id"] for p in r.json["data"]]
    return ids


def queue_all(url, key, post_ids):
    """POST /api-v2-posts-queue for every post, QUEUERS at a time. A 503
    `busy` is counted, and sent again after its Retry-After as a client
    would, up to 5 times."""
    busy = []

    def send(client, post_id):
        for _ in range(5):
            r = client.post(QUEUE, {"post_id": post_id})
            if r.status != 503:
                return r
            busy.append(post_id)
            time.sleep(float(r.headers.get("retry-after", "1")))
        return r

    def one(chunk):
        with Client(url, key, timeout=60) as client:
            return [send(client, post_id) for post_id in chunk]

    chunks = [post_ids[i::QUEUERS] for i in range(QUEUERS)]
    t0 = time.monotonic()
    with ThreadPoolExecutor(QUEUERS) as pool:
        answers = [a for part in pool.map(one, chunks) for a in part]
    wall = time.monotonic() - t0
    slots = [a.json["scheduled_at"] for a in answers if a.status == 200]
    return {
        "requests_per_s": len(post_ids) / wall,
        "busy": len(busy),
        "failed": sum(1 for a in answers if a.status != 200),
        "shared_slots": len(slots) - len(set(slots)),
    }


def shared_slots(client, channel):
    """Posts of the channel planned at the same instant as another, read
    back through the list (100 a page)."""
    seen, offset = [], 0
    while True:
        page = client.get(
            f"{POSTS}?brand_id={channel}&status=Scheduled&order=scheduled_at&limit=100&offset={offset}"
        ).json
        seen += [p["scheduled_at"] for p in page["data"]]
        offset += 100
        if offset >= page["total"]:
            return len(seen) - len(set(seen))


def report(results, check):
    """The queue targets, for bench/run.py's target table."""
    for label, where in (("SQLite", results), ("PostgreSQL", results.get("postgresql", {}))):
        for name, what in (
            ("calendar", "the calendar with 40 series that never repeat"),
            ("header", "an import with a 50,000-column header (400)"),
        ):
            found = where.get("planning", {}).get(name)
            if found:
                check(
                    found["ok"] and found["ms"] <= TARGET_ANSWER_MS,
                    f"{label} {what} answered within {TARGET_ANSWER_MS} ms: {found['ms']:.0f} ms"
                    + ("" if found["ok"] else " (a wrong answer)"),
                )
        q = where.get("planning", {}).get("queue")
        if not q:
            continue
        deep, shallow = q["depths"]["deep"], q["depths"]["shallow"]
        rps = q["requests_per_s"]["deep"]
        check(
            rps >= TARGET_QUEUE_RPS,
            f"{label} add to queue with {deep:,} queued >= {TARGET_QUEUE_RPS} requests/s: "
            f"{rps:,.0f}" + _short(rps, TARGET_QUEUE_RPS) + f"; {q['ratio']:.2f} of the ceiling "
            f"at {QUEUERS} connections ({q['ceiling_rps']:,.0f} req/s in this run)",
        )
        check(
            q["slowdown"] <= TARGET_QUEUE_FLAT,
            f"{label} add to queue with {deep:,} queued at most {TARGET_QUEUE_FLAT}x the time per "
            f"request with {shallow:,}: x{q['slowdown']:.2f}",
        )
        check(
            q["busy"] == 0 and q["shared_slots"] == 0 and q["failed"] == 0,
            f"{label} add to queue: 0 busy (503), 0 failed, 0 slots taken twice: "
            f"{q['busy']}, {q['failed']}, {q['shared_slots']}",
        )


def _short(value, target):
    return (
        "" if value >= target else f" (missed by {target - value:,.0f}, {1 - value / target:.0%})"
    )
