"""Step 1: concurrent mixed load; no acknowledged write may be lost.

Client threads create posts, PATCH shared posts with and without If-Match,
publish Scheduled posts through the callback (and repeat callbacks) and
read, all through one harness Ledger. Afterwards every post is read back
through the API and checked against the ledger; no 5xx, no "database is
locked" in any answer or in the server log, no traceback in the log.
"""

from faults.report import Step, log
from harness import (
    Client,
    Gunicorn,
    Ledger,
    create_key,
    init_database,
    prepare_posts,
    read_posts,
    run_load,
)
from harness.ledger import LOCKED


def run(args, tmp):
    st = Step("1 load")
    log(
        f"\n[1] mixed concurrent load: {args.threads} threads, {args.load_seconds} s, at most {args.max_requests:,} requests"
    )
    database = init_database(tmp / "load.sqlite")
    key = create_key(database, "loader")
    ledger = Ledger()
    with Gunicorn(database, workers=args.workers, log=tmp / "load.log", name="load") as server:
        targets = prepare_posts(
            server.url,
            key,
            ledger,
            shared=args.shared_posts,
            scheduled=args.scheduled_posts,
            seconds=args.load_seconds,
        )
        st.figure(
            f"setup: {len(targets.shared)} shared posts, {len(targets.scheduled)} posts Scheduled for callbacks"
        )
        result = run_load(
            server.url,
            key,
            ledger,
            threads=args.threads,
            seconds=args.load_seconds,
            max_requests=args.max_requests,
            targets=targets,
        )
        with Client(server.url, key) as client:
            posts = read_posts(client)
    st.figure(
        f"{result.requests:,} requests in {result.seconds:.1f} s ({result.rate:,.0f}/s) from {args.threads} threads"
    )
    for line in ledger.figures():
        st.figure(line)
    st.figure(f"read back through the API: {len(posts):,} posts")
    st.checks_from(ledger.check_posts(posts))
    st.checks_from(ledger.check_responses())
    locked, tracebacks = server.log_count(LOCKED), server.log_count("Traceback")
    st.check(locked == 0, f'zero "{LOCKED}" in the server log ({locked})')
    st.check(tracebacks == 0, f"zero tracebacks in the server log ({tracebacks})")
    return st
