"""Exactly once: many claimers against real gunicorn never share a post."""

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from harness import Client, create_key, serve

POSTS = "/functions/v1/api-v2-posts"
ITEM = "/functions/v1/api-v2-posts-item/"
CLAIM = "/functions/v1/api-v2-posts-claim"


def seed_due_posts(url, key, n):
    local = threading.local()

    def one(i):
        client = getattr(local, "client", None) or Client(url, key, timeout=30)
        local.client = client
        r = client.post(
            POSTS,
            {
                "type": "personal",
                "content": f"due {i}",
                "scheduled_at": f"2020-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
            },
        )
        assert r.status == 201, r
        r = client.patch(ITEM + r.json["id"], {"status": "Scheduled"})
        assert r.status == 200, r
        return r.json["id"]

    with ThreadPoolExecutor(8) as pool:
        return set(pool.map(one, range(n)))


def test_concurrent_claimers_take_each_post_exactly_once(tmp_path, live_database):
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999"}
    with serve(tmp_path, workers=4, env=env, database=live_database) as server:
        key = create_key(server.database)
        due = seed_due_posts(server.url, key, 2000)
        claimed, errors, lock = [], [], threading.Lock()

        def claimer():
            client = Client(server.url, key, timeout=30)
            while True:
                r = client.post(CLAIM, {"limit": 10})
                if r.status != 200:
                    with lock:
                        errors.append(r)
                    return
                if not r.json["data"]:
                    return
                with lock:
                    claimed.extend((p["id"], p["handoff_id"], p["status"]) for p in r.json["data"])

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
        client = Client(server.url, key)
        assert client.get(f"{POSTS}?status=Scheduled&limit=1").json["total"] == 0
        assert client.get(f"{POSTS}?status=Publishing&limit=1").json["total"] == 2000
        page = client.get(f"{POSTS}?limit=100").json
        assert {p["handoff_count"] for p in page["data"]} == {1}
