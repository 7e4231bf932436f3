"""Every query a read runs uses an index: cost must not grow with the table.

The statements are captured while the real endpoints run, then explained by
SQLite (EXPLAIN QUERY PLAN).
"""

import pytest

from content_publishing.store.db import get_db, trace
from harness.api import POSTS

pytestmark = pytest.mark.sqlite_only


def captured(app, call):
    statements = []
    with trace(statements.append):  # the test client runs in this thread
        call()
    plans = {}
    with app.app_context():
        for sql in statements:
            if sql.lstrip().upper().startswith("SELECT") and "FROM" in sql.upper():
                unbound = [None] * sql.count("?")  # planned alike for any value
                rows = get_db().execute("EXPLAIN QUERY PLAN " + sql, unbound).fetchall()
                plans[sql] = [row[3] for row in rows]
    return plans


@pytest.mark.parametrize(
    "path",
    [
        POSTS + "?limit=20",
        POSTS + "?limit=1&offset=3",
        POSTS + "?status=Draft&limit=2",
        POSTS + "?type=brand&limit=2",
        POSTS + "?due=true&order=scheduled_at&limit=2",
        POSTS + "?status=Scheduled&order=scheduled_at&limit=2",
        "/functions/v1/articles-api?limit=2",
        "/functions/v1/articles-api?status=Published&limit=2",
        POSTS + "?status=Publishing&limit=2",
        "ITEM_POST",
        "ITEM_ARTICLE",
        "CLAIM",
        "CLAIM_BRAND",
        "/functions/v1/api-v2-posts-occurrences?from=2031-06-01T00:00:00Z&to=2031-07-01T00:00:00Z",
        POSTS + "?order=-impressions&limit=2",
        POSTS + "?status=Published&order=-engagement&limit=2",
        "/functions/v1/analytics",
        "/functions/v1/analytics?channel=b",
        "/functions/v1/analytics.csv?channel=personal&from=2026-01-01",
        "/functions/v1/hashtag-sets?limit=2",
    ],
)
def test_reads_use_indexes(app, api, path):
    post = api.post(POSTS, json={"type": "personal", "content": "x"}).get_json()
    article = api.post("/functions/v1/articles-api", json={"title": "t"}).get_json()
    for _ in range(4):
        api.post(POSTS, json={"type": "brand", "brand_id": "b", "content": "y"})
    claims = {"CLAIM": {}, "CLAIM_BRAND": {"type": "brand"}}
    if path in claims:

        def call():
            return api.post("/functions/v1/api-v2-posts-claim", json=claims[path])
    else:
        path = {
            "ITEM_POST": f"/functions/v1/api-v2-posts-item/{post['id']}",
            "ITEM_ARTICLE": f"/functions/v1/articles-api-item/{article['id']}",
        }.get(path, path)

        def call():
            return api.get(path)

    plans = captured(app, call)
    assert any(table in sql for sql in plans for table in ("posts", "articles", "hashtag_sets"))
    for sql, steps in plans.items():
        # A subquery's rows (the ten top posts; the sums per quarter-hour),
        # made once through an index, are then read whole.
        made = {
            step.split()[-1] for step in steps if step.startswith(("MATERIALIZE", "CO-ROUTINE"))
        }
        for step in steps:
            if step.startswith("SCAN") and step.split()[1] in made:
                continue
            assert not (step.startswith("SCAN") and "INDEX" not in step), (sql, steps)
        if "ORDER BY created_at DESC" in sql:
            assert not [s for s in steps if "TEMP B-TREE" in s], (sql, steps)


def test_add_to_queue_reads_use_indexes(app, api):
    """The queue reads its channel's planned posts by the channel they belong
    to, through posts_channel_plan, and its holes by their key."""
    slots = [{"day": "mon", "time": "09:00"}]
    api.post(
        "/functions/v1/channels",
        json={"type": "brand", "brand_id": "b", "name": "B", "slots": slots},
    )
    posts = [
        api.post(POSTS, json={"type": "brand", "brand_id": "b", "content": "y"}).get_json()
        for _ in range(3)
    ]
    for post in posts[:2]:
        assert (
            api.post("/functions/v1/api-v2-posts-queue", json={"post_id": post["id"]}).status_code
            == 200
        )
    api.patch(
        f"/functions/v1/api-v2-posts-item/{posts[0]['id']}", json={"status": "Draft"}
    )  # a hole

    def call():
        return api.post("/functions/v1/api-v2-posts-queue", json={"post_id": posts[2]["id"]})

    plans = captured(app, call)
    planned = [s for sql, steps in plans.items() if "FROM posts WHERE" in sql for s in steps]
    assert any("posts_channel_plan" in step for step in planned), plans
    assert any("channel_queue_holes" in sql for sql in plans), plans
    for sql, steps in plans.items():
        for step in steps:
            assert not (step.startswith("SCAN") and "INDEX" not in step), (sql, steps)
