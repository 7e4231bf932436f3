"""Articles."""

from store.paging import page
from store.records import OwnedTable

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


def get_article(user_id, article_id, db=None):
    return articles.get(user_id, article_id, db)


def insert_article(db, user_id, article_id, fields, now):
    return articles.insert(db, user_id, article_id, {k: fields[k] for k in CREATABLE}, now)


def update_article(db, user_id, article_id, changes, now):
    return articles.update(db, user_id, article_id, changes, now)


def list_articles(user_id, query):
    """One page of the user's articles, newest first, optionally by status."""
    where, params = ["user_id = ?"], [user_id]
    if query.get("status"):
        where.append("status = ?")
        params.append(query["status"])
    rows, total = page(
        "articles",
        COLUMNS,
        where,
        params,
        "created_at DESC, id DESC",
        query["limit"],
        query["offset"],
        counts=(user_id, ["article"], query.get("status")),
    )
    return [articles.record(r) for r in rows], total
