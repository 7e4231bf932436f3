"""One page of a user's rows plus the total, shared by posts and articles."""

from store.db import get_db


def page(table, columns, where, params, order, limit, offset, counts=None):
    """Rows `offset .. offset+limit` of `table` matching `where`, and their total.

    `counts` is (user_id, kinds, status or None) when the filters are only
    owner, kind and status: the total then comes from content_counts, kept by
    triggers, instead of counting the owner's rows one by one.
    """
    db = get_db()
    condition = " AND ".join(where)
    db.execute("BEGIN")  # one snapshot for the rows and the total
    try:
        return _page(db, table, columns, condition, params, order, limit, offset, counts)
    finally:
        db.execute("COMMIT")


def _page(db, table, columns, condition, params, order, limit, offset, counts):
    rows = db.execute(
        f"SELECT {columns} FROM {table} WHERE {condition} ORDER BY {order} LIMIT ? OFFSET ?",
        (*params, limit, offset),
    ).fetchall()
    if offset == 0 and len(rows) < limit:
        return rows, len(rows)
    if counts is None:
        total = db.execute(f"SELECT COUNT(*) FROM {table} WHERE {condition}", params).fetchone()[0]
    else:
        user_id, kinds, status = counts
        sql = (
            "SELECT COALESCE(SUM(n), 0) FROM content_counts WHERE user_id = ?"
            f" AND kind IN ({', '.join('?' * len(kinds))})"
        )
        args = [user_id, *kinds]
        if status:
            sql += " AND status = ?"
            args.append(status)
        total = db.execute(sql, args).fetchone()[0]
    return rows, total
