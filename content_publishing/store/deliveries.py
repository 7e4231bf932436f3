"""The delivery log: what a workspace reads of the outbox (GET /webhook-deliveries)
and what the metrics count. The outbox itself, which the change and the
dispatcher write, is store/outbox.py.
"""

from content_publishing.store.db import one, rows
from content_publishing.store.paging import Page, page

DELIVERY_COLUMNS = (
    "id, event_id, endpoint_id, event_type, post_id, outcome, attempt_count, next_attempt_at,"
    " last_error, created_at, updated_at"
)
ATTEMPT_COLUMNS = "delivery_id, attempted_at, outcome, status_code, duration_ms, error, response"


def list_deliveries(workspace_id, query):
    """One page of the workspace's deliveries, newest first, each with its attempts."""
    where, params = ["workspace_id = ?"], [workspace_id]
    for column in ("endpoint_id", "event_type", "post_id", "outcome"):
        if query.get(column):
            where.append(f"{column} = ?")
            params.append(query[column])
    found = page(
        "webhook_deliveries",
        DELIVERY_COLUMNS,
        where,
        params,
        "created_at DESC, id DESC",
        query["limit"],
        query["offset"],
        after=query.get("cursor"),
    )
    return Page(_with_attempts(found.rows), found.total, found.more)


def get_delivery(workspace_id, delivery_id):
    row = one(
        f"SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ? AND workspace_id = ?",
        (delivery_id, workspace_id),
    )
    return _with_attempts([row])[0] if row else None


def _with_attempts(deliveries):
    if not deliveries:
        return []
    marks = ", ".join("?" * len(deliveries))
    attempts = {}
    for attempt in rows(
        f"SELECT {ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id IN ({marks})"
        " ORDER BY id",
        [d["id"] for d in deliveries],
    ):
        attempts.setdefault(attempt.pop("delivery_id"), []).append(attempt)
    return [{**d, "attempts": attempts.get(d["id"], [])} for d in deliveries]


def count_by_outcome():
    """{outcome: deliveries} over the delivery log, for the metrics: the
    pending ones are the backlog, whichever dispatcher will send them."""
    return {
        r["outcome"]: r["n"]
        for r in rows("SELECT outcome, COUNT(*) AS n FROM webhook_deliveries GROUP BY outcome")
    }


def delivery_of_event(workspace_id, event_id):
    """The (first) delivery of an event, with its attempts."""
    row = one(
        f"SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE event_id = ? AND workspace_id = ?"
        " ORDER BY created_at, id LIMIT 1",
        (event_id, workspace_id),
    )
    return _with_attempts([row])[0] if row else None
