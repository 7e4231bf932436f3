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
  5. Prints each worker's resident memory, one PASS/FAIL line per scenario
     (it sent requests, none failed), the targets with PASS/FAIL, and exits 1
     only if a request failed (socket error or non-2xx) or a scenario sent none.

    python -m bench                  # full run, about 7 minutes (+1 min the first time: seeding 1M posts)
    python -m bench --quiet-wait 60  # on a shared machine: wait for idle CPU before each run
    python -m bench --quick          # short run, about 1 minute
    python -m bench --smoke          # every scenario once, a few hundred requests each (make test runs it)
    python -m bench --duration 10 --repeats 5 --only get,list,growth

Run from the project root (the Makefile's `make bench` does).
"""

import argparse
import contextlib
import json
import os
import platform
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import handoff, seed
from bench import postgres as bench_postgres
from harness import POSTS, Client, Gunicorn, create_key, postgres

BENCH = Path(__file__).resolve().parent
CLK_TCK = os.sysconf("SC_CLK_TCK")

# name, label, server ("full" | "normal"), lua script, id list ("drafts" | "scheduled" | None)
SCENARIOS = [
    ("get", "GET one post", "full", "get.lua", "drafts"),
    ("list", "GET list page (20)", "full", "list.lua", None),
    ("create", "POST create", "full", "create.lua", None),
    ("patch", "PATCH content", "full", "patch.lua", "drafts"),
    ("callback", "publish callback", "full", "callback.lua", "scheduled"),
    ("mixed", "mixed 80/20 r/w", "full", "mixed.lua", "drafts"),
    ("create_normal", "POST create", "normal", "create.lua", None),
    ("callback_normal", "publish callback", "normal", "callback.lua", "scheduled"),
]
# A smoke run on PostgreSQL: a read, a write and the callback (its due posts
# and published totals) are what differ by backend.
SMOKE_ON_POSTGRES = ("get", "create", "callback")

# Targets (README "Performance and Reliability"). Ratios are of the ceiling's requests/s.
TARGET_RATIO = {"get": 0.75, "list": 0.40, "create": 0.16, "callback": 0.16}
TARGET_P99_FACTOR = 2.0  # GET one post p99 <= 2x the ceiling's p99
TARGET_GROWTH = 1.20  # 1M posts: time per request at most 1.2x that with 1k
TARGET_RSS_MB = 80
# On PostgreSQL (README): a minimal Flask + psycopg app reached about 0.60 (key
# lookup and read) and 0.38 (key lookup and durable insert) of the ceiling here.
TARGET_RATIO_PG = {"get": 0.5, "create": 0.3}

# The handoff scenarios (bench/handoff.py): name -> function.
HANDOFF = {"claim": handoff.claim, "webhooks": handoff.webhooks, "idle": handoff.idle}


def log(msg=""):
    print(msg, flush=True)


# ---------------------------------------------------------------- wrk


class Totals:
    """Every request sent in this run, warm-ups included, for the exit code."""

    def __init__(self):
        self.requests = self.socket_errors = self.non2xx = 0
        self.problems = []

    def add(self, name, r):
        self.requests += r["requests"]
        self.socket_errors += r["socket_errors"]
        self.non2xx += r["non2xx"]
        if r["socket_errors"] or r["non2xx"]:
            self.problems.append(
                f"{name}: {r['socket_errors']} socket errors, {r['non2xx']} non-2xx "
                f"({r['non2xx_kinds'].strip() or '-'}) of {r['requests']} requests"
            )


def cpu_seconds(pids):
    """utime + stime of these processes, in seconds (/proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5)
    return total / CLK_TCK


def busy_seconds():
    """CPU time the whole machine spent busy (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / CLK_TCK  # minus idle and iowait


QUIET = {"waited": 0.0, "gave_up": 0}


def wait_quiet(limit, threshold=0.15):
    """Wait up to `limit` seconds for the machine to be idle (< threshold cores
    busy over one second): other people's test runs on a shared machine
    otherwise land in the middle of a measurement."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        b0, t0 = busy_seconds(), time.monotonic()
        time.sleep(1)
        if (busy_seconds() - b0) / (time.monotonic() - t0) < threshold:
            QUIET["waited"] += time.monotonic() - (deadline - limit)
            return True
    QUIET["waited"] += limit
    QUIET["gave_up"] += 1
    return False


def wrk(args, server, script, duration, script_args, totals, name):
    """One wrk run against `server`; also measures the CPU time the server's
    processes and wrk itself used, and what the rest of the machine used
    (other processes, and kernel work no process is charged for)."""
    if args.quiet_wait and not name.startswith("warm-up"):
        wait_quiet(args.quiet_wait)
    url = server.url
    pids = [server.proc.pid, *server.worker_pids()]
    busy0 = busy_seconds()
    cpu0, wall0 = cpu_seconds(pids), time.monotonic()
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [
        "wrk",
        f"-t{args.threads}",
        f"-c{args.connections}",
        f"-d{duration}s",
        f"--timeout={args.timeout}s",
        "-s",
        str(BENCH / script),
        url,
        "--",
        f"threads={args.threads}",
        *(f"{k}={v}" for k, v in script_args.items()),
    ]
    if args.max_requests:
        cmd.append(f"max_requests={args.max_requests}")  # lib.lua stops each thread at its share
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    wall = time.monotonic() - wall0
    server_cpu = cpu_seconds(pids) - cpu0
    busy = busy_seconds() - busy0
    child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wrk_cpu = (child1.ru_utime - child0.ru_utime) + (child1.ru_stime - child0.ru_stime)
    m = re.search(r"^BENCH_RESULT (\{.*\})$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"wrk failed ({p.returncode}): {p.stdout}\n{p.stderr}")
    r = json.loads(m.group(1))
    r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
    r["socket_errors"] = r["connect"] + r["read"] + r["write"] + r["timeout"]
    r["server_cpu_ms_per_req"] = 1000 * server_cpu / max(r["requests"], 1)
    r["server_cores"] = server_cpu / wall
    r["wrk_cores"] = wrk_cpu / wall
    r["other_cores"] = max(0.0, (busy - server_cpu - wrk_cpu) / wall)
    if p.stderr.strip():
        r["stderr"] = p.stderr.strip()[:2000]
    totals.add(name, r)
    return r


# ---------------------------------------------------------------- helpers


def published_total(server, key):
    with Client(server.url, key, timeout=10) as client:
        r = client.get(f"{POSTS}?status=Published&limit=1")
    if r.status != 200:
        raise RuntimeError(f"counting Published posts: {r.status or r.error} {r.text[:200]}")
    return r.json["total"]


def rss_mb(pid):
    """(VmRSS, VmHWM) in MB from /proc/<pid>/status."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                name, value, _unit = line.split()
                out[name[:-1]] = int(value) / 1024
    return out["VmRSS"], out["VmHWM"]


def write_ids(path, ids):
    Path(path).write_text("".join(f"{i}\n" for i in ids))
    return str(path)


def fmt_ms(us):
    return f"{us / 1000:.1f}"


def median(values):
    return statistics.median(values) if values else float("nan")


def summarize(runs):
    return {
        "rps": median([r["rps"] for r in runs]),
        "p50_us": median([r["p50_us"] for r in runs]),
        "p99_us": median([r["p99_us"] for r in runs]),
        "cpu_ms": median([r["server_cpu_ms_per_req"] for r in runs]),
        "server_cores": median([r["server_cores"] for r in runs]),
        "wrk_cores": median([r["wrk_cores"] for r in runs]),
        "other_cores": median([r["other_cores"] for r in runs]),
        "socket_errors": sum(r["socket_errors"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "requests": sum(r["requests"] for r in runs),
        "all_rps": [round(r["rps"]) for r in runs],
    }


def machine_info():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[
        0
    ]
    return (
        f"{os.cpu_count()} cores ({cpu}); Python {platform.python_version()}; "
        f"SQLite {sqlite3.sqlite_version}; {wrk_version.split(' Copyright')[0].strip()}"
    )


def scan_log(path):
    text = Path(path).read_text(errors="replace") if Path(path).exists() else ""
    return {
        "tracebacks": text.count("Traceback"),
        "database is locked": text.count("database is locked"),
        "worker timeouts": text.count("WORKER TIMEOUT"),
    }


# ---------------------------------------------------------------- main


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
        "--no-handoff", action="store_true", help="skip the claim, webhooks and idle scenarios"
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
        + ",".join([s[0] for s in SCENARIOS] + ["growth", *HANDOFF]),
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
        "no warm-up, small uncached databases; targets are not judged (make test runs this)",
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
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = set(only) - {s[0] for s in SCENARIOS} - {"growth", *HANDOFF}
    if unknown:
        sys.exit(f"error: unknown scenario(s) {', '.join(sorted(unknown))}")
    wanted = [s for s in SCENARIOS if not only or s[0] in only]
    handoffs = [] if args.no_handoff else [h for h in HANDOFF if not only or h in only]
    if only and "growth" not in only:
        args.no_growth = True
    if not wanted and args.no_growth and not handoffs:
        sys.exit("error: nothing to run")

    if args.backend != "sqlite":
        problem = postgres.reachable()
        if problem:
            sys.exit(f"error: no PostgreSQL at {postgres.base_url()} ({problem})")
    tmp = Path(tempfile.mkdtemp(prefix="bench-"))
    totals = Totals()
    results = {
        "machine": machine_info(),
        "settings": {},
        "scenarios": {},
        "growth": {},
        "handoff": {},
        "rss": {},
    }
    results["settings"] = {
        k: getattr(args, k)
        for k in (
            "duration",
            "repeats",
            "warmup",
            "connections",
            "threads",
            "workers",
            "drafts",
            "scheduled",
        )
    }
    servers = []
    started = time.monotonic()
    schemas = (
        contextlib.ExitStack()
    )  # PostgreSQL schemas of this run, dropped after the servers stop

    def fresh_pg(prefix):
        return schemas.enter_context(postgres.fresh_database(prefix=prefix))

    try:
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

        handoff_ok = True
        if args.backend != "postgresql":
            if wanted:
                run_scenarios(args, wanted, tmp, totals, results, servers)
            if not args.no_growth:
                run_growth(args, tmp, totals, results, servers)
            handoff_ok = all(
                HANDOFF[name](args, tmp, totals, results, servers, sys.modules[__name__])
                for name in handoffs
            )
        if args.backend != "sqlite":
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
            if args.backend == "both":
                report_beside(results)
        report_rss(results, servers)
        for name, server in [(s.name, s) for s in servers]:
            found = scan_log(server.log)
            results.setdefault("logs", {})[name] = found
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


def launch_server(tmp, name, database, servers, app="wsgi:app", env=None, workers=4):
    """Start gunicorn with the production settings (access log off) without
    waiting for it: several start at once, then wait_ready() on each."""
    server = Gunicorn(
        database,
        app=app,
        workers=workers,
        env=env,
        log=tmp / f"{name}.log",
        extra_args=["--access-logfile", "/dev/null"],
        name=name,
    )
    servers.append(server)
    return server.launch()


def start_server(tmp, name, database, servers, app="wsgi:app", env=None, workers=4):
    return launch_server(tmp, name, database, servers, app, env, workers).wait_ready()


def run_scenarios(args, wanted, tmp, totals, results, servers, fresh_pg=None):
    """The scenarios between ceiling runs, on an SQLite file or, with
    `fresh_pg` (which returns the URL of a new schema), on PostgreSQL."""
    db = fresh_pg("bench") if fresh_pg else tmp / "bench.sqlite"
    t0 = time.monotonic()
    log(
        f"seeding {args.drafts:,} Draft + {args.scheduled:,} Scheduled posts (store.posts, 1k per transaction)"
    )
    seeded = seed.seed_main(db, args.drafts, args.scheduled, progress=lambda m: None)
    log(f"  done in {time.monotonic() - t0:.1f} s")
    key = create_key(db, seed.CALLER)
    drafts_file = write_ids(tmp / "drafts.txt", seeded["drafts"])
    scheduled = [f"{pid} {n}" for n, pid in enumerate(seeded["scheduled"], start=1)]
    cursor = 0  # next never-published Scheduled post

    if fresh_pg:
        srv = {
            "full": launch_server(tmp, "pg-service", db, servers, workers=args.workers),
            "ceiling": launch_server(
                tmp, "pg-ceiling", db, servers, app="bench.ceiling_app:app", workers=args.workers
            ),
        }
    else:
        srv = {
            "full": launch_server(
                tmp,
                "service-FULL",
                db,
                servers,
                env={"FLASK_SQLITE_SYNCHRONOUS": "FULL"},
                workers=args.workers,
            ),
            "normal": launch_server(
                tmp,
                "service-NORMAL",
                db,
                servers,
                env={"FLASK_SQLITE_SYNCHRONOUS": "NORMAL"},
                workers=args.workers,
            ),
            "ceiling": launch_server(
                tmp, "ceiling", db, servers, app="bench.ceiling_app:app", workers=args.workers
            ),
        }
    for server in srv.values():
        server.wait_ready()

    def script_args(id_list):
        nonlocal cursor
        a = {"key": key}
        if id_list == "drafts":
            a["ids"] = drafts_file
        elif id_list == "scheduled":
            if cursor >= len(scheduled) - 100:
                cursor = 0  # wrapped: these callbacks repeat earlier ones (200, unchanged)
            a["ids"] = write_ids(tmp / "scheduled.txt", scheduled[cursor:])
        return a

    # Warm-up: every worker of every server answers (connections opened, caches filled).
    if args.warmup:
        log(f"warm-up: {args.warmup:g} s per server")
        wrk(args, srv["ceiling"], "ceiling.lua", args.warmup, {}, totals, "warm-up ceiling")
        for name in [n for n in srv if n != "ceiling"]:  # PostgreSQL has no "normal"
            wrk(
                args,
                srv[name],
                "get.lua",
                args.warmup,
                {"key": key, "ids": drafts_file},
                totals,
                f"warm-up {name}",
            )

    ceiling_runs, runs, pair_ratio = [], {s[0]: [] for s in wanted}, {s[0]: [] for s in wanted}
    p99_ratio = {s[0]: [] for s in wanted}
    published = {
        "full": [0, 0, 0],
        "normal": [0, 0, 0],
    }  # callback requests, ids sent, posts published
    for rnd in range(args.repeats):
        # ceiling, scenario, ceiling, scenario, ..., ceiling: each scenario run is
        # compared with the mean of the ceiling runs on either side of it, which
        # cancels most of the drift of this shared machine's speed.
        before_c = wrk(args, srv["ceiling"], "ceiling.lua", args.duration, {}, totals, "ceiling")
        ceiling_runs.append(before_c)
        for name, _label, where, script, id_list in wanted:
            before = published_total(srv[where], key) if id_list == "scheduled" else None
            r = wrk(args, srv[where], script, args.duration, script_args(id_list), totals, name)
            if id_list == "scheduled":
                published[where][0] += r["requests"]
                published[where][1] += r["ids_span"]
                published[where][2] += published_total(srv[where], key) - before
                cursor += r["ids_span"]
            if args.smoke:  # does every scenario still run? one ceiling run is enough
                after_c = before_c
            else:
                after_c = wrk(
                    args, srv["ceiling"], "ceiling.lua", args.duration, {}, totals, "ceiling"
                )
                ceiling_runs.append(after_c)
            ceiling_rps = (before_c["rps"] + after_c["rps"]) / 2
            runs[name].append(r)
            pair_ratio[name].append(r["rps"] / ceiling_rps)
            p99_ratio[name].append(r["p99_us"] / ((before_c["p99_us"] + after_c["p99_us"]) / 2))
            log(
                f"  round {rnd + 1}/{args.repeats} {name:<16} {r['rps']:8.0f} req/s"
                f"  ceiling {before_c['rps']:6.0f} / {after_c['rps']:6.0f}"
                f"  ratio {r['rps'] / ceiling_rps:5.2f}  errors {r['socket_errors']}+{r['non2xx']}"
            )
            if r.get("stderr"):
                log("    wrk: " + r["stderr"].replace("\n", "\n    wrk: "))
            before_c = after_c

    ceiling = summarize(ceiling_runs)
    results["ceiling"] = ceiling
    log()
    log(
        f"Scenarios: medians of {args.repeats} run(s) of {args.duration:g} s. ratio = median over runs of"
    )
    log(
        "req/s / mean req/s of the two ceiling runs around it. errors = socket errors + non-2xx (all runs)."
    )
    log(
        "p99 x = median of p99 / mean p99 of those two ceiling runs. cpu ms/req = CPU time of gunicorn"
    )
    log(
        "(master + workers) per request; wrk / other = cores used by wrk / by everything else (other"
    )
    log("processes, and kernel network work charged to no process) during the run.")
    log()
    head = (
        f"{'scenario':<22} {'sync':<6} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} "
        f"{'ratio':>6} {'p99 x':>6} {'cpu ms/req':>10} {'wrk':>5} {'other':>5}"
    )
    log(head)
    log("-" * len(head))

    def row(label, sync, s, ratio, p99r):
        log(
            f"{label:<22} {sync:<6} {s['rps']:7.0f} {fmt_ms(s['p50_us']):>7} {fmt_ms(s['p99_us']):>7} "
            f"{s['socket_errors'] + s['non2xx']:>6} {ratio:6.2f} {p99r:6.2f} {s['cpu_ms']:10.2f} {s['wrk_cores']:5.2f} "
            f"{s['other_cores']:5.2f}"
        )

    row("ceiling (bare Flask)", "-", ceiling, 1.0, 1.0)
    for name, label, where, _script, _id_list in wanted:
        s = summarize(runs[name])
        s["ratio"] = median(pair_ratio[name])
        s["p99_ratio"] = median(p99_ratio[name])
        s["sync"] = "on" if fresh_pg else "FULL" if where == "full" else "NORMAL"
        results["scenarios"][name] = s
        row(label, s["sync"], s, s["ratio"], s["p99_ratio"])
    log()
    log(
        f"The ceiling ranged {min(ceiling['all_rps'])}..{max(ceiling['all_rps'])} req/s over the "
        f"{len(ceiling_runs)} ceiling runs (this machine's speed drifts; hence the interleaving)."
    )
    log("per-run req/s: " + "; ".join(f"{n} {results['scenarios'][n]['all_rps']}" for n in runs))
    for where, (requests, sent, fresh) in published.items():
        if requests:
            log(
                f"callbacks ({s['sync'] if fresh_pg else 'FULL' if where == 'full' else 'NORMAL'}): {requests:,} completed in the "
                f"measured time ({sent:,} sent); {fresh:,} published a Scheduled post, the others "
                "(if any) repeated a callback already applied (200, unchanged)"
            )
    results["callbacks"] = published
    if fresh_pg:
        bench_postgres.two_hosts(
            args,
            tmp,
            totals,
            results,
            servers,
            sys.modules[__name__],
            srv["full"],
            db,
            {"key": key, "ids": drafts_file},
        )


def run_growth(args, tmp, totals, results, servers, fresh_pg=None):
    log()
    log(
        f"Growth check: GET one post and the first list page, {args.growth_small:,} vs "
        f"{args.growth_posts:,} posts in the database (10 users; the caller owns a tenth)"
    )
    t0 = time.monotonic()
    small = fresh_pg("growth_small") if fresh_pg else tmp / "growth-small.sqlite"
    small_meta = seed.seed_growth(small, args.growth_small, progress=lambda m: None)
    if fresh_pg:
        big, big_meta = bench_postgres.growth_db(
            args.growth_posts, tmp, log, cache=not args.smoke, fresh=lambda: fresh_pg("growth_big")
        )
        log(f"  databases ready in {time.monotonic() - t0:.0f} s")
    else:
        big, big_meta = seed.growth_db(args.growth_posts, tmp, progress=log, cache=not args.smoke)
        log(
            f"  databases ready in {time.monotonic() - t0:.0f} s ({big.stat().st_size / 1e6:,.0f} MB big)"
        )
    prefix = "pg-" if fresh_pg else ""
    dbs = {"small": (small, small_meta), "big": (big, big_meta)}
    cfg = {}
    for name, (path, meta) in dbs.items():
        key = create_key(path, seed.CALLER)
        ids = write_ids(tmp / f"growth-{name}-ids.txt", meta["caller_ids"])
        server = launch_server(tmp, f"{prefix}growth-{name}", path, servers, workers=args.workers)
        cfg[name] = (server, {"key": key, "ids": ids}, meta["caller_posts"])
    for name, (server, sargs, _) in cfg.items():
        server.wait_ready()
        if args.warmup:
            wrk(args, server, "get.lua", args.warmup, sargs, totals, f"warm-up growth {name}")
    # small, big, small, big, ..., small for each request: every big-database run
    # is compared with the mean of the small-database runs on either side of it.
    # A smoke run asks only whether the growth runs still work: GET one is
    # enough, the list page goes through the same code.
    kinds = ("get",) if args.smoke else ("get", "list")
    runs = {(k, n): [] for k in kinds for n in dbs}
    slowdowns = {kind: [] for kind in kinds}
    for kind in kinds:

        def one(name, kind=kind):
            server, sargs, _ = cfg[name]
            r = wrk(
                args, server, f"{kind}.lua", args.duration, sargs, totals, f"growth {kind} {name}"
            )
            runs[(kind, name)].append(r)
            return r

        # A smoke run's one round compares big with one small run after it.
        prev = None if args.smoke else one("small")
        for rnd in range(args.repeats):
            big_run = one("big")
            nxt = one("small")
            prev = prev or nxt
            slowdowns[kind].append((prev["rps"] + nxt["rps"]) / 2 / big_run["rps"])
            log(
                f"  {kind:<4} round {rnd + 1}/{args.repeats}: {args.growth_posts:,} posts {big_run['rps']:6.0f} req/s;"
                f" {args.growth_small:,} posts {prev['rps']:6.0f} / {nxt['rps']:6.0f}; slowdown x{slowdowns[kind][-1]:.2f}"
            )
            prev = nxt
    log()
    log("slowdown = median over runs of (mean req/s of the small-database runs around it / req/s)")
    head = (
        f"{'request':<20} {'posts':>10} {'caller':>8} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>7} {'slowdown':>9}"
    )
    log(head)
    log("-" * len(head))
    for kind, label in (("get", "GET one post"), ("list", "GET list page (20)"))[: len(kinds)]:
        for name, total in (("small", args.growth_small), ("big", args.growth_posts)):
            s = summarize(runs[(kind, name)])
            s["slowdown"] = median(slowdowns[kind]) if name == "big" else 1.0
            results["growth"][f"{kind}_{name}"] = s
            log(
                f"{label:<20} {total:>10,} {cfg[name][2]:>8,} {s['rps']:8.0f} {fmt_ms(s['p50_us']):>8} "
                f"{fmt_ms(s['p99_us']):>8} {s['socket_errors'] + s['non2xx']:>7} {s['slowdown']:8.2f}x"
            )
    results["growth"]["posts"] = {"small": args.growth_small, "big": args.growth_posts}


def report_rss(results, servers):
    log()
    log("Worker resident memory after the runs (VmRSS / peak VmHWM from /proc/<pid>/status):")
    for server in servers:
        if server.proc is None or server.proc.poll() is not None:
            continue
        figures = []
        for pid in server.worker_pids():
            try:
                rss, hwm = rss_mb(pid)
            except FileNotFoundError:
                continue
            figures.append((pid, rss, hwm))
        results["rss"][server.name] = figures
        log(
            f"  {server.name:<16} "
            + ", ".join(f"pid {p}: {r:.1f} MB (peak {h:.1f})" for p, r, h in figures)
        )


def report_targets(args, results, totals):
    log()
    log(
        "Server logs: "
        + "; ".join(
            f"{name}: " + ", ".join(f"{v} {k}" for k, v in found.items())
            for name, found in results.get("logs", {}).items()
        )
    )
    others = [s["other_cores"] for s in results["scenarios"].values()]
    if results.get("ceiling"):
        others.append(results["ceiling"]["other_cores"])
    if others and max(others) > 0.5:
        log()
        log(
            f"WARNING: up to {max(others):.2f} cores went to other work during the runs (other processes,"
            " or unattributed kernel time): the machine was not quiet and the figures are low and noisy."
        )
    ran_ok = report_requests(results)
    log()
    log("Targets")
    checks = []
    sc = results["scenarios"]
    ceiling = results.get("ceiling")

    def check(ok, text):
        checks.append((ok, text))
        log(f"  {'PASS' if ok else 'FAIL'}  {text}")

    if args.smoke:
        log("  (throughput, latency and growth targets are not judged in a smoke run)")
        sc, ceiling = {}, None
    else:
        handoff.report(args, results, check)
    if ceiling and "get" in sc:
        ok = sc["get"]["ratio"] >= TARGET_RATIO["get"]
        check(ok, f"GET one post >= {TARGET_RATIO['get']} of ceiling: {sc['get']['ratio']:.2f}")
        check(
            sc["get"]["p99_ratio"] <= TARGET_P99_FACTOR,
            f"GET one post p99 <= {TARGET_P99_FACTOR:g}x ceiling p99: x{sc['get']['p99_ratio']:.2f} "
            f"(median of p99 / p99 of the ceiling runs around it; {fmt_ms(sc['get']['p99_us'])} ms vs "
            f"{fmt_ms(ceiling['p99_us'])} ms overall)",
        )
    if "list" in sc:
        check(
            sc["list"]["ratio"] >= TARGET_RATIO["list"],
            f"list page >= {TARGET_RATIO['list']} of ceiling: {sc['list']['ratio']:.2f}",
        )
    for name in ("create", "callback"):
        if name in sc:
            check(
                sc[name]["ratio"] >= TARGET_RATIO[name],
                f"{name} (synchronous=FULL) >= {TARGET_RATIO[name]} of ceiling: {sc[name]['ratio']:.2f}",
            )
    g = {} if args.smoke else results["growth"]
    for kind, label in (("get", "GET one post"), ("list", "list page")):
        if f"{kind}_big" in g:
            slow = g[f"{kind}_big"]["slowdown"]
            check(
                slow <= TARGET_GROWTH,
                f"{label} with {args.growth_posts:,} posts at most {TARGET_GROWTH - 1:.0%} slower than with "
                f"{args.growth_small:,}: time per request x{slow:.2f}",
            )
    pg = {} if args.smoke else results.get("postgresql", {})
    for name, target in TARGET_RATIO_PG.items():
        if name in pg.get("scenarios", {}):
            ratio = pg["scenarios"][name]["ratio"]
            check(ratio >= target, f"PostgreSQL {name} >= {target} of ceiling: {ratio:.2f}")
    for kind, label in (("get", "GET one post"), ("list", "list page")):
        if f"{kind}_big" in pg.get("growth", {}):
            slow = pg["growth"][f"{kind}_big"]["slowdown"]
            check(
                slow <= TARGET_GROWTH,
                f"PostgreSQL {label} with {args.growth_posts:,} posts at most "
                f"{TARGET_GROWTH - 1:.0%} slower than with {args.growth_small:,}: x{slow:.2f}",
            )
    check(
        totals.socket_errors == 0 and totals.non2xx == 0,
        f"zero socket errors and zero non-2xx: {totals.socket_errors} socket errors, {totals.non2xx} "
        f"non-2xx in {totals.requests:,} requests (warm-ups included)",
    )
    for p in totals.problems:
        log(f"        {p}")
    service_rss = [
        rss for name, figs in results["rss"].items() if name != "ceiling" for _, rss, _ in figs
    ]
    if service_rss:
        worst = max(service_rss)
        check(
            worst < TARGET_RSS_MB,
            f"service worker RSS < {TARGET_RSS_MB} MB: largest {worst:.1f} MB",
        )
    results["targets"] = [{"ok": ok, "text": text} for ok, text in checks]
    missed = sum(1 for ok, _ in checks if not ok)
    log(
        f"  {len(checks) - missed} met, {missed} missed (missed throughput targets do not fail the run)"
    )
    return ran_ok


def report_beside(results):
    """SQLite's and PostgreSQL's figures side by side, as ratios to their ceilings."""
    sqlite, pg = results["scenarios"], results["postgresql"]["scenarios"]
    log()
    log("Side by side (req/s and ratio to the ceiling runs around each run):")
    head = f"{'scenario':<18} {'SQLite (FULL)':>18} {'PostgreSQL':>18}"
    log(head)
    log("-" * len(head))
    for name, label, *_ in SCENARIOS:
        if name in pg:
            cells = [
                f"{r[name]['rps']:7.0f} {r[name]['ratio']:5.2f}x" if name in r else "-"
                for r in (sqlite, pg)
            ]
            log(f"{label:<18} {cells[0]:>18} {cells[1]:>18}")
    for kind in ("get", "list"):
        cells = [
            f"x{g[f'{kind}_big']['slowdown']:.2f}" if f"{kind}_big" in g else "-"
            for g in (results["growth"], results["postgresql"]["growth"])
        ]
        log(f"{'growth ' + kind:<18} {cells[0]:>18} {cells[1]:>18}")


def report_requests(results):
    """One PASS/FAIL line per scenario: it ran requests and none failed.
    Returns True if every one passed."""
    log()
    log("Requests per scenario (all its runs): PASS when it sent requests and none failed")
    rows = []
    if results.get("ceiling"):
        rows.append(("ceiling", results["ceiling"]))
    rows += list(results["scenarios"].items())
    rows += [(f"growth {k}", v) for k, v in results["growth"].items() if k != "posts"]
    pg = results.get("postgresql", {})
    if pg.get("ceiling"):
        rows.append(("pg ceiling", pg["ceiling"]))
    rows += [(f"pg {k}", v) for k, v in pg.get("scenarios", {}).items()]
    rows += [(f"pg two hosts {k}", v) for k, v in pg.get("two_hosts", {}).items()]
    rows += [(f"pg growth {k}", v) for k, v in pg.get("growth", {}).items() if k != "posts"]
    ok_all = True
    for name, s in rows:
        ok = s["requests"] > 0 and s["socket_errors"] == 0 and s["non2xx"] == 0
        ok_all = ok_all and ok
        log(
            f"  {'PASS' if ok else 'FAIL'}  {name}: {s['requests']:,} requests, {s['socket_errors']} socket errors, "
            f"{s['non2xx']} non-2xx"
        )
    return ok_all
