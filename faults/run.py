"""Fault harness: the service under load, crashes, a revoke race, a full disk
and bad starts, against real gunicorn (4 workers) on a file database.

    python faults/run.py                 # every step, about 3 minutes
    python faults/run.py --quick         # shorter load and crash phases, about 1 minute
    python faults/run.py --steps 2,4     # some steps only
    python faults/run.py --load-seconds 20 --threads 48

Steps (each bounded in time; each prints its figures and PASS/FAIL):
  1 load      >= 32 client threads for --load-seconds: creates, PATCHes with and
              without If-Match on shared posts, publish callbacks on posts
              scheduled first, reads. A client-side ledger of every acknowledged
              (2xx) create and change; afterwards every acknowledged create is
              in the database, every post's version is 1 + its acknowledged
              changes, its content one that was acknowledged, zero 5xx, zero
              "database is locked" in responses or the server log.
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
  5 badstart  database in a missing directory, in a read-only directory, and a
              file that is not a database: gunicorn exits 1 with one line
              `error: cannot start: ...` on stderr.

Exits 1 if any step fails. Only the standard library and the project's
requirements are used; traffic goes to 127.0.0.1 only.
"""

import argparse
import collections
import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import live  # noqa: E402

API = "/functions/v1"
POSTS = f"{API}/api-v2-posts"
ITEM = f"{API}/api-v2-posts-item/"
CALLBACK = f"{API}/make-post-callback"
LOCKED = "database is locked"


def log(msg=""):
    print(msg, flush=True)


# ---------------------------------------------------------------- HTTP client


class Result:
    __slots__ = ("status", "headers", "body", "error", "started", "ended")

    def __init__(self, status, headers, body, error, started, ended):
        self.status, self.headers, self.body, self.error = status, headers, body, error
        self.started, self.ended = started, ended

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def ms(self):
        return (self.ended - self.started) * 1000


class Client:
    """One http.client connection, reopened when the server closes it
    (gunicorn's sync workers close after each response). Never retries: a
    request that fails with a connection error is simply not acknowledged."""

    def __init__(self, url, key, timeout=15):
        parts = urlsplit(url)
        self.host, self.port, self.key, self.timeout = parts.hostname, parts.port, key, timeout
        self.conn = None

    def request(self, method, path, body=None, headers=None, key=None):
        h = {"X-API-Key": key or self.key}
        data = None
        if body is not None:
            data = json.dumps(body)
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        started = time.monotonic()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self.conn.request(method, path, body=data, headers=h)
            resp = self.conn.getresponse()
            raw = resp.read()
            headers = {k.lower(): v for k, v in resp.getheaders()}
            if resp.will_close:
                self.close()
            return Result(resp.status, headers, raw, None, started, time.monotonic())
        except (OSError, http.client.HTTPException) as e:
            self.close()
            return Result(None, {}, b"", f"{type(e).__name__}: {e}", started, time.monotonic())

    def close(self):
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
            self.conn = None


def iso(dt):
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def unique(tag):
    return f"{tag} {uuid.uuid4().hex}"


def integrity(db):
    conn = sqlite3.connect(db, timeout=30)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def read_posts(db):
    """{id: (version, content, status, linkedin_post_id)} straight from the file (read-only)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        rows = conn.execute("SELECT id, version, content, status, linkedin_post_id FROM posts")
        return {r[0]: r[1:] for r in rows}
    finally:
        conn.close()


def pct(values, q):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100 * len(values)))]


def new_server(tmp, name, env=None, workers=4, init=True):
    db = tmp / f"{name}.sqlite"
    if init:
        live.flask_cli(db, "init-db", env=env)
    server = live.Server(db, workers=workers, env=env or {}, log=tmp / f"{name}.log")
    server.name = name
    return server


def log_count(server, text):
    p = Path(server.log)
    return p.read_text(errors="replace").count(text) if p.exists() else 0


class Step:
    """Collects a step's checks; a failed check fails the harness."""

    def __init__(self, name):
        self.name, self.checks, self.figures = name, [], []

    def figure(self, text):
        self.figures.append(text)
        log(f"    {text}")

    def check(self, ok, text):
        self.checks.append((bool(ok), text))
        log(f"  {'PASS' if ok else 'FAIL'}  {text}")
        return ok

    @property
    def ok(self):
        return all(ok for ok, _ in self.checks) and bool(self.checks)


def run_threads(n, target, seconds, grace=30):
    """Run target(i, stop) in n threads for `seconds`; returns when all ended."""
    stop = threading.Event()
    threads = [threading.Thread(target=target, args=(i, stop), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    stop.wait(seconds)
    stop.set()
    deadline = time.monotonic() + grace
    for t in threads:
        t.join(max(0.1, deadline - time.monotonic()))
    alive = sum(t.is_alive() for t in threads)
    if alive:
        raise RuntimeError(f"{alive} client threads did not stop within {grace}s")


# ---------------------------------------------------------------- step 1: load


def step_load(args, tmp):
    st = Step("1 load")
    log(f"\n[1] mixed concurrent load: {args.threads} threads, {args.load_seconds} s")
    server = new_server(tmp, "load")
    key = live.create_key(server.database, "loader")
    with server:
        setup = Client(server.url, key)
        lock = threading.Lock()
        changes = collections.Counter()  # post id -> acknowledged changes
        contents = collections.defaultdict(set)  # post id -> every acknowledged content
        created = {}  # post id -> content, acknowledged creates
        published = {}  # post id -> (urn, version after publishing)
        unexpected = collections.Counter()  # (op, status or error) -> n
        statuses = collections.Counter()  # (op, status) -> n
        latencies = collections.defaultdict(list)
        locked_bodies = 0

        def create(client, tag):
            content = unique(tag)
            r = client.request("POST", POSTS, {"type": "personal", "content": content})
            if r.status == 201:
                pid = r.json()["id"]
                with lock:
                    created[pid] = content
                    contents[pid].add(content)
                return pid, r
            return None, r

        # Shared posts for PATCH contention, and posts to schedule for callbacks.
        shared = [create(setup, "shared")[0] for _ in range(args.shared_posts)]
        if None in shared:
            raise RuntimeError("setup: could not create the shared posts")
        when = iso(datetime.now(timezone.utc) + timedelta(seconds=max(120, args.load_seconds + 90)))
        to_publish = collections.deque()

        def schedule_some(i, stop):
            client = Client(server.url, key)
            for _ in range(args.scheduled_posts // 8):
                pid, r = create(client, "to schedule")
                if pid is None:
                    continue
                r = client.request("PATCH", ITEM + pid, {"status": "Scheduled", "scheduled_at": when})
                if r.status == 200:
                    with lock:
                        changes[pid] += 1
                        to_publish.append(pid)
            client.close()

        t0 = time.monotonic()
        run_threads(8, schedule_some, 0, grace=120)
        st.figure(
            f"setup: {len(shared)} shared posts, {len(to_publish)} posts Scheduled for {when} "
            f"in {time.monotonic() - t0:.1f} s"
        )
        published_once = []  # (pid, urn, url, version) for repeated callbacks

        def record(op, r, expected=(200, 201)):
            nonlocal locked_bodies
            with lock:
                statuses[(op, r.status if r.status is not None else "conn-error")] += 1
                latencies[op].append(r.ms)
                if r.status is None or r.status not in expected:
                    unexpected[(op, r.status if r.status is not None else r.error)] += 1
                if LOCKED in r.body.decode("utf8", "replace"):
                    locked_bodies += 1

        def worker(i, stop):
            rnd = random.Random(i)
            client = Client(server.url, key)
            mine = []
            while not stop.is_set():
                x = rnd.random()
                if x < 0.20:
                    pid, r = create(client, f"t{i} create")
                    record("create", r, (201,))
                    if pid:
                        mine.append(pid)
                elif x < 0.40:
                    pid = rnd.choice(shared) if not mine or rnd.random() < 0.7 else rnd.choice(mine)
                    content = unique(f"t{i} patch")
                    r = client.request("PATCH", ITEM + pid, {"content": content})
                    record("patch", r, (200,))
                    if r.status == 200:
                        with lock:
                            changes[pid] += 1
                            contents[pid].add(content)
                elif x < 0.55:
                    pid = rnd.choice(shared)
                    g = client.request("GET", ITEM + pid)
                    record("get", g, (200,))
                    if g.status != 200:
                        continue
                    content = unique(f"t{i} if-match")
                    r = client.request(
                        "PATCH", ITEM + pid, {"content": content}, {"If-Match": g.headers.get("etag", "")}
                    )
                    record("patch-if-match", r, (200, 412))
                    if r.status == 200:
                        with lock:
                            changes[pid] += 1
                            contents[pid].add(content)
                elif x < 0.65:
                    with lock:
                        pid = to_publish.popleft() if to_publish else None
                        again = rnd.choice(published_once) if (pid is None and published_once) else None
                    if pid is not None:
                        n = rnd.randrange(10**12)
                        urn, url = f"urn:li:share:{n}", f"https://www.linkedin.com/feed/update/urn:li:share:{n}"
                        r = client.request("POST", CALLBACK, {"post_id": pid, "linkedin_post_id": urn, "live_url": url})
                        record("callback", r, (200,))
                        if r.status == 200:
                            with lock:
                                changes[pid] += 1
                                published[pid] = urn
                                published_once.append((pid, urn, url, r.json()["version"]))
                    elif again is not None:
                        pid, urn, url, version = again
                        r = client.request("POST", CALLBACK, {"post_id": pid, "linkedin_post_id": urn, "live_url": url})
                        record("callback-repeat", r, (200,))
                        if r.status == 200 and r.json()["version"] != version:
                            with lock:
                                unexpected[("callback-repeat", "version changed")] += 1
                else:
                    if rnd.random() < 0.6:
                        pool = shared if rnd.random() < 0.5 or not mine else mine
                        r = client.request("GET", ITEM + rnd.choice(pool))
                        record("get", r, (200,))
                    else:
                        r = client.request("GET", f"{POSTS}?limit=20&offset={rnd.randrange(0, 200)}")
                        record("list", r, (200,))
            client.close()

        t0 = time.monotonic()
        run_threads(args.threads, worker, args.load_seconds)
        elapsed = time.monotonic() - t0
        setup.close()
    # The server has stopped (SIGTERM, graceful): every acknowledged write is committed.
    total = sum(statuses.values())
    st.figure(f"{total:,} requests in {elapsed:.1f} s ({total / elapsed:,.0f}/s) from {args.threads} threads")
    by_op = collections.defaultdict(dict)
    for (op, status), n in sorted(statuses.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        by_op[op][status] = n
    for op, counts in sorted(by_op.items()):
        lat = latencies[op]
        st.figure(
            f"{op:<16} " + ", ".join(f"{s}: {n:,}" for s, n in counts.items())
            + f"   p50 {statistics.median(lat):.0f} ms, p99 {pct(lat, 99):.0f} ms"
        )
    rows = read_posts(server.database)
    missing = [pid for pid in created if pid not in rows]
    bad_version = {pid: (v, 1 + changes[pid]) for pid, (v, *_rest) in rows.items() if v != 1 + changes[pid]}
    bad_content = [pid for pid, (v, content, *_r) in rows.items() if pid in contents and content not in contents[pid]]
    bad_publish = [pid for pid, urn in published.items() if rows.get(pid, (0, 0, None, None))[2:] != ("Published", urn)]
    fivexx = sum(n for (op, s), n in statuses.items() if isinstance(s, int) and s >= 500)
    conn_errors = sum(n for (op, s), n in statuses.items() if s == "conn-error")
    changes_total = sum(changes.values())
    st.figure(
        f"ledger: {len(created):,} acknowledged creates, {changes_total:,} acknowledged changes "
        f"({len(published):,} publishes); database: {len(rows):,} posts"
    )
    st.check(not missing, f"every acknowledged create is in the database ({len(missing)} missing)")
    st.check(
        not bad_version,
        f"every post's version = 1 + acknowledged changes ({len(bad_version)} differ"
        + (f", e.g. {next(iter(bad_version.items()))}" if bad_version else "") + ")",
    )
    st.check(not bad_content, f"every post's content is one that was acknowledged ({len(bad_content)} differ)")
    st.check(not bad_publish, f"every acknowledged callback left the post Published with its URN ({len(bad_publish)} differ)")
    st.check(fivexx == 0, f"zero 5xx responses ({fivexx})")
    st.check(conn_errors == 0, f"zero connection errors without a fault injected ({conn_errors})")
    st.check(not unexpected, "no unexpected status (only 2xx, and 412 for stale If-Match)"
             + ("" if not unexpected else f": {dict(unexpected.most_common(5))}"))
    in_log = log_count(server, LOCKED)
    st.check(locked_bodies == 0 and in_log == 0,
             f'zero "{LOCKED}": {locked_bodies} in responses, {in_log} in the server log')
    tracebacks = log_count(server, "Traceback")
    st.check(tracebacks == 0, f"zero tracebacks in the server log ({tracebacks})")
    return st


# ---------------------------------------------------------------- step 2: crash


def step_crash(args, tmp):
    st = Step("2 crash")
    log(
        f"\n[2] crash: {args.crash_threads} writer threads; SIGKILL a random worker every "
        f"{args.kill_interval} s for {args.crash_seconds} s, then the master"
    )
    server = new_server(tmp, "crash")
    key = live.create_key(server.database, "crasher")
    server.start()
    lock = threading.Lock()
    acked = {}  # pid -> created content (acknowledged create)
    patches = collections.defaultdict(list)  # pid -> [(content, acknowledged?)] in send order
    counts = collections.Counter()
    kills = []
    try:
        def writer(i, stop):
            rnd = random.Random(1000 + i)
            client = Client(server.url, key, timeout=10)
            mine = []
            while not stop.is_set():
                if not mine or rnd.random() < 0.5:
                    content = unique(f"c{i} create")
                    r = client.request("POST", POSTS, {"type": "personal", "content": content})
                    if r.status == 201:
                        pid = r.json()["id"]
                        mine.append(pid)
                        with lock:
                            acked[pid] = content
                else:
                    pid = rnd.choice(mine)
                    content = unique(f"c{i} patch")
                    with lock:
                        patches[pid].append([content, False])  # sent: may be applied even if not acked
                        entry = patches[pid][-1]
                    r = client.request("PATCH", ITEM + pid, {"content": content})
                    if r.status == 200:
                        entry[1] = True
                with lock:
                    counts[r.status if r.status is not None else "conn-error"] += 1
                if r.status is None:
                    time.sleep(0.02)  # the master is respawning a worker, or is gone
            client.close()

        stop = threading.Event()
        threads = [threading.Thread(target=writer, args=(i, stop), daemon=True) for i in range(args.crash_threads)]
        for t in threads:
            t.start()
        t0 = time.monotonic()
        rnd = random.Random(7)
        while time.monotonic() - t0 < args.crash_seconds:
            time.sleep(args.kill_interval)
            pids = server.worker_pids()
            if pids:
                pid = rnd.choice(pids)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
        before_master = dict(counts)
        server.kill()  # SIGKILL to the master and its workers at once, mid-load
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join(30)
        if any(t.is_alive() for t in threads):
            raise RuntimeError("crash writers did not stop")
    finally:
        with contextlib.suppress(Exception):
            server.kill()
    st.figure(f"{len(kills)} workers SIGKILLed in {args.crash_seconds} s, then the master (SIGKILL to the group)")
    st.figure(
        "responses: " + ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.items(), key=str))
        + f" (before the master kill: {sum(before_master.values()):,})"
    )
    files = [p.name for p in Path(server.database).parent.glob(Path(server.database).name + "*")]
    st.figure(f"files after the crash: {', '.join(sorted(files))}")
    # Restart on the same file, as an operator would.
    restarted = live.Server(server.database, workers=4, log=tmp / "crash-restart.log")
    t0 = time.monotonic()
    with restarted:
        st.figure(f"restarted in {time.monotonic() - t0:.1f} s")
        check = integrity(server.database)
        rows = read_posts(server.database)
        client = Client(restarted.url, key)
        sample = random.Random(3).sample(sorted(acked), min(200, len(acked)))
        api_bad = 0
        for pid in sample:
            r = client.request("GET", ITEM + pid)
            if r.status != 200:
                api_bad += 1
        client.close()
    missing = [pid for pid in acked if pid not in rows]
    lost_changes, bad_content, unanswered_applied = [], [], 0
    for pid, sent in patches.items():
        if pid not in rows:
            continue
        version, content = rows[pid][0], rows[pid][1]
        acked_n = sum(1 for _, ok in sent if ok)
        last_acked = max((k for k, (_, ok) in enumerate(sent) if ok), default=-1)
        if not (1 + acked_n <= version <= 1 + len(sent)):
            lost_changes.append((pid, version, acked_n, len(sent)))
        unanswered_applied += max(0, version - 1 - acked_n)
        allowed = {c for c, _ in sent[max(last_acked, 0):]} if last_acked >= 0 else {acked.get(pid)} | {c for c, _ in sent}
        if content not in allowed:
            bad_content.append(pid)
    n_acked_changes = sum(ok for sent in patches.values() for _, ok in sent)
    st.figure(
        f"ledger: {len(acked):,} acknowledged creates, {n_acked_changes:,} acknowledged changes; "
        f"database: {len(rows):,} posts ({len(rows) - len(acked) if len(rows) >= len(acked) else 0} "
        f"creates and {unanswered_applied} changes committed whose answer was lost in a kill)"
    )
    fivexx = sum(n for k, n in counts.items() if isinstance(k, int) and k >= 500)
    st.check(fivexx == 0, f"zero 5xx responses: killed requests fail as connection errors ({fivexx})")
    st.check(check == ["ok"], f"PRAGMA integrity_check after the restart: {check[:3]}")
    st.check(not missing, f"every acknowledged create survived ({len(missing)} missing)")
    st.check(
        not lost_changes,
        f"every post's version counts all its acknowledged changes ({len(lost_changes)} lost"
        + (f", e.g. {lost_changes[0]}" if lost_changes else "") + ")",
    )
    st.check(not bad_content, f"every post's content is its last acknowledged one or a later sent one ({len(bad_content)} differ)")
    st.check(api_bad == 0, f"the restarted service serves {len(sample)} sampled acknowledged posts ({api_bad} failed)")
    st.check(len(kills) >= args.crash_seconds / args.kill_interval * 0.8, f"{len(kills)} worker kills happened")
    return st


# ---------------------------------------------------------------- step 3: revoke race


def step_revoke(args, tmp):
    st = Step("3 revoke")
    log(f"\n[3] revoke race: {args.revoke_threads} threads stream requests; `flask keys revoke` after 2 s")
    env = {"FLASK_KEY_TOUCH_INTERVAL": "0"}
    server = new_server(tmp, "revoke", env=env)
    victim = live.create_key(server.database, "victim", env=env)
    control = live.create_key(server.database, "control", env=env)
    results = []
    lock = threading.Lock()
    revoked = {}
    with server as srv:
        def streamer(i, stop):
            client = Client(srv.url, victim)
            rnd = random.Random(i)
            mine = []
            while not stop.is_set():
                if rnd.random() < 0.3:
                    r = client.request("POST", POSTS, {"type": "personal", "content": unique(f"v{i}")})
                    kind = "create"
                    if r.status == 201:
                        mine.append(r.json()["id"])
                elif mine and rnd.random() < 0.5:
                    r = client.request("GET", ITEM + rnd.choice(mine))
                    kind = "get"
                else:
                    r = client.request("GET", f"{POSTS}?limit=5")
                    kind = "list"
                with lock:
                    results.append((kind, r.started, r.ended, r.status))
            client.close()

        def revoker():
            time.sleep(2.0)
            revoked["sent"] = time.monotonic()
            out = live.flask_cli(srv.database, "keys", "revoke", victim, env=env)
            revoked["returned"] = time.monotonic()
            revoked["output"] = out.strip()

        rt = threading.Thread(target=revoker, daemon=True)
        rt.start()
        run_threads(args.revoke_threads, streamer, 2.0 + args.revoke_after)
        rt.join(60)
        control_client = Client(srv.url, control)
        control_ok = control_client.request("GET", f"{POSTS}?limit=1").status
        control_client.close()
        time.sleep(0.5)  # deferred last_used_at writes of the last requests
        listing_live = live.flask_cli(srv.database, "keys", "list", env=env)
        row_live = key_row(srv.database, "victim")
    # server stopped: every deferred write has run
    listing_after = live.flask_cli(server.database, "keys", "list", env=env)
    row_after = key_row(server.database, "victim")
    t_ret = revoked.get("returned")
    if t_ret is None:
        st.check(False, "the revoke command ran")
        return st
    after = [r for r in results if r[1] > t_ret]
    during = [r for r in results if r[1] <= t_ret < r[2] or revoked["sent"] <= r[1] <= t_ret]
    before = [r for r in results if r[2] < revoked["sent"]]
    succeeded_after = [r for r in after if r[3] is not None and 200 <= r[3] < 300]
    not_401_after = collections.Counter(r[3] for r in after if r[3] != 401)
    st.figure(f"revoke command: {revoked['output']!r} in {1000 * (t_ret - revoked['sent']):.0f} ms")
    st.figure(
        f"{len(before):,} requests finished before the command started (statuses "
        f"{dict(collections.Counter(r[3] for r in before))}); {len(during):,} overlapped it "
        f"({dict(collections.Counter(r[3] for r in during))}); {len(after):,} started after it returned "
        f"({dict(collections.Counter(r[3] for r in after))})"
    )
    st.check(before and all(r[3] in (200, 201) for r in before), "the key worked before the revoke")
    st.check(len(after) > 0 and not succeeded_after,
             f"no request that started after the revoke returned succeeded ({len(succeeded_after)} did)")
    st.check(not not_401_after, f"all of them got 401 ({dict(not_401_after) or 'yes'})")
    st.check(control_ok == 200, f"another key still works after the revoke ({control_ok})")
    for when, listing, row in (("while serving", listing_live, row_live), ("after the server stopped", listing_after, row_after)):
        state = key_state(listing, "victim")
        st.check(
            state == "revoked" and row["revoked_at"] is not None,
            f"{when}: keys list says {state!r}, revoked_at {row['revoked_at']}, last_used_at {row['last_used_at']}",
        )
    st.check(row_live["revoked_at"] == row_after["revoked_at"], "revoked_at never changed after it was set")
    return st


def key_row(db, user):
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute(
            "SELECT k.revoked_at, k.last_used_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.name = ?",
            (user,),
        ).fetchone()
        return dict(row)
    finally:
        conn.close()


def key_state(listing, user):
    for line in listing.splitlines()[1:]:
        cells = line.split()
        if len(cells) >= 5 and cells[2] == user:
            return cells[4]
    return None


# ---------------------------------------------------------------- step 4: full storage


def step_full(args, tmp):
    st = Step("4 full")
    pages = args.max_pages
    log(f"\n[4] full storage: FLASK_SQLITE_MAX_PAGE_COUNT={pages} ({pages * 4096 // 1024} KiB at 4 KiB pages)")
    env = {"FLASK_SQLITE_MAX_PAGE_COUNT": str(pages)}
    server = new_server(tmp, "full", env=env)
    key = live.create_key(server.database, "filler", env=env)
    ledger = {}  # pid -> (content, version)
    statuses = collections.Counter()
    full_bodies = []
    with server as srv:
        client = Client(srv.url, key)
        deadline = time.monotonic() + 60
        first_full = None
        n = 0
        while time.monotonic() < deadline and n < 20000:
            n += 1
            content = unique("fill " + "x" * 1500)
            r = client.request("POST", POSTS, {"type": "personal", "content": content})
            statuses[("create", r.status)] += 1
            if r.status == 201:
                ledger[r.json()["id"]] = (content, 1)
            else:
                first_full = r
                break
        st.figure(f"{len(ledger):,} posts of ~1.5 KB written before the first refusal")
        # More writes once full: creates, and PATCHes that grow a post.
        for _ in range(20):
            r = client.request("POST", POSTS, {"type": "personal", "content": unique("more " + "y" * 1500)})
            statuses[("create", r.status)] += 1
            full_bodies.append(("create", r))
        patch_ok = 0
        for pid in list(ledger)[:10]:
            content = unique("grown " + "z" * 2900)
            r = client.request("PATCH", ITEM + pid, {"content": content})
            statuses[("patch", r.status)] += 1
            if r.status == 200:
                ledger[pid] = (content, ledger[pid][1] + 1)
                patch_ok += 1
            else:
                full_bodies.append(("patch", r))
        # Reads keep working.
        read_bad = 0
        for pid, (content, version) in ledger.items():
            r = client.request("GET", ITEM + pid)
            statuses[("get", r.status)] += 1
            if r.status != 200 or r.json()["content"] != content or r.json()["version"] != version:
                read_bad += 1
        lst = client.request("GET", f"{POSTS}?limit=20")
        statuses[("list", lst.status)] += 1
        health = client.request("GET", "/health")
        # A worker that dies while the disk is full must boot again (wsgi.py
        # runs init_db at every worker start) and serve reads.
        old_workers = srv.worker_pids()
        for pid in old_workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            new_workers = srv.worker_pids()
            if len(new_workers) == len(old_workers) and not set(new_workers) & set(old_workers):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        after_kill = [client.request("GET", ITEM + pid).status for pid in list(ledger)[:20]]
        master_alive = srv.proc.poll() is None
        client.close()
    st.figure("responses: " + ", ".join(f"{op} {s}: {c}" for (op, s), c in sorted(statuses.items(), key=str)))
    if first_full is not None:
        st.figure(f"first refusal: {first_full.status} {first_full.body[:200].decode('utf8', 'replace')}")
    refusals = [("first create", first_full)] + full_bodies if first_full is not None else full_bodies

    def is_full(r):
        body = r.json() or {}
        return r.status is not None and r.status >= 500 and body.get("error", {}).get("code") == "storage_full"

    creates = [r for op, r in refusals if op != "patch"]
    st.check(first_full is not None, "the database filled up within the bound")
    st.check(creates and all(is_full(r) for r in creates),
             f"every create once full got 5xx + storage_full envelope ({sum(map(is_full, creates))}/{len(creates)}; "
             f"statuses {sorted({r.status for r in creates}, key=str)})")
    patches = [r for op, r in refusals if op == "patch"]
    st.check(all(is_full(r) for r in patches),
             f"PATCHes that grow a post: {patch_ok} fitted (200, in the ledger), {len(patches)} refused with storage_full")
    st.check(read_bad == 0 and lst.status == 200 and health.status == 200,
             f"reads keep working: {len(ledger) - read_bad}/{len(ledger)} posts read back intact, "
             f"list {lst.status}, health {health.status}")
    st.check(master_alive and after_kill and all(x == 200 for x in after_kill),
             f"all {len(old_workers)} workers SIGKILLed while full: they boot again and serve reads "
             f"({after_kill.count(200)}/{len(after_kill)} GETs 200, master {'up' if master_alive else 'gone'})")
    # A whole restart on the full file works too.
    with live.Server(server.database, workers=2, env=env, log=server.log) as again:
        client = Client(again.url, key)
        restart_read = client.request("GET", f"{POSTS}?limit=5").status
        restart_write = client.request("POST", POSTS, {"type": "personal", "content": unique("after restart " + "w" * 1500)})
        client.close()
    st.check(restart_read == 200 and restart_write.status == 507,
             f"a restart on the full file starts; reads {restart_read}, a create {restart_write.status}")
    rows = read_posts(server.database)
    missing = [pid for pid in ledger if pid not in rows or rows[pid][1] != ledger[pid][0] or rows[pid][0] != ledger[pid][1]]
    extra = len(rows) - len(ledger)
    st.check(not missing and extra == 0,
             f"after the stop the file holds exactly the ledger ({len(missing)} missing/different, {extra} extra)")
    check = integrity(server.database)
    st.check(check == ["ok"], f"PRAGMA integrity_check: {check[:3]}")
    traces = log_count(srv, "Traceback")
    st.figure(f"server log: {log_count(srv, 'storage full')} 'storage full' lines, {traces} tracebacks")
    return st


# ---------------------------------------------------------------- step 5: bad starts


def start_fails(database, timeout=30):
    """Run gunicorn the way tests/live.Server does; returns (exit code, stderr)
    or (None, ...) if it is still up after `timeout` (then it is stopped)."""
    env = {**os.environ, "FLASK_DATABASE": str(database), "BIND": f"127.0.0.1:{live.free_port()}", "WEB_CONCURRENCY": "2"}
    proc = subprocess.Popen(
        [str(live.BIN / "gunicorn"), "-c", "gunicorn.conf.py", "wsgi:app"],
        cwd=live.ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(5)
        return None, err


@contextlib.contextmanager
def read_only(path):
    """Make the directory or file `path` unwritable even for root; yields how,
    or None if no way works here (a directory is created if missing).

    Root ignores permission bits, so: chattr +i (an immutable directory refuses
    new files, an immutable file refuses writes, to everyone), else a read-only
    bind mount; chmod when not root."""
    if not path.exists():
        path.mkdir(parents=True)
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield "chmod (not root)"
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0:
        try:
            yield "chattr +i"
        finally:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        return
    bind = subprocess.run(["mount", "--bind", "-o", "ro", str(path), str(path)], capture_output=True)
    if bind.returncode == 0:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], capture_output=True)
        try:
            yield "read-only bind mount"
        finally:
            subprocess.run(["umount", str(path)], capture_output=True)
        return
    yield None


def step_badstart(args, tmp):
    st = Step("5 badstart")
    log("\n[5] bad starts: gunicorn must refuse with one `error: cannot start: ...` line and exit 1")
    base = tmp / "badstart"
    base.mkdir()
    step_warnings = st.warnings = []
    cases = []
    cases.append(("missing directory", base / "no" / "such" / "dir" / "db.sqlite", "does not exist", None))
    junk = base / "junk.sqlite"
    junk.write_bytes(b"this is not an SQLite database\n" * 100)
    cases.append(("file that is not a database", junk, "not an SQLite database", None))
    ro_empty = base / "ro-empty"
    ro_full = base / "ro-with-db"
    ro_full.mkdir()
    live.flask_cli(ro_full / "db.sqlite", "init-db")
    cases.append(("read-only directory (no database yet)", ro_empty / "db.sqlite", "not writable", ro_empty))
    cases.append(("read-only directory holding a database", ro_full / "db.sqlite", "not writable", ro_full))
    ro_file_dir = base / "ro-file"
    ro_file_dir.mkdir()
    ro_file = ro_file_dir / "db.sqlite"
    live.flask_cli(ro_file, "init-db")
    cases.append(("read-only database file", ro_file, "not readable and writable", ro_file))
    # Beyond the list: a real SQLite header over a corrupt file, and a
    # database written by a newer version of the code. Reported; they fail the
    # step only with --strict.
    corrupt = base / "corrupt.sqlite"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    newer_dir = base / "newer"
    newer_dir.mkdir()
    newer = newer_dir / "db.sqlite"
    live.flask_cli(newer, "init-db")
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 999")
    conn.commit()
    conn.close()
    extras = {
        "extra: SQLite header over a corrupt file": (corrupt, "", None),
        "extra: schema newer than the code (user_version 999)": (newer, "", None),
    }
    for label, (db, expect, ro) in extras.items():
        cases.append((label, db, expect, ro))
    for label, db, expect, ro in cases:
        with read_only(ro) if ro else contextlib.nullcontext("-") as how:
            if how is None:
                st.figure(f"{label}: cannot be made read-only for root here (no chattr, no bind mount): NOT TESTED")
                continue
            t0 = time.monotonic()
            code, err = start_fails(db)
            took = time.monotonic() - t0
        lines = [line for line in err.splitlines() if line.startswith("error:")]
        ok = (
            code == 1 and len(lines) == 1 and lines[0].startswith("error: cannot start: ") and expect in lines[0]
            and "Traceback" not in err
        )
        detail = f"exit {code} in {took:.1f} s; stderr error line: {lines}"
        if not lines:
            detail += f"; {len(err.splitlines())} stderr lines, {err.count('Traceback')} tracebacks, last: {err.strip().splitlines()[-1:]}"
        st.figure(f"{label}{'' if how == '-' else f' ({how})'}: {detail}")
        text = f"{label}: exit 1 with one line `error: cannot start: ...`" + (f" naming the problem ({expect!r})" if expect else "")
        if label.startswith("extra:") and not args.strict:
            log(f"  {'ok  ' if ok else 'WARN'}  {text} (not counted; --strict counts it)")
            step_warnings.append((ok, text))
        else:
            st.check(ok, text)
    st.check(junk.read_bytes().startswith(b"this is not"), "the non-database file was left untouched")
    return st


# ---------------------------------------------------------------- main

STEPS = {"1": step_load, "2": step_crash, "3": step_revoke, "4": step_full, "5": step_badstart}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--steps", default="1,2,3,4,5", help="comma-separated steps to run (default all)")
    p.add_argument("--threads", type=int, default=32, help="client threads of step 1 (>= 32)")
    p.add_argument("--load-seconds", type=int, default=60)
    p.add_argument("--shared-posts", type=int, default=16, help="posts every step-1 thread PATCHes")
    p.add_argument("--scheduled-posts", type=int, default=800, help="posts scheduled for callbacks in step 1")
    p.add_argument("--crash-threads", type=int, default=16)
    p.add_argument("--crash-seconds", type=int, default=30)
    p.add_argument("--kill-interval", type=float, default=0.5)
    p.add_argument("--revoke-threads", type=int, default=8)
    p.add_argument("--revoke-after", type=float, default=3.0, help="seconds of requests after the revoke")
    p.add_argument("--max-pages", type=int, default=400, help="FLASK_SQLITE_MAX_PAGE_COUNT of step 4")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    p.add_argument("--strict", action="store_true", help="step 5's extra cases count as failures too")
    p.add_argument("--quick", action="store_true", help="10 s of load, 8 s of crashes")
    args = p.parse_args(argv)
    if args.quick:
        args.load_seconds, args.crash_seconds = min(args.load_seconds, 10), min(args.crash_seconds, 8)
        args.scheduled_posts = min(args.scheduled_posts, 200)
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    if any(s not in STEPS for s in steps):
        p.error(f"steps are {', '.join(STEPS)}")
    tmp = Path(tempfile.mkdtemp(prefix="faults-"))
    log("Content Publishing Service fault harness (issue 6)")
    log(f"gunicorn.conf.py, 4 workers, file databases under {tmp}; loopback only")
    started = time.monotonic()
    done = []
    try:
        for s in steps:
            t0 = time.monotonic()
            try:
                step = STEPS[s](args, tmp)
            except Exception as e:  # a crashed step is a failed step, and the others still run
                step = Step(f"{s} {STEPS[s].__name__[5:]}")
                step.check(False, f"the step raised {type(e).__name__}: {e}")
            step.seconds = time.monotonic() - t0
            done.append(step)
    finally:
        if args.keep:
            log(f"\nkept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    log("\nSummary")
    for step in done:
        failed = sum(1 for ok, _ in step.checks if not ok)
        warned = sum(1 for ok, _ in getattr(step, "warnings", []) if not ok)
        log(
            f"  {'PASS' if step.ok else 'FAIL'}  step {step.name:<12} {len(step.checks) - failed}/{len(step.checks)} checks, "
            f"{step.seconds:.0f} s" + (f"; {warned} extra case(s) WARN (see above)" if warned else "")
        )
    log(f"total time: {time.monotonic() - started:.0f} s")
    return 0 if done and all(s.ok for s in done) else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    sys.exit(main())
