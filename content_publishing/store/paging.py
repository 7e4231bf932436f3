"""One page of a workspace's rows plus the total, shared by every list.

Callers run `page` inside `store.db.snapshot()` (or a transaction), so that
the rows and the total describe the same state.

A page starts at an offset, or after a row (keyset paging: `after` is the
(created_at, id) of the last row of the page before). Following pages by
the row they end at never repeats or misses a row while rows are added
between the requests, which offsets cannot promise: each new row pushes
every offset one further. The list answers' `next` links use it.
"""

from collections import namedtuple

from content_publishing.store.db import rows, value

# more: rows follow this page. estimate: None for a list whose total is
# always counted; else whether `total` is an estimate (a broad search).
Page = namedtuple("Page", "rows total more estimate", defaults=(None,))

# The kinds counted in content_counts. The schema's triggers write the same
# strings ('post:' || type, 'article').
POST_KINDS = {"personal": "post:personal", "brand": "post:brand"}
ARTICLE_KIND = "article"


def page(table, columns, where, params, order, limit, offset, counts=None, after=None):
    """A Page: rows `offset .. offset+limit` of `table` matching `where` (or
    the `limit` rows after the row `after`, in `order`, which must then be
    by created_at and id), their total, and whether more follow.

    `counts` is (workspace_id, kinds, status or None) when the filters are only
    owner, kind and status: the total then comes from content_counts, kept by
    triggers, instead of counting the owner's rows one by one.
    """
    found, more = page_rows(table, columns, where, params, order, limit, offset, after)
    condition = " AND ".join(where)
    return Page(found, _total(table, condition, params, offset, after, more, found, counts), more)


def page_rows(table, columns, where, params, order, limit, offset, after=None):
    """(rows, more): the rows of `page`, without their total."""
    keyset, key = after_row(order, after)
    found = rows(
        f"SELECT {columns} FROM {table} WHERE {' AND '.join(where)}{keyset}"
        f" ORDER BY {order} LIMIT ? OFFSET ?",
        (*params, *key, limit + 1, offset),
    )
    return found[:limit], len(found) > limit


def after_row(order, after):
    """(condition, parameters) of the rows after the row `after` in
    `order` (by created_at and id); nothing when `after` is None."""
    if after is None:
        return "", ()
    ahead = "<" if order.split(",")[0].strip().upper().endswith("DESC") else ">"
    return f" AND (created_at, id) {ahead} (?, ?)", tuple(after)


def _total(table, condition, params, offset, after, more, found, counts):
    """Every row matching the filters, whatever the page."""
    if offset == 0 and after is None and not more:
        return len(found)
    if counts is None:
        return value(f"SELECT COUNT(*) FROM {table} WHERE {condition}", params)
    return counted(*counts)


def counted(workspace_id, kinds, status=None):
    """The workspace's rows of these kinds (and status), from content_counts."""
    sql = (
        "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM content_counts WHERE workspace_id = ?"
        f" AND kind IN ({', '.join('?' * len(kinds))})"
    )
    args = [workspace_id, *kinds]
    if status:
        sql += " AND status = ?"
        args.append(status)
    return value(sql, args)
