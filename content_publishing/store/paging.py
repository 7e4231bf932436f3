"""One page of a user's rows plus the total, shared by posts and articles.

Callers run `page` inside `store.db.snapshot()` (or a transaction), so that
the rows and the total describe the same state.
"""

from content_publishing.store.db import rows, value

# The kinds counted in content_counts. schema.sql's triggers write the same
# strings ('post:' || type, 'article').
POST_KINDS = {"personal": "post:personal", "brand": "post:brand"}
ARTICLE_KIND = "article"


def page(table, columns, where, params, order, limit, offset, counts=None):
    """Rows `offset .. offset+limit` of `table` matching `where`, and their total.

    `counts` is (user_id, kinds, status or None) when the filters are only
    owner, kind and status: the total then comes from content_counts, kept by
    triggers, instead of counting the owner's rows one by one.
    """
    condition = " AND ".join(where)
    found = rows(
        f"SELECT {columns} FROM {table} WHERE {condition} ORDER BY {order} LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )
    if offset == 0 and len(found) < limit:
        return found, len(found)
    if counts is None:
        return found, value(f"SELECT COUNT(*) FROM {table} WHERE {condition}", params)
    user_id, kinds, status = counts
    sql = (
        "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM content_counts WHERE user_id = ?"
        f" AND kind IN ({', '.join('?' * len(kinds))})"
    )
    args = [user_id, *kinds]
    if status:
        sql += " AND status = ?"
        args.append(status)
    return found, value(sql, args)
