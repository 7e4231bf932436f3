"""Step 2: SIGKILL workers, then the master, under write load; restart.

Writer threads create and PATCH posts through a Ledger while a random worker
is SIGKILLed every --kill-interval seconds, then the master and its workers
at once. Requests cut off by a kill get no answer: they may or may not have
been applied, and the ledger allows for both. After a restart on the same
file, PRAGMA integrity_check must be ok and every acknowledged write must be
there, read back through the API.
"""

import contextlib
import os
import random
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from faults.report import Step, log
from harness import (
    WRITES,
    Client,
    Gunicorn,
    Ledger,
    create_key,
    init_database,
    read_posts,
    run_load,
)
from harness.sqlite_direct import integrity_check


def run(args, tmp):
    st = Step("2 crash")
    log(
        f"\n[2] crash: {args.crash_threads} writer threads; SIGKILL a random worker every "
        f"{args.kill_interval} s for {args.crash_seconds} s, then the master"
    )
    database = init_database(tmp / "crash.sqlite")
    key = create_key(database, "crasher")
    ledger = Ledger()
    server = Gunicorn(database, workers=args.workers, log=tmp / "crash.log", name="crash")
    server.start()
    try:
        kills, answered_before_master = load_while_killing(server, key, ledger, args)
    finally:
        server.kill()
    st.figure(
        f"{len(kills)} workers SIGKILLed in {args.crash_seconds} s, then the master (SIGKILL to the group)"
    )
    for line in ledger.figures():
        st.figure(line)
    st.figure(f"{answered_before_master:,} requests had ended before the master was killed")
    files = sorted(p.name for p in database.parent.glob(database.name + "*"))
    st.figure(f"files after the crash: {', '.join(files)}")

    t0 = time.monotonic()
    with Gunicorn(
        database, workers=args.workers, log=tmp / "crash-restart.log", name="crash-restart"
    ) as again:
        st.figure(f"restarted in {time.monotonic() - t0:.1f} s")
        integrity = integrity_check(database)
        with Client(again.url, key) as client:
            posts = read_posts(client)
    st.figure(
        f"read back through the API: {len(posts):,} posts, {max(0, len(posts) - len(ledger.posts))} of them "
        "created by a request whose answer was lost in a kill"
    )
    st.check(integrity == ["ok"], f"PRAGMA integrity_check after the restart: {integrity[:3]}")
    st.checks_from(ledger.check_posts(posts))
    st.checks_from(ledger.check_responses(connection_errors=True))
    expected_kills = args.crash_seconds / args.kill_interval * 0.8
    st.check(
        len(kills) >= expected_kills,
        f"{len(kills)} worker kills happened (at least {expected_kills:.0f})",
    )
    return st


def load_while_killing(server, key, ledger, args):
    """Run the write load in the background, kill workers, then the master.
    Returns (killed worker pids, requests sent before the master kill)."""
    stop = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        load = pool.submit(
            run_load,
            server.url,
            key,
            ledger,
            threads=args.crash_threads,
            seconds=args.crash_seconds + 30,
            max_requests=args.max_requests,
            mix=WRITES,
            stop=stop,
            seed=1,
            timeout=10.0,
            pause=args.crash_pause,
        )
        try:
            kills = kill_workers(server, args.crash_seconds, args.kill_interval)
            before_master = ledger.requests()
            server.kill()  # the master and its workers at once, mid-load
            time.sleep(1.0)  # the writers meet the dead server
        finally:
            stop.set()
        load.result(timeout=60)
    return kills, before_master


def kill_workers(server, seconds, interval, seed=7):
    """SIGKILL a random worker every `interval` s for `seconds`; returns their pids."""
    rnd = random.Random(seed)
    kills = []
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        time.sleep(interval)
        pids = server.worker_pids()
        if pids:
            pid = rnd.choice(pids)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                kills.append(pid)
    return kills
