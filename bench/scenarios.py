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
