"""What a run prints at the end: resident memory, the targets met or
missed, the figures side by side, the request counts."""

from bench import analytics, handoff, planning, publisher
from bench import search as bench_search
from bench.config import (
    SCENARIOS,
    TARGET_GROWTH,
    TARGET_P99_FACTOR,
    TARGET_RATIO,
    TARGET_RATIO_PG,
    TARGET_RSS_MB,
    log,
)
from bench.measure import fmt_ms, rss_mb


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
    _report_logs_and_noise(results)
    ran_ok = report_requests(results)
    log()
    log("Targets")
    checks = []

    def check(ok, text):
        checks.append((ok, text))
        log(f"  {'PASS' if ok else 'FAIL'}  {text}")

    if args.smoke:
        log("  (throughput, latency and growth targets are not judged in a smoke run)")
    else:
        handoff.report(args, results, check)
        publisher.report(results, check)
        planning.report(results, check)
        bench_search.report(results, check)
        bench_search.report(results.get("postgresql", {}), check, "PostgreSQL ")
        analytics.report(args, results, check)
        _check_sqlite_throughput(results["scenarios"], results.get("ceiling"), check)
        _check_growth(args, results["growth"], check, "")
        pg = results.get("postgresql", {})
        for name, target in TARGET_RATIO_PG.items():
            if name in pg.get("scenarios", {}):
                ratio = pg["scenarios"][name]["ratio"]
                check(ratio >= target, f"PostgreSQL {name} >= {target} of ceiling: {ratio:.2f}")
        _check_growth(args, pg.get("growth", {}), check, "PostgreSQL ")
    _check_requests_and_memory(results, totals, check)
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


def _report_logs_and_noise(results):
    """What the servers logged, and a warning when the machine was not quiet."""
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


def _check_sqlite_throughput(sc, ceiling, check):
    """The SQLite scenarios against the ceiling: requests/s, and GET's p99."""
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


def _check_growth(args, growth, check, backend):
    """Each read with many posts against few: at most TARGET_GROWTH slower."""
    for kind, label in (
        ("get", "GET one post"),
        ("list", "list page"),
        ("search", "search"),
        ("prefix", "prefix search"),
    ):
        if f"{kind}_big" in growth:
            slow = growth[f"{kind}_big"]["slowdown"]
            check(
                slow <= TARGET_GROWTH,
                f"{backend}{label} with {args.growth_posts:,} posts at most {TARGET_GROWTH - 1:.0%} "
                f"slower than with {args.growth_small:,}: time per request x{slow:.2f}",
            )


def _check_requests_and_memory(results, totals, check):
    """No failed request in the whole run, and every service worker small."""
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
