"""Benchmark the service under real gunicorn with wrk: `python -m bench`.

What it does, all on 127.0.0.1:
  1. Seeds a scenario database through the service's store code (Draft posts
     to read and PATCH, Scheduled posts for the publish callback) and makes a
     key with every scope with `flask keys create` (harness.create_key).
  2. Starts gunicorn with the production settings (gunicorn.conf.py, 4
     workers, access log to /dev/null) three times: the service with
     FLASK_SQLITE_SYNCHRONOUS=FULL (the default), the service with NORMAL on
     the same file, and bench/ceiling_app.py (bare Flask, small JSON).
  3. Runs each scenario with wrk (bench/<scenario>.lua) between two ceiling
     runs (ceiling, scenario, ceiling, scenario, ..., ceiling), --repeats
     rounds; reports medians, and each scenario's req/s as a ratio to the
     mean of the two ceiling runs around it (this cancels most of the drift
     of a shared machine's speed).
  4. Growth: GET one post and the first list page against a database of
     1,000 posts and one of 1,000,000 posts (100,000 of them the caller's),
     interleaved; the big one is seeded once and cached in bench/.cache/.
  5. The own publisher: 1,000 posts due at once across 50 channels,
     published by one dispatcher, then two, to the LinkedIn stand-in
     (bench/publisher.py).
  6. Analytics: GET /analytics for one user with 100,000 published posts and
     4 stats snapshots each (bench/analytics.py), on each backend chosen.
  7. Prints each worker's resident memory, one PASS/FAIL line per scenario
     (it sent requests, none failed), the targets with PASS/FAIL, and exits 1
     only if a request failed (socket error or non-2xx) or a scenario sent none.

    python -m bench                  # full run, about 7 minutes (+1 min the first time: seeding 1M posts)
    python -m bench --quiet-wait 60  # on a shared machine: wait for idle CPU before each run
    python -m bench --quick          # short run, about 1 minute
    python -m bench --smoke          # every scenario once, a few hundred requests each (make test-slow runs it)
    python -m bench --duration 10 --repeats 5 --only get,list,growth

Run from the project root (the Makefile's `make bench` does).
"""

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench import analytics, handoff, planning, publisher
from bench import search as bench_search
from bench.config import (
    SCENARIOS,
    SMOKE_ON_POSTGRES,
    log,
)
from bench.growth import run_growth
from bench.measure import (
    machine_info,
    scan_log,
)
from bench.report import report_beside, report_rss, report_targets
from bench.scenarios import run_scenarios
from bench.wrk import QUIET, Totals, busy_seconds
from harness import postgres

# The scenarios driven by Python threads (bench/handoff.py, bench/planning.py): name -> function.
HANDOFF = {
    "claim": handoff.claim,
    "webhooks": handoff.webhooks,
    "idle": handoff.idle,
    "planning": planning.run,
    "analytics": analytics.run,
    "publisher": publisher.run,
}


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument("--duration", type=int, default=5, help="seconds per wrk run (default 5)")
    p.add_argument("--repeats", type=int, default=3, help="runs per scenario; medians (default 3)")
    p.add_argument(
        "--warmup", type=int, default=1, help="seconds of warm-up per server (default 1; 0: none)"
    )
    p.add_argument(
        "--max-requests",
        type=int,
        default=1_000_000,
        help="stop each wrk run after this many requests (default 1,000,000; 0: no cap)",
    )
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    p.add_argument("--timeout", type=int, default=5, help="wrk request timeout, seconds")
    p.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    p.add_argument("--drafts", type=int, default=10_000, help="Draft posts to GET/PATCH")
    p.add_argument(
        "--scheduled",
        type=int,
        default=None,
        help="Scheduled posts for the callback (default: enough for every run to publish fresh posts)",
    )
    p.add_argument("--growth-posts", type=int, default=1_000_000, help="posts in the big growth DB")
    p.add_argument("--growth-small", type=int, default=1_000, help="posts in the small growth DB")
    p.add_argument("--no-growth", action="store_true", help="skip the 1k vs 1M growth check")
    p.add_argument(
        "--claim-posts", type=int, default=100_000, help="due posts the claim scenario drains"
    )
    p.add_argument(
        "--webhook-posts",
        type=int,
        default=1_000,
        help="posts due at once for the webhooks scenario",
    )
    p.add_argument(
        "--no-search",
        action="store_true",
        help="skip the search scenario (200,000 posts of one user: broad, none, others)",
    )
    p.add_argument(
        "--no-handoff",
        action="store_true",
        help="skip the claim, webhooks, idle, planning, analytics and publisher scenarios",
    )
    p.add_argument(
        "--backend",
        choices=("sqlite", "postgresql", "both"),
        default="sqlite",
        help="where the service keeps its data (default sqlite; postgresql: the local server,\n"
        "TEST_DATABASE_URL; both: the two, then a table of them side by side)",
    )
    p.add_argument(
        "--only",
        default="",
        help="comma-separated scenarios to run: "
        + ",".join([s[0] for s in SCENARIOS] + ["growth", "search", *HANDOFF]),
    )
    p.add_argument(
        "--quiet-wait",
        type=int,
        default=0,
        help="before each run, wait up to this many seconds for the machine to be idle (default 0: off)",
    )
    p.add_argument("--json", help="also write every figure to this JSON file")
    p.add_argument(
        "--keep", action="store_true", help="keep the temporary directory (databases, logs)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="short run: 2 s runs, 1 repeat, growth with 20,000 posts (figures are indicative only)",
    )
    p.add_argument(
        "--smoke",
        action="store_true",
        help="does every scenario still run? 1 s runs of at most 300 requests, 4 connections, 1 worker,\n"
        "no warm-up, small uncached databases; targets are not judged (make test-slow runs this)",
    )
    args = p.parse_args(argv)
    if args.duration < 1 or args.warmup < 0 or args.repeats < 1:
        p.error(
            "--duration and --repeats are whole numbers >= 1, --warmup >= 0 (wrk takes whole seconds)"
        )
    if args.quick:
        args.duration, args.repeats, args.warmup = 2, 1, 1
        if args.growth_posts == 1_000_000:
            args.growth_posts = 20_000
        if args.claim_posts == 100_000:
            args.claim_posts = 10_000
    if args.smoke:
        args.duration, args.repeats, args.warmup, args.max_requests = 1, 1, 0, 300
        args.connections, args.threads, args.workers = 4, 1, 1
        args.drafts, args.scheduled = 300, 1_000
        args.growth_small, args.growth_posts = 200, 2_000
        args.claim_posts, args.webhook_posts = 300, 50
        args.backend = "both"  # does each backend's run still work?
    if args.scheduled is None:
        # Up to ~2,500 callbacks/s per run, both sync modes, warm-up included.
        args.scheduled = int(2 * 2500 * (args.repeats * args.duration + args.warmup)) + 5000
    return args


def main(argv=None):
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        sys.exit("error: wrk is not installed; run bench/ensure_wrk.sh (apt-get install -y wrk)")
    wanted, handoffs, searching = _chosen(args)
    tmp = Path(tempfile.mkdtemp(prefix="bench-"))
    totals = Totals()
    results = _new_results(args)
    servers = []
    started = time.monotonic()
    # PostgreSQL schemas of this run, dropped after the servers stop
    schemas = contextlib.ExitStack()

    def fresh_pg(prefix):
        return schemas.enter_context(postgres.fresh_database(prefix=prefix))

    try:
        _log_header(args, results, tmp)
        handoff_ok = True
        if args.backend != "postgresql":
            handoff_ok &= _run_sqlite(
                args, (wanted, handoffs, searching), tmp, totals, results, servers
            )
        if args.backend != "sqlite":
            handoff_ok &= _run_postgres(
                args, (wanted, handoffs, searching), tmp, totals, results, servers, fresh_pg
            )
            if args.backend == "both":
                report_beside(results)
        report_rss(results, servers)
        for name, server in [(s.name, s) for s in servers]:
            results.setdefault("logs", {})[name] = scan_log(server.log)
        ran_ok = report_targets(args, results, totals) and handoff_ok
    finally:
        for server in servers:  # the figures are taken: no need to wait for a graceful stop
            server.kill()
        schemas.close()
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.quiet_wait:
        log(
            f"waited {QUIET['waited']:.0f} s in all for an idle machine before runs; "
            f"gave up waiting {QUIET['gave_up']} time(s)"
        )
    log(f"total time: {time.monotonic() - started:.0f} s")
    return 1 if (totals.socket_errors or totals.non2xx or not ran_ok) else 0


def _chosen(args):
    """(wrk scenarios, handoff parts, whether to search) that --only and the
    --no-* flags leave; exits when they name an unknown part or leave none,
    or when PostgreSQL is wanted and cannot be reached."""
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = set(only) - {s[0] for s in SCENARIOS} - {"growth", "search", *HANDOFF}
    if unknown:
        sys.exit(f"error: unknown scenario(s) {', '.join(sorted(unknown))}")
    wanted = [s for s in SCENARIOS if not only or s[0] in only]
    handoffs = [] if args.no_handoff else [h for h in HANDOFF if not only or h in only]
    if only and "growth" not in only:
        args.no_growth = True
    searching = not args.no_search and (not only or "search" in only)
    if not wanted and args.no_growth and not handoffs and not searching:
        sys.exit("error: nothing to run")
    if args.backend != "sqlite":
        problem = postgres.reachable()
        if problem:
            sys.exit(f"error: no PostgreSQL at {postgres.base_url()} ({problem})")
    return wanted, handoffs, searching


def _new_results(args):
    settings = ("duration", "repeats", "warmup", "connections", "threads", "workers")
    return {
        "machine": machine_info(),
        "settings": {k: getattr(args, k) for k in (*settings, "drafts", "scheduled")},
        "scenarios": {},
        "growth": {},
        "handoff": {},
        "rss": {},
    }


def _log_header(args, results, tmp):
    log(
        "Content Publishing Service benchmark"
        + (" -- smoke run: figures mean nothing" if args.smoke else "")
    )
    log(f"machine: {results['machine']}")
    log(
        f"load: wrk -t{args.threads} -c{args.connections}, {args.duration:g} s per run, "
        f"{args.repeats} run(s) per scenario (medians), ceiling/scenario runs interleaved"
    )
    log(
        f"NOTE: wrk runs on the same {os.cpu_count()} cores as gunicorn ({args.workers} sync "
        "workers), so every figure includes the load generator's own CPU use."
    )
    if not args.smoke:
        b0, t0 = busy_seconds(), time.monotonic()
        time.sleep(2)
        background = (busy_seconds() - b0) / (time.monotonic() - t0)
        results["background_cores"] = background
        log(
            f"background CPU use before the run: {background:.2f} cores (near 0 on a quiet machine)"
        )
    log(f"work directory: {tmp}")
    log()


def _run_sqlite(args, chosen, tmp, totals, results, servers):
    """Every chosen part on SQLite; False when a handoff or search part failed."""
    wanted, handoffs, searching = chosen
    if wanted:
        run_scenarios(args, wanted, tmp, totals, results, servers)
    if not args.no_growth:
        run_growth(args, tmp, totals, results, servers)
    ok = True
    for name in handoffs:  # every part runs, whichever failed before it
        ok &= HANDOFF[name](args, tmp, totals, results, servers)
    if searching:
        ok &= bench_search.run(args, tmp, totals, results, servers)
    return ok


def _run_postgres(args, chosen, tmp, totals, results, servers, fresh_pg):
    """The parts judged on PostgreSQL too; False when one of them failed."""
    wanted, handoffs, searching = chosen
    pg = results["postgresql"] = {"scenarios": {}, "growth": {}}
    log()
    log(f"PostgreSQL ({postgres.base_url()}, a fresh schema per database)")
    pg_wanted = [s for s in wanted if s[2] == "full"]  # no NORMAL: that is SQLite's
    if args.smoke:  # the rest run the same code, which the SQLite half just ran
        pg_wanted = [s for s in pg_wanted if s[0] in SMOKE_ON_POSTGRES]
    if pg_wanted:
        run_scenarios(args, pg_wanted, tmp, totals, pg, servers, fresh_pg)
    if not args.no_growth:
        run_growth(args, tmp, totals, pg, servers, fresh_pg)
    ok = True
    if "planning" in handoffs:  # the queue's targets are on both backends
        ok &= planning.run(args, tmp, totals, results, servers, fresh_pg)
    if searching:
        ok &= bench_search.run(args, tmp, totals, pg, servers, fresh_pg)
    if "analytics" in handoffs:  # its target is on both backends
        ok &= analytics.run(args, tmp, totals, results, servers, fresh_pg)
    return ok
