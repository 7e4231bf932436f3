"""Handing posts to automations: claims, pushed webhooks, an idle dispatcher.

    claim     8 claimers (limit=10) drain N due posts; claims/s as a ratio to
              the ceiling at the same concurrency, and duplicate and missed
              posts (both must be 0).
    webhooks  N posts due in the same second, one dispatcher, a receiver that
              answers 200 at once: scheduled_at -> receipt p50 and p99, and the
              deliveries per second of that one dispatcher.
    idle      GET one post with an idle dispatcher beside gunicorn, paused
              and running in turn: its polling must cost reads under 5%.

Called by bench/run.py (`--only claim,webhooks,idle`).
"""

import collections
import os
import signal
import statistics
from datetime import UTC, datetime, timedelta

from bench import seed
from bench.config import log
from bench.measure import write_ids
from bench.scenarios import launch_server, start_server
from bench.wrk import cpu_seconds, wrk
from harness import Client, Dispatcher, Receiver, create_key, rfc3339
from harness.claims import drain

POSTS = "/functions/v1/api-v2-posts"
CLAIMERS = 8
TARGET_CLAIMS_PER_S = 400
TARGET_P99_S = 1.0
TARGET_DELIVERIES_PER_S = 500
TARGET_IDLE_DROP = 0.05


def claim(args, tmp, totals, results, servers):
    """The claimers are
    Python threads, not wrk: wrk runs for a fixed time, and a drain ends when
    the queue is empty."""
    n = args.claim_posts
    db = tmp / "claim.sqlite"
    log(f"claim: seeding {n:,} due posts")
    seed.seed_main(db, 0, n, status="Due", progress=lambda m: None)
    key = create_key(db, seed.CALLER)
    service = launch_server(tmp, "claim-service", db, servers, workers=args.workers)
    ceiling = launch_server(
        tmp, "claim-ceiling", db, servers, app="bench.ceiling_app:app", workers=args.workers
    )
    service.wait_ready(), ceiling.wait_ready()
    narrow = _with(args, connections=CLAIMERS)
    before = wrk(narrow, ceiling, "ceiling.lua", args.duration, {}, totals, "claim ceiling")
    claims = drain([service.url], key, threads=CLAIMERS, limit=10)
    got, requests, seconds = [i for i, _, _ in claims.claimed], claims.requests, claims.seconds
    errors = len(claims.errors) + claims.unanswered
    after = before
    if not args.smoke:
        after = wrk(narrow, ceiling, "ceiling.lua", args.duration, {}, totals, "claim ceiling")
    with Client(service.url, key, timeout=30) as client:
        scheduled = client.get(f"{POSTS}?status=Scheduled&limit=1").json["total"]
        publishing = client.get(f"{POSTS}?status=Publishing&limit=1").json["total"]
        twice = _claimed_more_than_once(client, publishing)
    counts = collections.Counter(got)
    claims_per_s = requests / seconds
    ratio = claims_per_s / ((before["rps"] + after["rps"]) / 2)
    figures = {
        "posts": n,
        "seconds": seconds,
        "claims_per_s": claims_per_s,
        "posts_per_s": len(got) / seconds,
        "ratio": ratio,
        "errors": errors,
        "left_scheduled": scheduled,
        "publishing": publishing,
        "duplicates": sum(c - 1 for c in counts.values()) + twice,
        "missed": n - len(counts),
    }
    results["handoff"]["claim"] = figures
    log(
        f"  {n:,} due posts drained by {CLAIMERS} claimers (limit=10) in {seconds:.1f} s: "
        f"{claims_per_s:,.0f} claims/s, {figures['posts_per_s']:,.0f} posts/s, "
        f"ratio to the ceiling at {CLAIMERS} connections {ratio:.2f}"
    )
    log(
        f"  Publishing {publishing:,}, left Scheduled {scheduled}, failed claims {errors}: "
        f"duplicates {figures['duplicates']}, missed {figures['missed']}"
    )
    return figures["duplicates"] == 0 and figures["missed"] == 0 and errors == 0


def _claimed_more_than_once(client, total):
    """Posts whose handoff_count is above 1: a claim race would show there."""
    twice = 0
    for offset in range(0, total, 100):
        page = client.get(f"{POSTS}?status=Publishing&limit=100&offset={offset}")
        twice += sum(1 for p in page.json["data"] if p["handoff_count"] != 1)
    return twice


def webhooks(args, tmp, totals, results, servers):
    n = args.webhook_posts
    db = tmp / "webhooks.sqlite"
    due_at = datetime.now(UTC) + timedelta(seconds=20 if not args.smoke else 2)
    log(f"webhooks: {n:,} posts due at one moment, one dispatcher, a receiver answering 200")
    seed.seed_main(db, 0, n, status="Due", scheduled_at=rfc3339(due_at), progress=lambda m: None)
    key = create_key(db, seed.CALLER)
    env = {"FLASK_WEBHOOK_ALLOW_PRIVATE": "1", "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000"}
    service = start_server(tmp, "webhook-service", db, servers, env=env, workers=2)
    with Receiver() as receiver:
        with Client(service.url, key, timeout=30) as client:
            hook = client.post(
                "/functions/v1/webhooks", {"url": receiver.url, "events": ["post.due"]}
            )
            if hook.status != 201:
                raise RuntimeError(f"adding the endpoint: {hook}")
        receiver.secrets.append(hook.json["secret"])
        dispatcher = Dispatcher(
            db,
            name="bench",
            log=tmp / "dispatcher.log",
            env={**env, "FLASK_PUBLIC_URL": service.url},
        )
        servers.append(dispatcher)
        dispatcher.start()
        arrivals = receiver.wait_for(lambda a: len(a) >= n, timeout=120, what=f"{n} post.due")
        dispatcher.stop()
    lags = sorted(a.at - due_at.timestamp() for a in arrivals)
    spread = arrivals[-1].at - arrivals[0].at
    figures = {
        "posts": n,
        "p50_s": statistics.median(lags),
        "p99_s": lags[int(0.99 * (len(lags) - 1))],
        "max_s": lags[-1],
        "first_s": lags[0],
        "deliveries_per_s": (n - 1) / spread if spread > 0 else float("inf"),
        "unverified": sum(1 for a in arrivals if not a.verified_with),
        "duplicates": len(arrivals) - len({a.webhook_id for a in arrivals}),
    }
    results["handoff"]["webhooks"] = figures
    log(
        f"  scheduled_at -> receipt: first {figures['first_s']:.2f} s, p50 {figures['p50_s']:.2f} s, "
        f"p99 {figures['p99_s']:.2f} s, max {figures['max_s']:.2f} s; one dispatcher: {figures['deliveries_per_s']:,.0f} "
        f"deliveries/s; unverified {figures['unverified']}, duplicates {figures['duplicates']}"
    )
    return figures["unverified"] == 0 and figures["duplicates"] == 0


def idle(args, tmp, totals, results, servers):
    """GET one post with an idle dispatcher beside gunicorn, paused (SIGSTOP)
    and running in turn: off, on, off, ..., off, each run with the dispatcher
    compared with the mean of the runs on either side of it, as the scenarios
    are with the ceiling. It starts once, before the first run, so that its
    start-up (an import of the app) is in none of them. Also prints the CPU
    it used while running."""
    db = tmp / "idle.sqlite"
    seeded = seed.seed_main(db, 1000, 0, progress=lambda m: None)
    key = create_key(db, seed.CALLER)
    ids = write_ids(tmp / "idle-ids.txt", seeded["drafts"])
    service = start_server(tmp, "idle-service", db, servers, workers=args.workers)
    dispatcher = Dispatcher(db, name="idle", log=tmp / "idle-dispatcher.log")
    servers.append(dispatcher)
    dispatcher.start()
    script = {"key": key, "ids": ids}

    def get(label):
        return wrk(args, service, "get.lua", args.duration, script, totals, label)["rps"]

    os.kill(dispatcher.pid, signal.SIGSTOP)
    without, with_, drops, busy = [get("idle off")], [], [], 0.0
    for _ in range(pairs(args)):
        os.kill(dispatcher.pid, signal.SIGCONT)
        used = cpu_seconds([dispatcher.pid])
        with_.append(get("idle on"))
        busy += cpu_seconds([dispatcher.pid]) - used
        os.kill(dispatcher.pid, signal.SIGSTOP)
        without.append(get("idle off"))
        drops.append(1 - with_[-1] / ((without[-2] + without[-1]) / 2))
    os.kill(dispatcher.pid, signal.SIGCONT)
    dispatcher.stop()
    drop = statistics.median(drops)
    cores = busy / (len(drops) * args.duration)
    results["handoff"]["idle"] = {
        "without": without,
        "with": with_,
        "drop": drop,
        "dispatcher_cores": cores,
    }
    log(
        f"idle dispatcher: GET one {statistics.median(without):,.0f} req/s paused, "
        f"{statistics.median(with_):,.0f} running: {100 * drop:+.1f}% change (median of "
        f"{len(drops)} paired runs); the dispatcher used {cores:.3f} cores meanwhile"
    )
    return True


def pairs(args):
    """Paired runs of the idle scenario: at least 3 (a quick run too), since
    one pair on a shared machine swings by more than the 5% it judges."""
    return 1 if args.smoke else max(3, args.repeats)


def _with(args, **changes):
    copy = type(args)(**vars(args))
    for name, value in changes.items():
        setattr(copy, name, value)
    return copy


def report(args, results, check):
    """The handoff targets, for bench/run.py's target table; a missed one
    says by how much."""
    h = results["handoff"]
    if "claim" in h:
        c = h["claim"]
        check(
            c["duplicates"] == 0 and c["missed"] == 0,
            f"claims: {c['posts']:,} due posts, 0 duplicates and 0 missed "
            f"(got {c['duplicates']} and {c['missed']}); ratio {c['ratio']:.2f}",
        )
        rate = c["claims_per_s"]
        check(
            rate >= TARGET_CLAIMS_PER_S,
            f"claims by {CLAIMERS} claimers {rate:,.0f}/s >= {TARGET_CLAIMS_PER_S}"
            + _short(rate, TARGET_CLAIMS_PER_S),
        )
    if "webhooks" in h:
        w = h["webhooks"]
        over = w["p99_s"] - TARGET_P99_S
        check(
            over <= 0,
            f"post.due p99 {w['p99_s']:.2f} s <= {TARGET_P99_S:g} s"
            + (f" (missed by {over:.2f} s)" if over > 0 else ""),
        )
        rate = w["deliveries_per_s"]
        check(
            rate >= TARGET_DELIVERIES_PER_S,
            f"one dispatcher {rate:,.0f} deliveries/s >= {TARGET_DELIVERIES_PER_S}"
            + _short(rate, TARGET_DELIVERIES_PER_S),
        )
    if "idle" in h:
        d = h["idle"]["drop"]
        over = d - TARGET_IDLE_DROP
        check(
            over <= 0,
            f"reads with an idle dispatcher: {100 * d:+.1f}% <= 5% drop"
            + (f" (missed by {100 * over:.1f} points)" if over > 0 else ""),
        )


def _short(value, target):
    return (
        "" if value >= target else f" (missed by {target - value:,.0f}, {1 - value / target:.0%})"
    )
