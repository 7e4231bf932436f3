"""Step 3: a key revoked with `flask keys revoke` while requests stream in.

With FLASK_KEY_TOUCH_INTERVAL=0 every request also schedules a deferred
last_used_at write for the key, the write most likely to race the revoke.
Nothing that starts after the command returned may succeed (all 401); the
key stays revoked in `keys list` and in its row, while the server runs and
after it stopped (every deferred write done); another key keeps working.
"""

import collections
import random
import threading
import time

from faults.report import Step, log
from harness import (
    ITEM,
    POSTS,
    Client,
    Gunicorn,
    create_key,
    flask_cli,
    init_database,
    unique,
)
from harness.sqlite_direct import key_times

ENV = {"FLASK_KEY_TOUCH_INTERVAL": "0"}
PER_THREAD = 20_000  # request cap of each streaming thread


class Stream:
    """What the streaming threads saw: (kind, started, ended, status)."""

    def __init__(self):
        self.results, self.lock, self.stop = [], threading.Lock(), threading.Event()

    def add(self, kind, r):
        with self.lock:
            self.results.append((kind, r.started, r.ended, r.status))


def run(args, tmp):
    st = Step("3 revoke")
    log(
        f"\n[3] revoke race: {args.revoke_threads} threads stream requests; `flask keys revoke` "
        f"after {args.revoke_at:g} s"
    )
    database = init_database(tmp / "revoke.sqlite", env=ENV)
    victim = create_key(database, "victim", env=ENV)
    control = create_key(database, "control", env=ENV)
    stream = Stream()
    with Gunicorn(
        database, workers=args.workers, env=ENV, log=tmp / "revoke.log", name="revoke"
    ) as server:
        threads = [
            threading.Thread(
                target=stream_requests, args=(server.url, victim, i, stream), daemon=True
            )
            for i in range(args.revoke_threads)
        ]
        for t in threads:
            t.start()
        time.sleep(args.revoke_at)
        revoked = revoke(database, victim)
        time.sleep(args.revoke_after)
        stream.stop.set()
        for t in threads:
            t.join(30)
        if any(t.is_alive() for t in threads):
            raise RuntimeError("streaming threads did not stop")
        with Client(server.url, control) as client:
            control_status = client.get(f"{POSTS}?limit=1").status
        time.sleep(0.5)  # deferred last_used_at writes of the last requests
        live = (flask_cli(database, "keys", "list", env=ENV), key_times(database, "victim"))
    stopped = (flask_cli(database, "keys", "list", env=ENV), key_times(database, "victim"))
    report(st, stream.results, revoked, control_status, live, stopped)
    return st


def stream_requests(url, key, i, stream):
    """Creates, reads and list pages with `key` until told to stop."""
    rnd = random.Random(i)
    mine = []
    with Client(url, key) as client:
        for _ in range(PER_THREAD):
            if stream.stop.is_set():
                break
            if rnd.random() < 0.3:
                r = client.post(POSTS, {"type": "personal", "content": unique(f"v{i}")})
                stream.add("create", r)
                if r.status == 201:
                    mine.append(r.json["id"])
            elif mine and rnd.random() < 0.5:
                stream.add("get", client.get(ITEM + rnd.choice(mine)))
            else:
                stream.add("list", client.get(f"{POSTS}?limit=5"))


def revoke(database, key):
    """`flask keys revoke KEY`; returns when it was sent, returned, and its output."""
    sent = time.monotonic()
    out = flask_cli(database, "keys", "revoke", key, env=ENV)
    return {"sent": sent, "returned": time.monotonic(), "output": out.strip()}


def key_state(listing, user):
    """The STATE column of `user`'s row in `keys list`."""
    for line in listing.splitlines()[1:]:
        cells = line.split()
        if len(cells) >= 5 and cells[2] == user:
            return cells[4]
    return None


def status_counts(rows):
    return dict(collections.Counter(r[3] for r in rows))


def report(st, results, revoked, control_status, live, stopped):
    sent, returned = revoked["sent"], revoked["returned"]
    before = [r for r in results if r[2] < sent]
    during = [r for r in results if r[1] <= returned < r[2] or sent <= r[1] <= returned]
    after = [r for r in results if r[1] > returned]
    succeeded_after = [r for r in after if r[3] is not None and 200 <= r[3] < 300]
    not_401_after = collections.Counter(r[3] for r in after if r[3] != 401)
    st.figure(f"revoke command: {revoked['output']!r} in {1000 * (returned - sent):.0f} ms")
    st.figure(
        f"{len(before):,} requests finished before the command started (statuses {status_counts(before)}); "
        f"{len(during):,} overlapped it ({status_counts(during)}); {len(after):,} started after it returned "
        f"({status_counts(after)})"
    )
    st.check(before and all(r[3] in (200, 201) for r in before), "the key worked before the revoke")
    st.check(
        len(after) > 0 and not succeeded_after,
        f"no request that started after the revoke returned succeeded ({len(succeeded_after)} did)",
    )
    st.check(not not_401_after, f"all of them got 401 ({dict(not_401_after) or 'yes'})")
    st.check(control_status == 200, f"another key still works after the revoke ({control_status})")
    for when, (listing, row) in (("while serving", live), ("after the server stopped", stopped)):
        state = key_state(listing, "victim")
        st.check(
            state == "revoked" and row["revoked_at"] is not None,
            f"{when}: keys list says {state!r}, revoked_at {row['revoked_at']}, last_used_at {row['last_used_at']}",
        )
    st.check(
        live[1]["revoked_at"] == stopped[1]["revoked_at"],
        "revoked_at never changed after it was set",
    )
