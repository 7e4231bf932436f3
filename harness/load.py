"""Concurrent client threads writing and reading through a Ledger.

One load generator for the concurrency tests and the fault steps, so that
"no acknowledged write is lost under load" means the same thing in both.
Each thread has its own Client and random generator and loops until the
time is up, the request budget is spent or `stop` is set (every run is
bounded in count and time). What it sends is a Mix:

  create          a new personal post (the thread may PATCH it later)
  patch           new content, no If-Match, for a shared post (contention),
                  one of the thread's own, or a Scheduled post that a
                  callback may publish at the same moment (then 409)
  patch_if_match  GET a shared post, PATCH it with its ETag (412 if stale)
  callback        publish a Scheduled post; once none is left, repeat an
                  earlier callback (must answer the same version)
  read            GET a post or a list page

prepare_posts() creates the shared and the to-be-published posts first
(Scheduled, through the same Ledger, so their versions are accounted for).
"""

import collections
import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta

from harness.api import ITEM, POSTS, rfc3339
from harness.http_client import Client


@dataclass(frozen=True)
class Mix:
    """Relative weights of each kind of request."""

    create: float = 0.20
    patch: float = 0.20
    patch_if_match: float = 0.15
    callback: float = 0.10
    read: float = 0.35


MIXED = Mix()
WRITES = Mix(create=0.5, patch=0.5, patch_if_match=0, callback=0, read=0)


@dataclass
class Targets:
    """The posts the threads share: `shared` ones every thread PATCHes,
    `scheduled` ones the callbacks publish (popped from `to_publish`)."""

    shared: list = field(default_factory=list)
    scheduled: list = field(default_factory=list)
    to_publish: collections.deque = field(default_factory=collections.deque)
    published: list = field(default_factory=list)  # (post id, urn, url) acknowledged


@dataclass
class LoadResult:
    requests: int
    seconds: float

    @property
    def rate(self):
        return self.requests / self.seconds if self.seconds else 0.0


def unique(tag):
    """Content no other request of the run sends."""
    return f"{tag} {uuid.uuid4().hex}"


def schedule_time(seconds):
    """A scheduled_at far enough ahead to stay valid for a load of `seconds`
    (the service wants at least a minute of lead)."""
    return rfc3339(datetime.now(UTC) + timedelta(seconds=max(120, seconds + 90)))


def prepare_posts(url, key, ledger, *, shared, scheduled, seconds, threads=8):
    """Create `shared` + `scheduled` posts and move them to Scheduled; returns Targets."""
    when = schedule_time(seconds)

    def one(i):
        with Client(url, key) as client:
            r = ledger.create(client, unique(f"setup {i}"), op="setup-create")
            if r.status != 201:
                raise RuntimeError(f"setup: create answered {r.status or r.error} {r.text[:200]}")
            pid = r.json["id"]
            r = ledger.patch(
                client, pid, {"status": "Scheduled", "scheduled_at": when}, op="setup-schedule"
            )
            if r.status != 200:
                raise RuntimeError(
                    f"setup: scheduling answered {r.status or r.error} {r.text[:200]}"
                )
            return pid

    with ThreadPoolExecutor(max(1, threads)) as pool:
        ids = list(pool.map(one, range(shared + scheduled)))
    return Targets(
        shared=ids[:shared], scheduled=ids[shared:], to_publish=collections.deque(ids[shared:])
    )


class Load:
    """The state the client threads share."""

    def __init__(self, url, key, ledger, mix, targets, seconds, max_requests, stop, timeout, pause):
        self.url, self.key, self.ledger, self.targets, self.timeout = (
            url,
            key,
            ledger,
            targets,
            timeout,
        )
        self.pause = pause
        self.ops = [(w, OPS[name]) for name, w in asdict(mix).items() if w > 0]
        self.total = sum(w for w, _ in self.ops)
        self.deadline = time.monotonic() + seconds
        self.left = max_requests
        self.stop = stop or threading.Event()
        self.lock = threading.Lock()

    def take(self):
        """True while the run goes on; counts one operation against the budget."""
        if self.stop.is_set() or time.monotonic() >= self.deadline:
            return False
        if self.left is None:
            return True
        with self.lock:
            if self.left <= 0:
                return False
            self.left -= 1
            return True

    def choose(self, rnd):
        x = rnd.random() * self.total
        for weight, op in self.ops:
            x -= weight
            if x < 0:
                return op
        return self.ops[-1][1]


def run_load(
    url,
    key,
    ledger,
    *,
    threads,
    seconds,
    max_requests=None,
    mix=MIXED,
    targets=None,
    stop=None,
    seed=0,
    timeout=15.0,
    pause=0.0,
    grace=30.0,
):
    """Run `threads` client threads for at most `seconds` and `max_requests`
    operations in all (or until `stop` is set). `pause`: seconds each thread
    waits between operations (spreads a small budget over the whole run).
    Returns a LoadResult."""
    load = Load(
        url, key, ledger, mix, targets or Targets(), seconds, max_requests, stop, timeout, pause
    )
    before = ledger.requests()
    pool = [
        threading.Thread(target=client_thread, args=(load, seed * 1000 + n, n), daemon=True)
        for n in range(threads)
    ]
    t0 = time.monotonic()
    for t in pool:
        t.start()
    deadline = load.deadline + grace
    for t in pool:
        t.join(max(0.1, deadline - time.monotonic()))
    alive = sum(t.is_alive() for t in pool)
    if alive:
        load.stop.set()
        raise RuntimeError(f"{alive} client threads did not stop within {grace}s of the end")
    return LoadResult(ledger.requests() - before, time.monotonic() - t0)


def client_thread(load, seed, n):
    rnd = random.Random(seed)
    mine = []  # posts this thread created
    with Client(load.url, load.key, load.timeout) as client:
        while load.take():
            r = load.choose(rnd)(load, client, rnd, n, mine)
            if r is not None and r.status is None:
                time.sleep(0.02)  # a worker is being respawned, or the server is gone
            if load.pause:
                load.stop.wait(load.pause)


def do_create(load, client, rnd, n, mine):
    r = load.ledger.create(client, unique(f"t{n} create"))
    if r.status == 201:
        mine.append(r.json["id"])
    return r


def patch_target(load, rnd, mine):
    x = rnd.random()
    if load.targets.scheduled and x < 0.1:
        return rnd.choice(load.targets.scheduled)
    if load.targets.shared and (x < 0.7 or not mine):
        return rnd.choice(load.targets.shared)
    return rnd.choice(mine) if mine else None


def do_patch(load, client, rnd, n, mine):
    pid = patch_target(load, rnd, mine)
    if pid is None:
        return do_create(load, client, rnd, n, mine)
    return load.ledger.patch(client, pid, {"content": unique(f"t{n} patch")})


def do_patch_if_match(load, client, rnd, n, mine):
    pool = load.targets.shared or mine
    if not pool:
        return do_create(load, client, rnd, n, mine)
    pid = rnd.choice(pool)
    got = load.ledger.read(client, ITEM + pid, op="get")
    if got.status != 200:
        return got
    return load.ledger.patch(
        client,
        pid,
        {"content": unique(f"t{n} if-match")},
        headers={"If-Match": got.headers.get("etag", "")},
        op="patch-if-match",
        expected=(200, 412),
    )


def do_callback(load, client, rnd, n, mine):
    targets = load.targets
    with load.lock:
        pid = targets.to_publish.popleft() if targets.to_publish else None
        again = rnd.choice(targets.published) if pid is None and targets.published else None
    if pid is not None:
        share = rnd.randrange(10**12)
        urn, url = (
            f"urn:li:share:{share}",
            f"https://www.linkedin.com/feed/update/urn:li:share:{share}",
        )
        r = load.ledger.publish(client, pid, urn, url)
        if r.status == 200:
            with load.lock:
                targets.published.append((pid, urn, url))
        return r
    if again is not None:
        return load.ledger.publish(client, *again, op="callback-repeat")
    return do_read(load, client, rnd, n, mine)


def do_read(load, client, rnd, n, mine):
    pool = load.targets.shared if (rnd.random() < 0.5 or not mine) else mine
    if pool and rnd.random() < 0.6:
        return load.ledger.read(client, ITEM + rnd.choice(pool), op="get")
    return load.ledger.read(client, f"{POSTS}?limit=20&offset={rnd.randrange(0, 200)}", op="list")


OPS = {
    "create": do_create,
    "patch": do_patch,
    "patch_if_match": do_patch_if_match,
    "callback": do_callback,
    "read": do_read,
}
