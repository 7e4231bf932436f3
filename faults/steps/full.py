"""Step 4: a full database (FLASK_SQLITE_MAX_PAGE_COUNT small).

Creates fill the file until the service refuses; from then on creates, and
PATCHes that grow a post, get 507 with the storage_full envelope (now and
then one still fits, where its random id lands in a page with room: a 201,
kept like any other), while
reads keep working and nothing written before changes. Workers SIGKILLed
while the disk is full boot again (wsgi.py runs init_db at every worker
start) and serve reads; a whole restart on the full file works. Afterwards
the posts, read through the API, are exactly the ledger and the file passes
PRAGMA integrity_check.
"""

import contextlib
import os
import signal
import time

from faults.report import Step, log
from harness import (
    ITEM,
    POSTS,
    Client,
    Gunicorn,
    Ledger,
    create_key,
    init_database,
    read_posts,
    unique,
)
from harness.sqlite_direct import integrity_check

FILL_LIMIT = 20_000  # creates before giving up on filling the file
FILL_SECONDS = 60


def run(args, tmp):
    st = Step("4 full")
    pages = args.max_pages
    log(
        f"\n[4] full storage: FLASK_SQLITE_MAX_PAGE_COUNT={pages} ({pages * 4096 // 1024} KiB at 4 KiB pages)"
    )
    env = {"FLASK_SQLITE_MAX_PAGE_COUNT": str(pages)}
    database = init_database(tmp / "full.sqlite", env=env)
    key = create_key(database, "filler", env=env)
    ledger = Ledger()
    log_file = tmp / "full.log"
    with Gunicorn(database, workers=args.workers, env=env, log=log_file, name="full") as server:
        with Client(server.url, key) as client:
            first_full = fill(client, ledger)
            st.figure(f"{len(ledger.posts):,} posts of ~1.5 KB written before the first refusal")
            refused = write_when_full(client, ledger)
            unreadable = read_back(client, ledger)
            health = client.get("/health").status
        workers, after_kill, master_alive = kill_workers_while_full(
            server, key, list(ledger.posts)[:20]
        )
    with Gunicorn(database, workers=2, env=env, log=log_file, name="full-restart") as again:
        with Client(again.url, key) as client:
            restart_read = client.get(f"{POSTS}?limit=5").status
            restart_write = ledger.create(
                client,
                unique("after restart " + "w" * 1500),
                op="create-after-restart",
                expected=(201, 507),
            )
            posts = read_posts(client)
    for line in ledger.figures():
        st.figure(line)
    if first_full is not None:
        st.figure(f"first refusal: {first_full.status} {first_full.text[:200]}")
    creates = [first_full] + refused["create"] if first_full is not None else refused["create"]
    fitted = sum(r.status == 201 for r in creates)
    st.check(first_full is not None, "the database filled up within the bound")
    st.check(
        creates and all(map(refused_or_fitted, creates)) and fitted < len(creates) / 2,
        f"creates once full: {len(creates) - fitted}/{len(creates)} refused with 5xx + storage_full, "
        f"{fitted} fitted (201, in the ledger); statuses {sorted({r.status for r in creates}, key=str)}",
    )
    st.check(
        all(map(is_full, refused["patch"])),
        f"PATCHes that grow a post: {refused['patched']} fitted (200, in the ledger), "
        f"{len(refused['patch'])} refused with storage_full",
    )
    st.check(
        not unreadable and health == 200,
        f"reads keep working while full: all {len(ledger.posts):,} posts read back intact through the list"
        f" ({'; '.join(unreadable) or 'yes'}), health {health}",
    )
    st.check(
        master_alive and after_kill and all(s == 200 for s in after_kill),
        f"all {workers} workers SIGKILLed while full: they boot again and serve reads "
        f"({after_kill.count(200)}/{len(after_kill)} GETs 200, master {'up' if master_alive else 'gone'})",
    )
    st.check(
        restart_read == 200 and refused_or_fitted(restart_write),
        f"a restart on the full file starts; reads {restart_read}, a create {restart_write.status}"
        " (507 storage_full, or 201 where it fitted)",
    )
    st.checks_from(ledger.check_posts(posts))
    st.checks_from(ledger.check_responses())
    integrity = integrity_check(database)  # the server has stopped
    st.check(integrity == ["ok"], f"PRAGMA integrity_check: {integrity[:3]}")
    text = log_file.read_text(errors="replace") if log_file.exists() else ""
    st.figure(
        f"server log: {text.count('storage full')} 'storage full' lines, {text.count('Traceback')} tracebacks"
    )
    return st


def refused_or_fitted(r):
    """A write once the file is full: refused with storage_full, or a 201
    where it still fitted (post ids are random, so one may land in an index
    page with room where the refused one needed a new page)."""
    return is_full(r) or r.status == 201


def is_full(r):
    body = r.json or {}
    return (
        r.status is not None
        and r.status >= 500
        and (body.get("error") or {}).get("code") == "storage_full"
    )


def fill(client, ledger):
    """Create ~1.5 KB posts until one is refused; returns that refusal (or None)."""
    deadline = time.monotonic() + FILL_SECONDS
    for _ in range(FILL_LIMIT):
        if time.monotonic() > deadline:
            break
        r = ledger.create(client, unique("fill " + "x" * 1500), op="fill", expected=(201, 507))
        if r.status != 201:
            return r
    return None


def write_when_full(client, ledger):
    """More creates, and PATCHes that grow a post, once the file is full."""
    creates = [  # most refused; now and then one fits (refused_or_fitted)
        ledger.create(client, unique("more " + "y" * 1500), op="create-full", expected=(201, 507))
        for _ in range(20)
    ]
    patches, patched = [], 0
    for pid in list(ledger.posts)[:10]:
        grown = {"content": unique("grown " + "z" * 2900)}
        r = ledger.patch(client, pid, grown, op="patch-full", expected=(200, 507))
        if r.status == 200:
            patched += 1
        else:
            patches.append(r)
    return {"create": creates, "patch": patches, "patched": patched}


def read_back(client, ledger):
    """Read every post through the list while full; returns the ledger checks
    that fail (none: every post there, with its acknowledged content and version)."""
    return [c.text for c in ledger.check_posts(read_posts(client)) if not c.ok]


def kill_workers_while_full(server, key, sample):
    """SIGKILL every worker, wait for the master to fork new ones, GET `sample`.
    Returns (workers killed, GET statuses, master alive)."""
    old = server.worker_pids()
    for pid in old:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        new = server.worker_pids()
        if len(new) == len(old) and not set(new) & set(old):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    with Client(server.url, key) as client:
        statuses = [client.get(ITEM + pid).status for pid in sample]
    return len(old), statuses, server.running
