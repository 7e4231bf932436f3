"""Step 6: two hosts on one PostgreSQL database, and one of them killed whole.

Two gunicorn instances (separate process groups on two ports, as two hosts
would be), each with its own dispatcher, serve one fresh PostgreSQL schema.
Under mixed load from --threads clients spread over both hosts (through one
Ledger), claimers drain due posts through both, the dispatchers push due
posts to a receiver, and a key is revoked with the CLI. Then host A (its
gunicorn master, workers and dispatcher) is SIGKILLed mid-load while host B
goes on serving. Afterwards, read back through host B:

- every acknowledged write is there, every version counts its acknowledged
  changes (the ledger's checks), no 5xx;
- no post was handed out by two claims, none is left due, and posts taken
  without anyone hearing of it are no more than the claims that got no
  answer could have taken;
- every pushed post reached the receiver, repeats only under the same
  webhook-id (at least once, after the kill), every signature verifies;
- the revoked key was refused by host B on its very next request;
- host B answered throughout, before and after the kill.
"""

import collections
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from faults.report import Step, log
from harness import (
    Client,
    Dispatcher,
    Gunicorn,
    Ledger,
    Receiver,
    create_key,
    flask_cli,
    init_database,
    postgres,
    prepare_posts,
    read_posts,
    rfc3339,
    run_load,
    stop_all,
)
from harness.claims import drain, past, schedule_posts

POSTS = "/functions/v1/api-v2-posts"
CLAIMERS = 4
HOOKS = "/functions/v1/webhooks"
ENV = {
    "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999",  # due posts in the past
    "FLASK_WEBHOOK_ALLOW_PRIVATE": "1",  # the receiver is on loopback
    "FLASK_WEBHOOK_TIMEOUT_SECONDS": "2",
    "FLASK_DISPATCH_LEASE_SECONDS": "5",  # what a dead dispatcher held comes back soon
    "FLASK_DISPATCH_GRACE_SECONDS": "2",
}


def run(args, tmp):
    st = Step("6 hosts")
    log(
        f"\n[6] two hosts on one PostgreSQL database: {args.threads} clients over both for "
        f"{args.load_seconds} s, claims and pushes through both, a revoke, host A SIGKILLed"
    )
    problem = postgres.reachable()
    if problem:
        st.check(False, f"PostgreSQL at {postgres.base_url()} is reachable ({problem})")
        return st
    with postgres.fresh_database(prefix="faults") as url, Receiver() as receiver:
        return two_hosts(st, args, tmp, init_database(url, env=ENV), receiver)


SCOPES = {"loader": None, "claimer": None, "pusher": None, "revoked": ["posts:read"]}


def two_hosts(st, args, tmp, url, receiver):
    with ThreadPoolExecutor(len(SCOPES)) as pool:  # each is a `flask` process: side by side
        made = pool.map(lambda user: create_key(url, user, SCOPES[user], env=ENV), SCOPES)
        keys = dict(zip(SCOPES, made, strict=True))
    revoked = keys.pop("revoked")
    hosts = [
        Gunicorn(url, workers=args.workers, env=ENV, log=tmp / f"host-{h}.log", name=f"host-{h}")
        for h in "ab"
    ]
    dispatchers = [
        Dispatcher(url, name=f"host-{h}", env=ENV, log=tmp / f"dispatch-{h}.log") for h in "ab"
    ]
    try:
        for process in (*hosts, *dispatchers):
            process.launch()  # all four import the app at once, then each is awaited
        for process in (*hosts, *dispatchers):
            process.wait_ready()
        a, b = hosts
        with Client(a.url, keys["pusher"]) as client:
            hook = client.post(HOOKS, {"url": receiver.url, "events": ["post.due"]}).json
        assert "secret" in hook, hook
        receiver.secrets.append(hook["secret"])
        due = set(schedule_posts(a.url, keys["claimer"], [past(i) for i in range(args.claims)]))
        start = datetime.now(UTC) + timedelta(seconds=3)
        spread = args.load_seconds * 0.8 / max(1, args.pushes)
        pushed = schedule_posts(
            b.url,
            keys["pusher"],
            [rfc3339(start + timedelta(seconds=i * spread)) for i in range(args.pushes)],
            content="pushed",
        )
        st.figure(
            f"setup: hosts {a.url} and {b.url}, {args.workers} workers each, a dispatcher each; "
            f"{len(due):,} posts due for claims, {len(pushed):,} to push over the run"
        )
        ledger = Ledger()
        targets = prepare_posts(
            a.url,
            keys["loader"],
            ledger,
            shared=args.shared_posts,
            scheduled=args.scheduled_posts,
            seconds=args.load_seconds,
        )
        outcome = load_kill_and_revoke(
            st, args, hosts, dispatchers[0], keys, revoked, ledger, targets
        )
        receiver.wait_for(
            lambda arrivals: {p["data"]["post"]["id"] for p in map(_json, arrivals)} >= set(pushed),
            timeout=60,
            what="every pushed post",
        )
        with Client(b.url, keys["loader"]) as client:
            posts = read_posts(client)
        with Client(b.url, keys["claimer"]) as client:
            left = client.get(f"{POSTS}?due=true&limit=1").json["total"]
            taken = client.get(f"{POSTS}?status=Publishing&limit=1").json["total"]
        report(st, ledger, posts, outcome, due, left, taken, receiver, pushed)
        found = [t for t in (b.first_traceback(), dispatchers[1].first_traceback()) if t]
        for excerpt in found:
            log(excerpt)
        st.check(not found, "no traceback in host B's logs (gunicorn and dispatcher)")
    finally:
        stop_all([*dispatchers, *hosts], timeout=10)
    return st


class Phase:
    """What the threads of the load phase share: the two hosts, the keys,
    when host A died, and what the probes and the revoke saw."""

    def __init__(self, args, hosts, dispatcher_a, keys, revoked):
        self.args, self.dispatcher_a = args, dispatcher_a
        self.a, self.b = hosts
        self.keys, self.revoked = keys, revoked
        self.stop = threading.Event()
        self.killed_at = None
        self.probes = collections.Counter()  # (before/after the kill, status) -> count
        self.revoke = None  # (host B's status before, after, the body after)


def load_kill_and_revoke(st, args, hosts, dispatcher_a, keys, revoked, ledger, targets):
    """The load over both hosts, claimers over both, a revoke through host A's
    CLI, then host A killed; returns what the step checks afterwards."""
    phase = Phase(args, hosts, dispatcher_a, keys, revoked)
    half = max(1, args.threads // 2)
    budget = args.max_requests // 2
    # Spread a small budget (--smoke) over the whole run, so that the load
    # goes on when host A dies.
    pause = half * args.load_seconds / budget if half * args.load_seconds / budget > 0.02 else 0.0
    with ThreadPoolExecutor(6) as pool:
        prober = pool.submit(probe_host_b, phase)
        loads = [
            pool.submit(
                run_load,
                host.url,
                keys["loader"],
                ledger,
                threads=half,
                seconds=args.load_seconds,
                max_requests=budget,
                targets=targets,
                seed=n,
                timeout=10.0,
                pause=pause,
            )
            for n, host in enumerate(hosts)
        ]
        killer = pool.submit(revoke_then_kill_host_a, phase)
        claims = pool.submit(claim_across_the_kill, phase)
        killer.result()
        claimed = claims.result()
        results = [load.result() for load in loads]
        time.sleep(max(0.0, phase.killed_at + 1.0 - time.monotonic()))  # probe B a while after
        phase.stop.set()
        prober.result()
    return {
        "probes": phase.probes,
        "revoke": phase.revoke,
        "claims": claimed,
        "requests": sum(r.requests for r in results),
        "seconds": max(r.seconds for r in results),
    }


def probe_host_b(phase):
    """Host B, every 50 ms: it must answer throughout."""
    with Client(phase.b.url, phase.keys["loader"]) as client:
        while not phase.stop.is_set():
            r = client.get(f"{POSTS}?limit=1")
            when = "after" if phase.killed_at else "before"
            phase.probes[(when, r.status)] += 1
            phase.stop.wait(0.05)


def revoke_then_kill_host_a(phase):
    """Half-way, revoke a key through host A's CLI and ask host B at once;
    a little later, SIGKILL host A whole (master, workers, dispatcher)."""
    time.sleep(phase.args.load_seconds * 0.5)
    with Client(phase.b.url, phase.revoked) as client:
        before = client.get(POSTS).status
        flask_cli(phase.a.database, "keys", "revoke", phase.revoked, env=ENV)
        after = client.get(POSTS)
    phase.revoke = (before, after.status, after.json)
    time.sleep(phase.args.load_seconds * 0.1)
    phase.a.kill()  # the master and its workers at once, mid-load
    phase.dispatcher_a.kill()
    phase.killed_at = time.monotonic()


def claim_across_the_kill(phase):
    """Four claimers, paced to drain the due posts from 20% to about 70% of
    the run, so that claims are under way when host A dies."""
    args = phase.args
    time.sleep(args.load_seconds * 0.2)
    rounds = max(1, args.claims // (CLAIMERS * 10))
    pause = args.load_seconds * 0.5 / rounds
    return drain(
        [phase.a.url, phase.b.url], phase.keys["claimer"], threads=CLAIMERS, limit=10, pause=pause
    )


def report(st, ledger, posts, outcome, due, left, taken, receiver, pushed):
    st.figure(
        f"{outcome['requests']:,} requests in {outcome['seconds']:.1f} s from both halves of the clients"
    )
    for line in ledger.figures():
        st.figure(line)
    st.figure(f"read back through host B: {len(posts):,} posts")
    st.checks_from(ledger.check_posts(posts))
    st.checks_from(ledger.check_responses(connection_errors=True))

    claims = outcome["claims"]
    heard = claims.ids()
    st.figure(
        f"claims: {claims.requests:,} requests, {len(claims.claimed):,} posts handed out, "
        f"{claims.unanswered} claims without an answer, {len(claims.errors)} refused"
    )
    st.check(not claims.duplicates(), f"no post handed out twice ({len(claims.duplicates())})")
    st.check(not claims.errors, f"every answered claim was a 200 ({claims.errors[:3]})")
    st.check(heard <= due, "every claimed post was one of the due ones")
    st.check(left == 0, f"no post left due ({left})")
    silent = taken - len(heard)
    st.check(
        taken == len(due) and 0 <= silent <= claims.unanswered * 10,
        f"every due post is Publishing ({taken:,} of {len(due):,}); {silent} taken by claims "
        f"whose answer was lost (at most {claims.unanswered} claims x limit 10)",
    )

    arrivals = list(receiver.arrivals)
    ids_by_post = collections.defaultdict(set)
    for arrival in arrivals:
        ids_by_post[_json(arrival)["data"]["post"]["id"]].add(arrival.webhook_id)
    repeats = len(arrivals) - len(ids_by_post)
    st.figure(
        f"pushes: {len(arrivals):,} deliveries of {len(ids_by_post):,} posts, {repeats} repeats"
    )
    st.check(
        set(ids_by_post) == set(pushed),
        f"every pushed post arrived ({len(ids_by_post)} of {len(pushed)})",
    )
    st.check(
        all(len(ids) == 1 for ids in ids_by_post.values()),
        "a post arrived again only under the same webhook-id",
    )
    st.check(all(a.verified_with for a in arrivals), "every delivery's signature verifies")

    before, after, body = outcome["revoke"]
    st.check(
        before == 200 and after == 401 and body["error"]["code"] == "unauthorized",
        f"a key revoked through host A: host B answered {before} before, {after} on the next request",
    )
    probes = outcome["probes"]
    served = {
        phase: sum(n for (p, s), n in probes.items() if p == phase and s == 200)
        for phase in ("before", "after")
    }
    other = {k: n for k, n in probes.items() if k[1] != 200}
    st.figure(
        f"host B probes: {served['before']} answered before the kill, {served['after']} after"
    )
    st.check(
        served["before"] > 0 and served["after"] > 0 and not other,
        f"host B answered every probe, before and after host A died ({other or 'none failed'})",
    )


def _json(arrival):
    return arrival.json or {"data": {"post": {"id": None}}}
