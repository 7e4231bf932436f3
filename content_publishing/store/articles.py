"""Articles."""

from content_publishing.store.idempotency import article_keys
from content_publishing.store.paging import ARTICLE_KIND, Page, page
from content_publishing.store.records import OwnedTable

COLUMNS = (
    "id, title, body, excerpt, cover_image_url, tags, status, published_at, live_url,"
    " created_at, updated_at, version"
)
CREATABLE = ("title", "body", "excerpt", "cover_image_url", "tags")
articles = OwnedTable(
    "articles",
    COLUMNS,
    json_columns=["tags"],
    writable=[*CREATABLE, "status", "published_at", "live_url"],
)


def get_article(workspace_id, article_id):
    return articles.get(workspace_id, article_id)


def lock_article(workspace_id, article_id):
    return articles.lock(workspace_id, article_id)


def insert_article(workspace_id, article_id, fields, now):
    return articles.insert(workspace_id, article_id, {k: fields[k] for k in CREATABLE}, now)


def update_article(workspace_id, article_id, changes, now):
    return articles.update(workspace_id, article_id, changes, now)


def delete_article(workspace_id, article_id):
    """Remove the article and the idempotency keys that named it."""
    article_keys.forget(workspace_id, article_id)
    return articles.delete(workspace_id, article_id)


def list_articles(workspace_id, query):
    """One page of the workspace's articles, newest first, optionally by status."""
    where, params = ["workspace_id = ?"], [workspace_id]
    if query.get("status"):
        where.append("status = ?")
        params.append(query["status"])
    found = page(
        "articles",
        COLUMNS,
        where,
        params,
        "created_at DESC, id DESC",
        query["limit"],
        query["offset"],
        counts=(workspace_id, [ARTICLE_KIND], query.get("status")),
        after=query.get("cursor"),
    )
    return Page([articles.record(r) for r in found.rows], found.total, found.more)
