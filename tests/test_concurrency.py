"""Concurrent clients against real gunicorn with several workers.

Every acknowledged write must be in the database afterwards, each post's
version must count exactly its acknowledged changes, and no request may get
a 5xx or "database is locked".
"""

import http.client
import json
import random
import threading
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone

import pytest

from tests.live import create_key, serve

POSTS = "/functions/v1/api-v2-posts"
ITEM = "/functions/v1/api-v2-posts-item/"
CALLBACK = "/functions/v1/make-post-callback"


class Client:
    def __init__(self, port, key):
        self.port, self.key = port, key

    def call(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            hdrs = {"X-API-Key": self.key, **(headers or {})}
            data = None
            if body is not None:
                data = json.dumps(body)
                hdrs["Content-Type"] = "application/json"
            conn.request(method, path, data, hdrs)
            r = conn.getresponse()
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
        finally:
            conn.close()


def run_load(port, key, threads, seconds, shared_posts):
    """Mixed load; returns the ledger of acknowledged writes and all statuses."""
    acked = defaultdict(list)  # post id -> (version, content) of each acknowledged PATCH
    published = defaultdict(set)  # post id -> versions returned by 200 callbacks
    created, statuses, bad = [], defaultdict(int), []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(n):
        client = Client(port, key)
        rng = random.Random(n)
        i = 0
        while time.monotonic() < deadline and i < 5000:
            i += 1
            post_id = rng.choice(shared_posts)
            op = rng.random()
            if op < 0.2:
                status, body = client.call(
                    "POST", POSTS, {"type": "personal", "content": f"c{n}-{i}"}
                )
                changed = None
                if status == 201:
                    with lock:
                        created.append(body["id"])
            elif op < 0.55:
                status, body = client.call("PATCH", ITEM + post_id, {"content": f"p{n}-{i}"})
                changed = status == 200
            elif op < 0.75:
                status, body = client.call("GET", ITEM + post_id)
                if status == 200:
                    status, body = client.call(
                        "PATCH", ITEM + post_id, {"content": f"m{n}-{i}"},
                        {"If-Match": f'"{body["version"]}"'},
                    )
                changed = status == 200
            elif op < 0.85:
                status, body = client.call("POST", CALLBACK, {
                    "post_id": post_id, "linkedin_post_id": f"urn:li:share:{post_id[:8]}",
                    "live_url": f"https://www.linkedin.com/feed/update/{post_id}"})
                changed = None
                if status == 200:
                    with lock:
                        published[post_id].add(body["version"])
            else:
                status, body = client.call("GET", f"{POSTS}?limit=20")
                changed = None
            with lock:
                statuses[status] += 1
                if status >= 500 or "locked" in json.dumps(body or {}):
                    bad.append((status, body))
                if changed:
                    acked[post_id].append((body["version"], body["content"]))

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(seconds + 60)
    return acked, published, created, statuses, bad


def check(client, shared, acked, published, created, statuses, bad):
    assert not bad, bad[:5]
    assert set(statuses) <= {200, 201, 409, 412}, dict(statuses)
    assert statuses[200] > 0 and statuses[201] > 0
    for post_id in shared:
        status, post = client.call("GET", ITEM + post_id)
        assert status == 200
        patches = acked[post_id]
        versions = [v for v, _ in patches]
        # Each acknowledged change made its own version: none overwrote another.
        assert len(versions) == len(set(versions))
        # The first callback publishes (one version); its retries repeat that version.
        assert len(published[post_id]) <= 1
        assert post["version"] == 2 + len(patches) + len(published[post_id])
        assert set(versions) | published[post_id] == set(range(3, post["version"] + 1))
        if published[post_id]:
            assert post["status"] == "Published"
            assert post["version"] == max(published[post_id])
        if patches:
            assert post["content"] == max(patches)[1]
    for post_id in created:
        assert client.call("GET", ITEM + post_id)[0] == 200
    status, page = client.call("GET", f"{POSTS}?limit=1")
    assert page["total"] == len(shared) + len(created)


def scenario(tmp_path, threads, seconds):
    with serve(tmp_path, workers=4) as server:
        key = create_key(server.database)
        client = Client(server.port, key)
        soon = (datetime.now(timezone.utc) + timedelta(hours=1)).isoformat()
        shared = []
        for i in range(6):
            status, post = client.call(
                "POST", POSTS, {"type": "personal", "content": f"shared {i}", "scheduled_at": soon}
            )
            assert status == 201
            status, post = client.call("PATCH", ITEM + post["id"], {"status": "Scheduled"})
            assert status == 200 and post["version"] == 2
            shared.append(post["id"])
        results = run_load(server.port, key, threads, seconds, shared)
        check(client, shared, *results)


def test_concurrent_writers_lose_nothing(tmp_path):
    scenario(tmp_path, threads=16, seconds=6)


@pytest.mark.slow
def test_concurrent_writers_lose_nothing_long(tmp_path):
    scenario(tmp_path, threads=48, seconds=60)
