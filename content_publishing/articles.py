"""The article lifecycle: Draft <-> Published, with no extra scope.

Publishing sets published_at and going back to Draft clears it. Articles are
published by a member (its live_url set by PATCH), not by the automation.

Every change to an article is written here with the event it causes, inside
the caller's transaction (as for posts, posts.py).
"""

import uuid

from content_publishing.idempotency import create_once
from content_publishing.store import articles as article_store
from content_publishing.store.idempotency import article_keys
from content_publishing.webhooks import events


def update(workspace_id, article, changes, now):
    """A PATCH of `article` (read with lock_article), written with its
    article.published event when it becomes Published."""
    columns = plan_update(article, changes, now)
    if not columns:
        return article
    changed = article_store.update_article(workspace_id, article["id"], columns, now)
    events.article_changed(workspace_id, article, changed, now)
    return changed


def delete(workspace_id, article):
    """Any article may be deleted, Draft or Published (no event)."""
    article_store.delete_article(workspace_id, article["id"])


def plan_update(article, changes, now):
    """The column changes a PATCH makes: only what differs is written."""
    changes = {k: v for k, v in changes.items() if article.get(k) != v}
    if "status" in changes:
        changes["published_at"] = now if changes["status"] == "Published" else None
    return changes


def create(workspace_id, fields, idempotency_key, now):
    """A new Draft, or the article an earlier request with the same
    Idempotency-Key made (inside the caller's transaction)."""
    return create_once(
        article_keys,
        workspace_id,
        idempotency_key,
        fields,
        insert=lambda: article_store.insert_article(workspace_id, str(uuid.uuid4()), fields, now),
        get=article_store.get_article,
        now=now,
    )
