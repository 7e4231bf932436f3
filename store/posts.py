"""Posts."""

from store.paging import POST_KINDS, page
from store.records import OwnedTable

COLUMNS = (
    "id, type, brand_id, content, media_urls, status, scheduled_at, published_at,"
    " linkedin_post_id, live_url, last_error, created_at, updated_at, version"
)
CREATABLE = ("type", "brand_id", "content", "media_urls", "scheduled_at")
posts = OwnedTable(
    "posts",
    COLUMNS,
    json_columns=["media_urls"],
    writable=[*CREATABLE, "status", "published_at", "linkedin_post_id", "live_url", "last_error"],
)
ORDERS = {
    "-created_at": "created_at DESC, id DESC",
    "scheduled_at": "scheduled_at IS NULL, scheduled_at, id",
}


def get_post(user_id, post_id):
    return posts.get(user_id, post_id)


def lock_post(user_id, post_id):
    return posts.lock(user_id, post_id)


def insert_post(user_id, post_id, fields, now):
    return posts.insert(user_id, post_id, {k: fields[k] for k in CREATABLE}, now)


def update_post(user_id, post_id, changes, now):
    return posts.update(user_id, post_id, changes, now)


def list_posts(user_id, query, now):
    """One page of the user's posts matching the query's filters, and the total."""
    where, params, counted = ["user_id = ?"], [user_id], {}
    for column in ("status", "type"):
        if query.get(column):
            where.append(f"{column} = ?")
            params.append(query[column])
            counted[column] = query[column]
    if query.get("scheduled_before"):
        where.append("scheduled_at < ?")
        params.append(query["scheduled_before"])
    if query.get("scheduled_after"):
        where.append("scheduled_at >= ?")
        params.append(query["scheduled_after"])
    if query.get("due"):
        where += ["status = ?", "scheduled_at <= ?"]
        params += ["Scheduled", now]
    # content_counts answers `total` unless a time filter is in play.
    by_counts = len(where) == 1 + len(counted)
    kinds = [POST_KINDS[query["type"]]] if query.get("type") else list(POST_KINDS.values())
    found, total = page(
        "posts",
        COLUMNS,
        where,
        params,
        ORDERS[query["order"]],
        query["limit"],
        query["offset"],
        counts=(user_id, kinds, query.get("status")) if by_counts else None,
    )
    return [posts.record(r) for r in found], total
