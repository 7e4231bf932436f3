"""The scenarios of SCENARIOS against the service and the ceiling, each
between two ceiling runs, on SQLite and PostgreSQL."""

import sys
import time

from bench import postgres as bench_postgres
from bench import seed
from bench.config import log
from bench.measure import fmt_ms, median, published_total, summarize, write_ids
from bench.wrk import wrk
from harness import Gunicorn, create_key


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
    ids = _Ids(tmp, create_key(db, seed.CALLER), seeded)
    srv = _launch(args, tmp, db, servers, fresh_pg)
    if args.warmup:
        _warm_up(args, srv, ids, totals)
    measured = _rounds(args, wanted, srv, ids, totals)
    _report(args, wanted, measured, results, fresh_pg)
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
            {"key": ids.key, "ids": ids.drafts_file},
        )


class _Ids:
    """The key and the post ids a wrk script reads: the drafts, and the
    Scheduled posts not yet published (a cursor moves past those used)."""

    def __init__(self, tmp, key, seeded):
        self.tmp, self.key = tmp, key
        self.drafts_file = write_ids(tmp / "drafts.txt", seeded["drafts"])
        self.scheduled = [f"{pid} {n}" for n, pid in enumerate(seeded["scheduled"], start=1)]
        self.cursor = 0  # next never-published Scheduled post

    def script_args(self, id_list):
        a = {"key": self.key}
        if id_list == "drafts":
            a["ids"] = self.drafts_file
        elif id_list == "scheduled":
            if self.cursor >= len(self.scheduled) - 100:
                self.cursor = 0  # wrapped: these callbacks repeat earlier ones (200, unchanged)
            a["ids"] = write_ids(self.tmp / "scheduled.txt", self.scheduled[self.cursor :])
        return a


def _launch(args, tmp, db, servers, fresh_pg):
    """The service (PostgreSQL; or SQLite with FULL and NORMAL sync) and the ceiling."""
    if fresh_pg:
        srv = {
            "full": launch_server(tmp, "pg-service", db, servers, workers=args.workers),
            "ceiling": launch_server(
                tmp, "pg-ceiling", db, servers, app="bench.ceiling_app:app", workers=args.workers
            ),
        }
    else:
        srv = {
            sync.lower(): launch_server(
                tmp,
                f"service-{sync}",
                db,
                servers,
                env={"FLASK_SQLITE_SYNCHRONOUS": sync},
                workers=args.workers,
            )
            for sync in ("FULL", "NORMAL")
        }
        srv["ceiling"] = launch_server(
            tmp, "ceiling", db, servers, app="bench.ceiling_app:app", workers=args.workers
        )
    for server in srv.values():
        server.wait_ready()
    return srv


def _warm_up(args, srv, ids, totals):
    """Every worker of every server answers (connections opened, caches filled)."""
    log(f"warm-up: {args.warmup:g} s per server")
    wrk(args, srv["ceiling"], "ceiling.lua", args.warmup, {}, totals, "warm-up ceiling")
    for name in [n for n in srv if n != "ceiling"]:  # PostgreSQL has no "normal"
        script = {"key": ids.key, "ids": ids.drafts_file}
        wrk(args, srv[name], "get.lua", args.warmup, script, totals, f"warm-up {name}")


def _rounds(args, wanted, srv, ids, totals):
    """ceiling, scenario, ceiling, scenario, ..., ceiling: each scenario run is
    compared with the mean of the ceiling runs on either side of it, which
    cancels most of the drift of this shared machine's speed."""
    m = {
        "ceiling": [],
        "runs": {s[0]: [] for s in wanted},
        "pair_ratio": {s[0]: [] for s in wanted},
        "p99_ratio": {s[0]: [] for s in wanted},
        # callback requests, ids sent, posts published
        "published": {"full": [0, 0, 0], "normal": [0, 0, 0]},
    }
    for rnd in range(args.repeats):
        before_c = wrk(args, srv["ceiling"], "ceiling.lua", args.duration, {}, totals, "ceiling")
        m["ceiling"].append(before_c)
        for name, _label, where, script, id_list in wanted:
            r = _one_run(args, srv[where], where, script, id_list, ids, totals, name, m)
            if args.smoke:  # does every scenario still run? one ceiling run is enough
                after_c = before_c
            else:
                after_c = wrk(
                    args, srv["ceiling"], "ceiling.lua", args.duration, {}, totals, "ceiling"
                )
                m["ceiling"].append(after_c)
            ceiling_rps = (before_c["rps"] + after_c["rps"]) / 2
            m["runs"][name].append(r)
            m["pair_ratio"][name].append(r["rps"] / ceiling_rps)
            m["p99_ratio"][name].append(
                r["p99_us"] / ((before_c["p99_us"] + after_c["p99_us"]) / 2)
            )
            log(
                f"  round {rnd + 1}/{args.repeats} {name:<16} {r['rps']:8.0f} req/s"
                f"  ceiling {before_c['rps']:6.0f} / {after_c['rps']:6.0f}"
                f"  ratio {r['rps'] / ceiling_rps:5.2f}  errors {r['socket_errors']}+{r['non2xx']}"
            )
            if r.get("stderr"):
                log("    wrk: " + r["stderr"].replace("\n", "\n    wrk: "))
            before_c = after_c
    return m


def _one_run(args, server, where, script, id_list, ids, totals, name, m):
    """One wrk run of a scenario; a callback run counts the posts it published."""
    before = published_total(server, ids.key) if id_list == "scheduled" else None
    r = wrk(args, server, script, args.duration, ids.script_args(id_list), totals, name)
    if id_list == "scheduled":
        counts = m["published"][where]
        counts[0] += r["requests"]
        counts[1] += r["ids_span"]
        counts[2] += published_total(server, ids.key) - before
        ids.cursor += r["ids_span"]
    return r


def _report(args, wanted, m, results, fresh_pg):
    """The table of medians, and results["scenarios"], ["ceiling"], ["callbacks"]."""
    ceiling = summarize(m["ceiling"])
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
    _row("ceiling (bare Flask)", "-", ceiling, 1.0, 1.0)
    for name, label, where, _script, _id_list in wanted:
        s = summarize(m["runs"][name])
        s["ratio"] = median(m["pair_ratio"][name])
        s["p99_ratio"] = median(m["p99_ratio"][name])
        s["sync"] = "on" if fresh_pg else "FULL" if where == "full" else "NORMAL"
        results["scenarios"][name] = s
        _row(label, s["sync"], s, s["ratio"], s["p99_ratio"])
    log()
    log(
        f"The ceiling ranged {min(ceiling['all_rps'])}..{max(ceiling['all_rps'])} req/s over the "
        f"{len(m['ceiling'])} ceiling runs (this machine's speed drifts; hence the interleaving)."
    )
    log(
        "per-run req/s: "
        + "; ".join(f"{n} {results['scenarios'][n]['all_rps']}" for n in m["runs"])
    )
    for where, (requests, sent, fresh) in m["published"].items():
        if requests:
            sync = "on" if fresh_pg else "FULL" if where == "full" else "NORMAL"
            log(
                f"callbacks ({sync}): {requests:,} completed in the measured time ({sent:,} sent); "
                f"{fresh:,} published a Scheduled post, the others (if any) repeated a callback "
                "already applied (200, unchanged)"
            )
    results["callbacks"] = m["published"]


def _row(label, sync, s, ratio, p99r):
    log(
        f"{label:<22} {sync:<6} {s['rps']:7.0f} {fmt_ms(s['p50_us']):>7} {fmt_ms(s['p99_us']):>7} "
        f"{s['socket_errors'] + s['non2xx']:>6} {ratio:6.2f} {p99r:6.2f} {s['cpu_ms']:10.2f} {s['wrk_cores']:5.2f} "
        f"{s['other_cores']:5.2f}"
    )
