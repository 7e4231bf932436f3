"""Posts, their handoffs to the automation, and their deletion."""

import uuid

from store.db import execute, execute_many, rows, value
from store.idempotency import post_keys
from store.paging import POST_KINDS, page
from store.records import OwnedTable

COLUMNS = (
    "id, type, brand_id, content, media_urls, status, scheduled_at, published_at,"
    " linkedin_post_id, live_url, last_error, handoff_id, handoff_expires_at, handoff_count,"
    " created_at, updated_at, version"
)
CREATABLE = ("type", "brand_id", "content", "media_urls", "scheduled_at")
posts = OwnedTable(
    "posts",
    COLUMNS,
    json_columns=["media_urls"],
    writable=[*CREATABLE, "status", "published_at", "linkedin_post_id", "live_url", "last_error",
              "handoff_id", "handoff_expires_at"],
)
ORDERS = {
    "-created_at": "created_at DESC, id DESC",
    "scheduled_at": "scheduled_at IS NULL, scheduled_at, id",
}
_EXPIRED = "status = 'Publishing' AND handoff_expires_at <= ?"


def get_post(user_id, post_id):
    return posts.get(user_id, post_id)


def lock_post(user_id, post_id):
    return posts.lock(user_id, post_id)


def insert_post(user_id, post_id, fields, now):
    return posts.insert(user_id, post_id, {k: fields[k] for k in CREATABLE}, now)


def update_post(user_id, post_id, changes, now):
    return posts.update(user_id, post_id, changes, now)


def delete_post(user_id, post_id):
    """Remove the post and the idempotency keys that named it."""
    post_keys.forget(user_id, post_id)
    return posts.delete(user_id, post_id)


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


def claim_due(user_id, now, limit, expires_at, post_type=None):
    """Hand up to `limit` of the user's due posts (Scheduled, scheduled_at <=
    now), soonest first, to one caller: each becomes Publishing with a new
    handoff_id (a UUID made here), handoff_expires_at, handoff_count + 1 and
    version + 1. Returns their records in that order.

    Inside a transaction: SQLite's BEGIN IMMEDIATE already keeps a second
    claimer out until this one commits.
    """
    where, params = "user_id = ? AND status = 'Scheduled' AND scheduled_at <= ?", [user_id, now]
    if post_type:
        where += " AND type = ?"
        params.append(post_type)
    ids = [r["id"] for r in rows(
        f"SELECT id FROM posts WHERE {where} ORDER BY scheduled_at, id LIMIT ?", (*params, limit)
    )]
    if not ids:
        return []
    execute_many(
        "UPDATE posts SET status = 'Publishing', handoff_id = ?, handoff_expires_at = ?,"
        " handoff_count = handoff_count + 1, updated_at = ?, version = version + 1 WHERE id = ?",
        [(str(uuid.uuid4()), expires_at, now, post_id) for post_id in ids],
    )
    claimed = {
        r["id"]: posts.record(r)
        for r in rows(f"SELECT {COLUMNS} FROM posts WHERE id IN ({', '.join('?' * len(ids))})", ids)
    }
    return [claimed[post_id] for post_id in ids]


def has_expired_handoffs(user_id, now):
    """Whether any of the user's handoffs ran out by `now` without a result."""
    return value(f"SELECT 1 FROM posts WHERE {_EXPIRED} AND user_id = ? LIMIT 1", (now, user_id)) == 1


def expire_handoffs(now, error, user_id=None):
    """Every Publishing post whose lease ran out by `now` (of one user, or
    all) becomes Failed, as of its handoff_expires_at: that is its updated_at,
    its version grows by one, and its last_error is error[0] + the expiry
    time + error[1]. Returns [{id, user_id}] of the posts changed."""
    where, params = _EXPIRED, [now]
    if user_id is not None:
        where += " AND user_id = ?"
        params.append(user_id)
    return rows(
        "UPDATE posts SET status = 'Failed', last_error = ? || handoff_expires_at || ?,"
        " handoff_id = NULL, handoff_expires_at = NULL, updated_at = handoff_expires_at,"
        f" version = version + 1 WHERE {where} RETURNING id, user_id",
        (*error, *params),
    )
