"""Exactly once: many claimers against real gunicorn never share a post."""

import http.client
import json
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from tests.live import create_key, serve

POSTS = "/functions/v1/api-v2-posts"
ITEM = "/functions/v1/api-v2-posts-item/"
CLAIM = "/functions/v1/api-v2-posts-claim"


def call(port, key, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"X-API-Key": key, "Content-Type": "application/json"}
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


def seed_due_posts(port, key, n):
    def one(i):
        status, post = call(port, key, "POST", POSTS, {
            "type": "personal", "content": f"due {i}",
            "scheduled_at": f"2020-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"})
        assert status == 201, post
        status, post = call(port, key, "PATCH", ITEM + post["id"], {"status": "Scheduled"})
        assert status == 200, post
        return post["id"]

    with ThreadPoolExecutor(8) as pool:
        return set(pool.map(one, range(n)))


def test_concurrent_claimers_take_each_post_exactly_once(tmp_path):
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999"}
    with serve(tmp_path, workers=4, env=env) as server:
        key = create_key(server.database)
        due = seed_due_posts(server.port, key, 2000)
        claimed, errors, lock = [], [], threading.Lock()

        def claimer():
            while True:
                status, body = call(server.port, key, "POST", CLAIM, {"limit": 10})
                if status != 200:
                    with lock:
                        errors.append((status, body))
                    return
                if not body["data"]:
                    return
                with lock:
                    claimed.extend((p["id"], p["handoff_id"], p["status"]) for p in body["data"])

        threads = [threading.Thread(target=claimer) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors[:5]
        counts = Counter(post_id for post_id, _, _ in claimed)
        assert [p for p, n in counts.items() if n > 1] == []  # none claimed twice
        assert set(counts) == due  # none missed
        assert {status for _, _, status in claimed} == {"Publishing"}
        assert len({handoff for _, handoff, _ in claimed}) == 2000
        status, page = call(server.port, key, "GET", f"{POSTS}?status=Scheduled&limit=1")
        assert page["total"] == 0
        status, page = call(server.port, key, "GET", f"{POSTS}?status=Publishing&limit=1")
        assert page["total"] == 2000
        status, page = call(server.port, key, "GET", f"{POSTS}?limit=100")
        assert {p["handoff_count"] for p in page["data"]} == {1}
