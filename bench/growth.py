"""Growth: GET one post, the first list page and a search against 1,000
posts and against 1,000,000, interleaved.

The search asks for a word that the first 200 posts hold (seed.seed_growth),
so that it finds the same 20 of the caller's, a full page, in either
database: the same answer, looked up among a thousand times more posts. The
prefix search asks for the start of that word ("evergr"), which only it
begins: the same page, read from a range of the index's words."""

import time

from bench import postgres as bench_postgres
from bench import seed
from bench.config import log
from bench.measure import fmt_ms, median, summarize, write_ids
from bench.scenarios import launch_server
from bench.wrk import wrk
from harness import create_key

# kind -> (wrk script, its extra arguments)
SEARCH_PATH = "/functions/v1/api-v2-posts?limit=20&q=evergreen"
PREFIX_PATH = "/functions/v1/api-v2-posts?limit=20&q=evergr"
SCRIPTS = {
    "get": ("get.lua", {}),
    "list": ("list.lua", {}),
    "search": ("list.lua", {"path": SEARCH_PATH}),
    "prefix": ("list.lua", {"path": PREFIX_PATH}),
}
LABELS = {
    "get": "GET one post",
    "list": "GET list page (20)",
    "search": "search (q=, 20)",
    "prefix": "prefix search (20)",
}


def run_growth(args, tmp, totals, results, servers, fresh_pg=None):
    log()
    log(
        f"Growth check: GET one post, the first list page and a search, {args.growth_small:,} vs "
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
    kinds = ("get",) if args.smoke else ("get", "list", "search", "prefix")
    runs = {(k, n): [] for k in kinds for n in dbs}
    slowdowns = {kind: [] for kind in kinds}
    for kind in kinds:

        def one(name, kind=kind):
            server, sargs, _ = cfg[name]
            script, extra = SCRIPTS[kind]
            r = wrk(
                args,
                server,
                script,
                args.duration,
                {**sargs, **extra},
                totals,
                f"growth {kind} {name}",
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
    for kind in kinds:
        label = LABELS[kind]
        for name, total in (("small", args.growth_small), ("big", args.growth_posts)):
            s = summarize(runs[(kind, name)])
            s["slowdown"] = median(slowdowns[kind]) if name == "big" else 1.0
            results["growth"][f"{kind}_{name}"] = s
            log(
                f"{label:<20} {total:>10,} {cfg[name][2]:>8,} {s['rps']:8.0f} {fmt_ms(s['p50_us']):>8} "
                f"{fmt_ms(s['p99_us']):>8} {s['socket_errors'] + s['non2xx']:>7} {s['slowdown']:8.2f}x"
            )
    results["growth"]["posts"] = {"small": args.growth_small, "big": args.growth_posts}
