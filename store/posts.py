"""Posts and the idempotency keys of their creation."""

import json

from store.db import get_db
from store.paging import page

COLUMNS = (
    "id, type, brand_id, content, media_urls, status, scheduled_at, published_at,"
    " linkedin_post_id, live_url, last_error, created_at, updated_at, version"
)
WRITABLE = {
    "type", "brand_id", "content", "media_urls", "status", "scheduled_at",
    "published_at", "linkedin_post_id", "live_url", "last_error",
}  # fmt: skip
ORDERS = {
    "-created_at": "created_at DESC, id DESC",
    "scheduled_at": "scheduled_at IS NULL, scheduled_at, id",
}


def _record(row):
    record = dict(row)
    record["media_urls"] = json.loads(record["media_urls"])
    return record


def get_post(user_id, post_id, db=None):
    """The user's post, or None: another user's post is as unknown as a
    missing one."""
    row = (db or get_db()).execute(
        f"SELECT {COLUMNS} FROM posts WHERE id = ? AND user_id = ?", (post_id, user_id)
    ).fetchone()
    return _record(row) if row else None


def insert_post(db, user_id, post_id, fields, now):
    db.execute(
        "INSERT INTO posts (id, user_id, type, brand_id, content, media_urls, scheduled_at,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            post_id,
            user_id,
            fields["type"],
            fields["brand_id"],
            fields["content"],
            json.dumps(fields["media_urls"]),
            fields["scheduled_at"],
            now,
            now,
        ),
    )
    return get_post(user_id, post_id, db)


def update_post(db, user_id, post_id, changes, now):
    """Write `changes`, bump version; returns the new record."""
    assert changes.keys() <= WRITABLE, changes.keys() - WRITABLE
    values = {k: json.dumps(v) if k == "media_urls" else v for k, v in changes.items()}
    assignments = "".join(f"{column} = ?, " for column in values)
    db.execute(
        f"UPDATE posts SET {assignments}updated_at = ?, version = version + 1"
        " WHERE id = ? AND user_id = ?",
        (*values.values(), now, post_id, user_id),
    )
    return get_post(user_id, post_id, db)


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
    return [_record(r) for r in rows], total


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
