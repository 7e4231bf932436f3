"""The service's own publisher timed: N posts due at one moment across 50
connected channels, published by the dispatcher itself to the LinkedIn
stand-in (harness/linkedin_standin.py), which answers each post about
50 ms late, as LinkedIn's Posts API does.

    publisher  one dispatcher, then (a fresh set of posts) two: from each
               post's scheduled_at to the stand-in's 201, p50 and p99;
               posts/s from the first 201 to the last; double posts (a
               post's text created twice at the stand-in) and posts left
               unpublished. Targets (docs/performance.md): p99 <= 5 s,
               >= 200 posts/s with one dispatcher, 0 doubles; two
               dispatchers 0 doubles and >= 1.5x one's throughput.

The channels are brand pages of one workspace, each connected through the
sign-in as a person does (harness/linkedin_signin.py); the posts come in by
the bulk import, each channel's a minute apart (no two posts of a channel
share a minute) and all already due; then the dispatchers start, and each
post's lag counts from that start. SQLite (the default backend): the exactly-once rule on
PostgreSQL is proven by tests/test_linkedin_publish.py.
Called by bench/run.py (`--only publisher`).
"""

import collections
import statistics
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from bench.config import log
from bench.wrk import cpu_seconds
from harness import Client, Dispatcher, Gunicorn, create_key, free_port, init_database, rfc3339
from harness.api import IMPORT, POSTS
from harness.linkedin_signin import CHANNELS, connect_live, environment, linkedin_for

CHANNEL_COUNT = 50
POSTS_DUE = 1000
ANSWER_SECONDS = 0.05  # the stand-in's delay before each 201
IMPORT_ROWS = 500
TARGET_P99_S = 5.0
TARGET_POSTS_PER_S = 200
TARGET_TWO = 1.5  # two dispatchers' throughput over one's
USER = "publisher-bench"
# Pages Ada administers at the stand-in: one a channel.
PAGES = {str(1_000_000 + i): f"Page {i}" for i in range(CHANNEL_COUNT)}
DISPATCH_ENV = {
    "FLASK_DISPATCH_POLL_SECONDS": "0.1",
    "FLASK_LINKEDIN_TIMEOUT_SECONDS": "10",
    "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000",
}


def run(args, tmp, totals, results, servers):
    """One dispatcher, then two; False when a post was doubled or left out."""
    posts = 20 if args.smoke else POSTS_DUE
    channels = 3 if args.smoke else CHANNEL_COUNT
    db = tmp / "publisher.sqlite"
    init_database(db)
    key = create_key(db, USER)
    log(
        f"publisher: {posts:,} posts due at one moment across {channels} connected channels, "
        f"the LinkedIn stand-in answering in {ANSWER_SECONDS * 1000:.0f} ms"
    )
    figures = {}
    port = free_port()  # known before the stand-in registers the service's redirect URI
    url = f"http://127.0.0.1:{port}"
    with linkedin_for(url, pages=PAGES) as standin:
        standin.delay_on("", ANSWER_SECONDS)  # every post: "" is in every text
        env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000", **environment(standin, url)}
        service = Gunicorn(
            db,
            workers=2,
            env=env,
            port=port,
            log=tmp / "publisher-service.log",
            extra_args=["--access-logfile", "/dev/null"],
            name="publisher-service",
        )
        servers.append(service)
        service.start(timeout=60)
        with Client(service.url, key, timeout=60) as client:
            pages = list(PAGES)[:channels]
            brands = [_connect(client, standin, page, i) for i, page in enumerate(pages)]
        for dispatchers in (1, 2):
            figures[dispatchers] = _round(
                tmp, db, servers, service, key, standin, brands, posts, dispatchers, env, args
            )
    one, two = figures[1], figures[2]
    results["handoff"]["publisher"] = {
        "posts": posts,
        "channels": channels,
        "one": one,
        "two": two,
        "speedup": two["posts_per_s"] / one["posts_per_s"] if one["posts_per_s"] else 0.0,
    }
    return all(f["doubles"] == 0 and f["missing"] == 0 for f in (one, two))


def _connect(client, standin, page, i):
    brand_id = f"page-{i}"
    r = client.post(
        CHANNELS,
        {
            "type": "brand",
            "brand_id": brand_id,
            "name": f"Page {i}",
            "author_urn": f"urn:li:organization:{page}",
        },
    )
    if r.status != 201:
        raise RuntimeError(f"adding channel {brand_id}: {r}")
    channel = connect_live(client, standin, brand_id)
    if channel["publisher"] != "linkedin":
        raise RuntimeError(f"channel {brand_id} is not published by the service: {channel}")
    return brand_id


def _round(tmp, db, servers, service, key, standin, brands, n, count, env, args):
    """`n` posts due at one moment, `count` dispatchers publishing them.

    No two posts of one channel share a minute (planning/plan.py), so the
    posts cannot all carry one scheduled_at: each channel's k-th post is due
    k minutes before now (before the first round's), all imported while no dispatcher runs. The moment
    they are all due for the publisher is then the dispatchers' start, and
    every lag counts from it (the dispatchers' own start, about a second,
    included)."""
    tag = f"bench {uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    per_channel = -(-n // len(brands))
    before = (count - 1) * (per_channel + 1)  # minutes the earlier round's posts took
    rows = [
        {
            "type": "brand",
            "brand_id": brands[i % len(brands)],
            "content": f"{tag} post {i}",
            "scheduled_at": rfc3339(now - timedelta(minutes=1 + before + i // len(brands))),
        }
        for i in range(n)
    ]
    t0 = time.monotonic()
    ids = _import(service.url, key, rows)
    imported = time.monotonic() - t0
    processes = []
    for i in range(count):
        name = f"publisher-{count}-{i}"
        process = Dispatcher(
            db,
            name=name,
            log=tmp / f"{name}.log",
            env={**env, **DISPATCH_ENV, "FLASK_PUBLIC_URL": service.url},
        )
        servers.append(process)
        processes.append(process)
    released = time.time()  # the moment every post is due for the publisher
    with ThreadPoolExecutor(count) as pool:  # together, so that neither has a head start
        started = list(pool.map(lambda p: p.start(timeout=60), processes))
    pids = [process.pid for process in started]
    cpu = cpu_seconds(pids)
    texts = {f"{tag} post {i}" for i in range(n)}
    deadline = time.monotonic() + 60 + n / 10
    while time.monotonic() < deadline:
        done = [r for r in standin.posts_with(tag) if r.status == 201 and r.answered]
        if len({r.commentary for r in done}) >= n:
            break
        time.sleep(0.2)
    time.sleep(0.5)  # a doubled post would come now
    cpu = cpu_seconds(pids) - cpu
    for process in started:
        process.stop()
    made = [r for r in standin.posts_with(tag) if r.status == 201]
    counts = collections.Counter(r.commentary for r in made)
    answered = sorted(r.answered for r in made if r.answered)
    lags = sorted(t - released for t in answered)
    spread = answered[-1] - answered[0] if len(answered) > 1 else 0.0
    with Client(service.url, key, timeout=60) as client:
        published = client.get(f"{POSTS}?status=Published&limit=1").json["total"]
    figures = {
        "dispatchers": count,
        "posts": n,
        "import_s": imported,
        "p50_s": statistics.median(lags) if lags else float("inf"),
        "p99_s": lags[int(0.99 * (len(lags) - 1))] if lags else float("inf"),
        "max_s": lags[-1] if lags else float("inf"),
        "posts_per_s": (len(answered) - 1) / spread if spread > 0 else 0.0,
        "doubles": sum(c - 1 for c in counts.values()),
        "missing": len(texts - set(counts)),
        "published_total": published,
        "ids": len(ids),
        "cpu_ms_per_post": 1000 * cpu / n,
    }
    log(
        f"  {count} dispatcher(s): due -> 201 p50 {figures['p50_s']:.2f} s, "
        f"p99 {figures['p99_s']:.2f} s, max {figures['max_s']:.2f} s; "
        f"{figures['posts_per_s']:,.0f} posts/s; double posts {figures['doubles']}, "
        f"not published {figures['missing']}; the dispatchers' CPU "
        f"{figures['cpu_ms_per_post']:.1f} ms a post (import {imported:.1f} s)"
    )
    return figures


def _import(url, key, rows):
    batches = [rows[i : i + IMPORT_ROWS] for i in range(0, len(rows), IMPORT_ROWS)]

    def one(batch):
        with Client(url, key, timeout=60) as client:
            r = client.post(IMPORT, {"posts": batch})
        if r.status != 201:
            raise RuntimeError(
                f"importing due posts answered {r.status or r.error}: {r.text[:300]}"
            )
        if not all(p["status"] == "Scheduled" for p in r.json["data"]):
            raise RuntimeError(f"imported posts are not Scheduled: {r.json['data'][:2]}")
        return [p["id"] for p in r.json["data"]]

    with ThreadPoolExecutor(2) as pool:
        return [i for ids in pool.map(one, batches) for i in ids]


def report(results, check):
    """The publisher's targets, for bench/run.py's target table."""
    p = results["handoff"].get("publisher")
    if not p:
        return
    one, two = p["one"], p["two"]
    for f in (one, two):
        check(
            f["doubles"] == 0 and f["missing"] == 0,
            f"own publisher, {f['dispatchers']} dispatcher(s): 0 double posts and 0 left "
            f"(got {f['doubles']} and {f['missing']})",
        )
    over = one["p99_s"] - TARGET_P99_S
    check(
        over <= 0,
        f"own publisher p99 due -> 201 {one['p99_s']:.2f} s <= {TARGET_P99_S:g} s"
        + (f" (missed by {over:.2f} s)" if over > 0 else ""),
    )
    rate = one["posts_per_s"]
    check(
        rate >= TARGET_POSTS_PER_S,
        f"own publisher, one dispatcher: {rate:,.0f} posts/s >= {TARGET_POSTS_PER_S}"
        + (
            f" (missed by {TARGET_POSTS_PER_S - rate:,.0f}, {1 - rate / TARGET_POSTS_PER_S:.0%})"
            if rate < TARGET_POSTS_PER_S
            else ""
        ),
    )
    speedup = p["speedup"]
    check(
        speedup >= TARGET_TWO,
        f"own publisher, two dispatchers: {two['posts_per_s']:,.0f} posts/s, "
        f"{speedup:.2f}x one's >= {TARGET_TWO}x"
        + (f" (missed by {TARGET_TWO - speedup:.2f}x)" if speedup < TARGET_TWO else ""),
    )
