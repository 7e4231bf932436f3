"""The article lifecycle: Draft <-> Published, with no extra scope.

Publishing sets published_at and going back to Draft clears it. Articles are
published by the user (their live_url set by PATCH), not by the automation.
"""

import uuid

from idempotency import create_once
from store import articles as article_store
from store.idempotency import article_keys


def plan_update(article, changes, now):
    """The column changes a PATCH makes: only what differs is written."""
    changes = {k: v for k, v in changes.items() if article.get(k) != v}
    if "status" in changes:
        changes["published_at"] = now if changes["status"] == "Published" else None
    return changes


def create(user_id, fields, idempotency_key, now):
    """A new Draft, or the article an earlier request with the same
    Idempotency-Key made (inside the caller's transaction)."""
    return create_once(
        article_keys,
        user_id,
        idempotency_key,
        fields,
        insert=lambda: article_store.insert_article(user_id, str(uuid.uuid4()), fields, now),
        get=article_store.get_article,
        now=now,
    )
