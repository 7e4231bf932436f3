"""Posts and the idempotency keys of their creation."""

from store.paging import page
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


def get_post(user_id, post_id, db=None):
    return posts.get(user_id, post_id, db)


def insert_post(db, user_id, post_id, fields, now):
    return posts.insert(db, user_id, post_id, {k: fields[k] for k in CREATABLE}, now)


def update_post(db, user_id, post_id, changes, now):
    return posts.update(db, user_id, post_id, changes, now)


def list_posts(user_id, query, now):
    """One page of the user's posts matching the query's filters."""
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
    kinds = [f"post:{query['type']}"] if query.get("type") else ["post:personal", "post:brand"]
    rows, total = page(
        "posts",
        COLUMNS,
        where,
        params,
        ORDERS[query["order"]],
        query["limit"],
        query["offset"],
        counts=(user_id, kinds, query.get("status")) if by_counts else None,
    )
    return [posts.record(r) for r in rows], total


def find_idempotency_key(db, user_id, key):
    row = db.execute(
        "SELECT request_hash, post_id FROM idempotency_keys WHERE user_id = ? AND key = ?",
        (user_id, key),
    ).fetchone()
    return dict(row) if row else None


def save_idempotency_key(db, user_id, key, request_hash, post_id, now):
    db.execute(
        "INSERT INTO idempotency_keys (user_id, key, request_hash, post_id, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (user_id, key, request_hash, post_id, now),
    )
