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


def get_article(user_id, article_id):
    return articles.get(user_id, article_id)


def lock_article(user_id, article_id):
    return articles.lock(user_id, article_id)


def insert_article(user_id, article_id, fields, now):
    return articles.insert(user_id, article_id, {k: fields[k] for k in CREATABLE}, now)


def update_article(user_id, article_id, changes, now):
    return articles.update(user_id, article_id, changes, now)


def delete_article(user_id, article_id):
    """Remove the article and the idempotency keys that named it."""
    article_keys.forget(user_id, article_id)
    return articles.delete(user_id, article_id)


def list_articles(user_id, query):
    """One page of the user's articles, newest first, optionally by status."""
    where, params = ["user_id = ?"], [user_id]
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
        counts=(user_id, [ARTICLE_KIND], query.get("status")),
        after=query.get("cursor"),
    )
    return Page([articles.record(r) for r in found.rows], found.total, found.more)
