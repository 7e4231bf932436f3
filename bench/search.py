"""Search bounded by the caller's own posts: `python -m bench --only search`.

One database: 200,000 posts of one user, each holding "the launch"; among
them 20,000 posts of a quiet user and 2,000 of a reader, neither holding
either word. Against real gunicorn (4 workers), on each backend run:

    broad     the first page of `q=the launch` by the first user, one request
              after another: 200,000 matches, an estimated total. Target:
              median within 300 ms.
    none      the same search by the quiet user (no match, while the first
              user has 200,000), against the quiet user's plain list page in
              turn. Target: its median no more than 1.5x the list page's.
    others    the reader's GET one post with wrk (as the GET scenario: 64
              connections), alone, then while 8 threads send the broad
              search one after another, then alone again. Target: its p99
              under the searches at most 2x its p99 alone (the mean of the
              runs around it): 8 clients of one key take their share of the
              workers, not all of them.

Python threads for the searches, wrk for the GETs. The database is seeded
once through the service's store code and cached (bench/.cache/, and a kept
PostgreSQL schema), like the growth database.
"""

import statistics
import threading
import time
from urllib.parse import quote

from bench import postgres as bench_postgres
from bench import seed
from bench.config import log
from bench.measure import write_ids
from bench.scenarios import start_server
from bench.wrk import wrk
from harness import Client, create_key
from harness.api import POSTS

BROAD, QUIET, READER = 200_000, 20_000, 2_000
SEARCHERS = 8
TARGET_FIRST_PAGE_MS = 300
TARGET_NONE_FACTOR = 1.5
TARGET_OTHERS_P99_FACTOR = 2.0
QUERY = f"{POSTS}?limit=20&q={quote(seed.SEARCH_WORDS)}"


def run(args, tmp, totals, results, servers, fresh_pg=None):
    """Every figure of one backend into results["search"]; True if every
    request was answered as expected (the targets are judged by report)."""
    prefix = "pg-" if fresh_pg else ""
    log()
    log(
        f"Search: {BROAD:,} posts of one user holding {seed.SEARCH_WORDS!r}, {QUIET:,} of a user"
        f" with none of them, {READER:,} of a reader ({'PostgreSQL' if fresh_pg else 'SQLite'})"
    )
    t0 = time.monotonic()
    broad, quiet, reader = (2_000, 200, 100) if args.smoke else (BROAD, QUIET, READER)
    db, meta = seed.search_db(broad, quiet, reader, tmp, progress=log, cache=not args.smoke)
    if fresh_pg:
        db = bench_postgres.kept_copy(
            "bench_search",
            db,
            broad + quiet + reader,
            log,
            cache=not args.smoke,
            fresh=lambda: fresh_pg("search"),
        )
    log(f"  database ready in {time.monotonic() - t0:.0f} s")
    keys = {name: create_key(db, name) for name in (seed.SEARCHER, seed.QUIET, seed.READER)}
    server = start_server(tmp, f"{prefix}search", db, servers, workers=args.workers)
    rounds = 5 if args.smoke else (30 if args.quick else 100)
    figures, ok = {}, True
    with Client(server.url, keys[seed.SEARCHER], timeout=60) as searcher:
        answers = [searcher.get(QUERY) for _ in range(3 + rounds)][3:]  # 3 to warm up
    ok &= _all_ok(answers, "broad search")
    first = answers[0].json or {}
    figures["broad"] = {
        **_latencies(answers),
        "total": first.get("total"),
        "total_is_estimate": first.get("total_is_estimate"),
        "rows": len(first.get("data", [])),
    }
    log(
        f"  broad: first page of {broad:,} matches, {rounds} requests: median"
        f" {figures['broad']['p50_ms']:.1f} ms, p95 {figures['broad']['p95_ms']:.1f} ms, max"
        f" {figures['broad']['max_ms']:.1f} ms; total {first.get('total'):,}"
        f" (estimate: {first.get('total_is_estimate')})"
    )
    with Client(server.url, keys[seed.QUIET], timeout=60) as quiet:
        none, listed = [], []
        for _ in range(3 + rounds):
            none.append(quiet.get(QUERY))
            listed.append(quiet.get(f"{POSTS}?limit=20"))
    none, listed = none[3:], listed[3:]
    ok &= _all_ok(none + listed, "no-match search")
    ok &= all(r.json and r.json["total"] == 0 for r in none)
    figures["none"] = {**_latencies(none), "list": _latencies(listed)}
    figures["none"]["factor"] = figures["none"]["p50_ms"] / figures["none"]["list"]["p50_ms"]
    log(
        f"  none: the same search by a user with no match: median {figures['none']['p50_ms']:.1f}"
        f" ms, against {figures['none']['list']['p50_ms']:.1f} ms for that user's list page"
        f" (x{figures['none']['factor']:.2f})"
    )
    figures["others"], others_ok = _others(args, tmp, totals, server, keys, meta["reader_ids"])
    ok &= others_ok
    results["search"] = figures
    log(f"  {'PASS' if ok else 'FAIL'}  search: every request answered as expected")
    return ok


def _others(args, tmp, totals, server, keys, reader_ids):
    """The reader's GET p99 alone, under 8 looping broad searches, alone again."""
    ids = write_ids(tmp / "search-reader-ids.txt", reader_ids)
    sargs = {"key": keys[seed.READER], "ids": ids}
    duration = max(2, args.duration)
    before = wrk(args, server, "get.lua", duration, sargs, totals, "search others alone")
    stop, answers = threading.Event(), []

    def loop():
        with Client(server.url, keys[seed.SEARCHER], timeout=60) as client:
            while not stop.is_set():
                answers.append(client.get(QUERY))

    threads = [threading.Thread(target=loop) for _ in range(SEARCHERS)]
    for t in threads:
        t.start()
    time.sleep(0.5)  # the searches under way before the GETs start
    try:
        during = wrk(args, server, "get.lua", duration, sargs, totals, "search others loaded")
    finally:
        stop.set()
        for t in threads:
            t.join()
    after = wrk(args, server, "get.lua", duration, sargs, totals, "search others alone")
    alone_p99 = (before["p99_us"] + after["p99_us"]) / 2
    statuses = {}
    for r in answers:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    figures = {
        "alone_p99_ms": alone_p99 / 1000,
        "loaded_p99_ms": during["p99_us"] / 1000,
        "factor": during["p99_us"] / alone_p99,
        "alone_rps": (before["rps"] + after["rps"]) / 2,
        "loaded_rps": during["rps"],
        "searches": len(answers),
        "search_statuses": statuses,
        "requests": before["requests"] + during["requests"] + after["requests"],
        "socket_errors": before["socket_errors"] + during["socket_errors"] + after["socket_errors"],
        "non2xx": before["non2xx"] + during["non2xx"] + after["non2xx"],
    }
    log(
        f"  others: the reader's GET p99 {figures['loaded_p99_ms']:.1f} ms under {SEARCHERS}"
        f" looping broad searches ({len(answers):,} answered: {statuses}), against"
        f" {figures['alone_p99_ms']:.1f} ms alone (x{figures['factor']:.2f});"
        f" {figures['loaded_rps']:.0f} vs {figures['alone_rps']:.0f} req/s"
    )
    return figures, all(r.status == 200 for r in answers)


def _latencies(answers):
    ms = sorted(r.ms for r in answers)
    return {
        "p50_ms": statistics.median(ms),
        "p95_ms": ms[min(len(ms) - 1, int(len(ms) * 0.95))],
        "max_ms": ms[-1],
        "requests": len(ms),
    }


def _all_ok(answers, what):
    bad = [r for r in answers if r.status != 200]
    for r in bad[:3]:
        log(f"  {what}: {r.status or r.error} {r.text[:200]}")
    return not bad


def report(results, check, label=""):
    """The targets of one backend's figures (bench/report.py)."""
    found = results.get("search")
    if not found:
        return
    broad, none, others = found["broad"], found["none"], found["others"]
    check(
        broad["p50_ms"] <= TARGET_FIRST_PAGE_MS and broad["total_is_estimate"] is True,
        f"{label}search: first page of {BROAD:,} own matches within {TARGET_FIRST_PAGE_MS} ms:"
        f" median {broad['p50_ms']:.1f} ms (p95 {broad['p95_ms']:.1f}, max {broad['max_ms']:.1f})",
    )
    check(
        none["factor"] <= TARGET_NONE_FACTOR,
        f"{label}search by a user with no match while another has {BROAD:,}: at most"
        f" {TARGET_NONE_FACTOR:g}x that user's list page: {none['p50_ms']:.1f} ms vs"
        f" {none['list']['p50_ms']:.1f} ms (x{none['factor']:.2f})",
    )
    check(
        others["factor"] <= TARGET_OTHERS_P99_FACTOR,
        f"{label}another user's GET p99 during {SEARCHERS} broad searches at most"
        f" {TARGET_OTHERS_P99_FACTOR:g}x its p99 without: {others['loaded_p99_ms']:.1f} ms vs"
        f" {others['alone_p99_ms']:.1f} ms (x{others['factor']:.2f})",
    )
