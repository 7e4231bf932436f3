"""Fault harness: the service under load, crashes, a revoke race, a full disk,
bad starts, two hosts on one PostgreSQL database, and the service's own
LinkedIn publisher SIGKILLed mid-publish, against real gunicorn (4 workers).

    python -m faults                  # every step, about 2 minutes
    python -m faults --quick          # shorter load and crash phases, about 1 minute
    python -m faults --smoke          # one short round of every step (make test-slow runs it)
    python -m faults --steps 2,4      # some steps only
    python -m faults --load-seconds 20 --threads 48

Steps (each bounded in time and requests; each prints figures and PASS/FAIL):
  1 load      >= 32 client threads for --load-seconds: creates, PATCHes with and
              without If-Match on shared posts, publish callbacks on posts
              scheduled first, reads. Every write goes through a ledger
              (harness.ledger); afterwards, reading the posts through the API,
              every acknowledged create exists, every post's version counts its
              acknowledged changes, its content is the last acknowledged one,
              callbacks published once; zero 5xx, zero "database is locked" in
              responses or the server log.
  2 crash     write load while a random worker is SIGKILLed every 0.5 s for
              --crash-seconds, then the master (and its workers) once; restart:
              PRAGMA integrity_check is ok and no acknowledged write is missing.
  3 revoke    a key revoked with `flask keys revoke` while requests stream in
              (FLASK_KEY_TOUCH_INTERVAL=0): nothing that starts after the command
              returned succeeds; the key stays revoked (keys list and the row),
              also after the deferred last_used_at writes and a server stop.
  4 full      FLASK_SQLITE_MAX_PAGE_COUNT small: writes get 507 with the
              storage_full envelope, reads keep working, the data written
              before is intact (ledger, integrity_check).
  5 badstart  database in a missing directory, in a read-only directory, a
              read-only file and a file that is not a database; a PostgreSQL
              URL that does not parse, a server that does not answer, a
              database that does not exist, a schema newer than the code:
              gunicorn exits 1 with one line `error: cannot start: ...`.
  6 hosts     two hosts (gunicorn + dispatcher each) on one PostgreSQL database
              (TEST_DATABASE_URL, default the local server), --threads clients
              over both for --load-seconds, --claims due posts claimed through
              both, --pushes posts pushed to a receiver, a key revoked through
              host A; host A SIGKILLed whole mid-load: nothing acknowledged
              lost, no post handed out twice, every push arrives (repeats only
              under the same webhook-id), host B refuses the revoked key on
              its next request and answers throughout.
  7 publish   the service's own publisher (a dispatcher publishing to the
              LinkedIn stand-in) SIGKILLed after the stand-in created a post
              and before the service recorded it: after a restart exactly one
              post at the stand-in, Published after the check at LinkedIn;
              then SIGKILLed before the POST (during the image's upload): the
              post is published once after the restart; no token in any log.

Exits 1 if any step fails. Traffic goes to 127.0.0.1 only.
"""

import argparse
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from faults.report import log, timed
from faults.steps import STEPS


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m faults", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument(
        "--steps", default=",".join(STEPS), help="comma-separated steps to run (default all)"
    )
    p.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    p.add_argument("--threads", type=int, default=32, help="client threads of step 1 (>= 32)")
    p.add_argument("--load-seconds", type=int, default=60)
    p.add_argument(
        "--max-requests",
        type=int,
        default=200_000,
        help="request cap of each load phase, steps 1 and 2",
    )
    p.add_argument("--shared-posts", type=int, default=16, help="posts every step-1 thread PATCHes")
    p.add_argument(
        "--scheduled-posts", type=int, default=800, help="posts scheduled for callbacks in step 1"
    )
    p.add_argument("--crash-threads", type=int, default=16)
    p.add_argument("--crash-seconds", type=int, default=30)
    p.add_argument("--kill-interval", type=float, default=0.5)
    p.add_argument(
        "--crash-pause",
        type=float,
        default=0.0,
        help="seconds each step-2 writer waits between requests",
    )
    p.add_argument("--revoke-threads", type=int, default=8)
    p.add_argument(
        "--revoke-at", type=float, default=2.0, help="seconds of requests before the revoke"
    )
    p.add_argument(
        "--revoke-after", type=float, default=3.0, help="seconds of requests after the revoke"
    )
    p.add_argument(
        "--max-pages", type=int, default=400, help="FLASK_SQLITE_MAX_PAGE_COUNT of step 4"
    )
    p.add_argument("--claims", type=int, default=2000, help="due posts step 6 claims")
    p.add_argument("--pushes", type=int, default=200, help="posts step 6 pushes to a receiver")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    p.add_argument(
        "--strict", action="store_true", help="step 5's extra cases count as failures too"
    )
    p.add_argument("--quick", action="store_true", help="10 s of load, 8 s of crashes")
    p.add_argument(
        "--smoke",
        action="store_true",
        help="one short round of every step: 2 workers, 300 requests per load phase, "
        "2 s of crashes (make test-slow runs this)",
    )
    args = p.parse_args(argv)
    if args.quick:
        args.load_seconds, args.crash_seconds = (
            min(args.load_seconds, 10),
            min(args.crash_seconds, 8),
        )
        args.scheduled_posts = min(args.scheduled_posts, 200)
    if args.smoke:
        args.workers, args.threads, args.load_seconds, args.max_requests = 2, 8, 2, 300
        args.shared_posts, args.scheduled_posts = 6, 24
        args.crash_threads, args.crash_seconds, args.crash_pause = (
            4,
            2,
            0.04,
        )  # the writes span the kills
        args.revoke_threads, args.revoke_at, args.revoke_after = 4, 0.5, 0.5
        args.max_pages = 200  # a new database's schema alone is 122 pages (migration 24)
        args.claims, args.pushes = 200, 20
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    if not steps or any(s not in STEPS for s in steps):
        p.error(f"steps are {', '.join(STEPS)}")
    args.steps = steps
    return args


def main(argv=None):
    args = parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="faults-"))
    log("Content Publishing Service fault harness" + (" -- smoke run" if args.smoke else ""))
    log(f"gunicorn.conf.py, {args.workers} workers, file databases under {tmp}; loopback only")
    started = time.monotonic()
    done = []
    try:
        for s in args.steps:
            module = STEPS[s]
            done.append(timed(module.run, args, tmp, f"{s} {module.__name__.rsplit('.', 1)[1]}"))
    finally:
        if args.keep:
            log(f"\nkept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    log("\nSummary")
    for step in done:
        log(f"  {step.summary()}")
    log(f"total time: {time.monotonic() - started:.0f} s")
    return 0 if done and all(s.ok for s in done) else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    sys.exit(main())
