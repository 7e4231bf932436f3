"""Exactly once: many claimers against real gunicorn never share a post."""

import pytest

from harness import Client, create_key, serve
from harness.api import POSTS
from harness.claims import drain, past, schedule_posts

# The PostgreSQL half of the live tests runs in make test too: claims racing: each store's locking hands a post out once.
pytestmark = pytest.mark.both_backends


# 400 due posts: 16 claimers of 10 contend over some 3 rounds each; under
# `make test-slow`, 2000 over some 12 rounds.
@pytest.mark.parametrize("due_count", [400, pytest.param(2000, marks=pytest.mark.slow)])
def test_concurrent_claimers_take_each_post_exactly_once(tmp_path, live_database, due_count):
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999"}
    with serve(tmp_path, workers=4, env=env, database=live_database) as server:
        key = create_key(server.database)
        due = set(schedule_posts(server.url, key, [past(i) for i in range(due_count)]))
        claims = drain([server.url], key, threads=16, limit=10, timeout=120)
        assert not claims.errors and claims.unanswered == 0, claims.errors[:5]
        assert claims.duplicates() == []  # none claimed twice
        assert claims.ids() == due  # none missed
        assert {status for _, _, status in claims.claimed} == {"Publishing"}
        assert len({handoff for _, handoff, _ in claims.claimed}) == due_count
        client = Client(server.url, key)
        assert client.get(f"{POSTS}?status=Scheduled&limit=1").json["total"] == 0
        assert client.get(f"{POSTS}?status=Publishing&limit=1").json["total"] == due_count
        page = client.get(f"{POSTS}?limit=100").json
        assert {p["handoff_count"] for p in page["data"]} == {1}
