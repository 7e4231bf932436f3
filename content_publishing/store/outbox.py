"""The webhook outbox: events, their deliveries to endpoints, and attempts.

An event is added in the transaction of the change that causes it, with one
pending delivery per endpoint that wants it, so it is never lost after the
change commits and never sent for a change that rolled back. Dispatchers
lease ready deliveries (one holder at a time, until the lease runs out),
attempt them, and record each attempt. What workspaces and the metrics read of
it is store/deliveries.py.
"""

import uuid

from content_publishing.store.db import dialect, execute, execute_many, one, rows, value
from content_publishing.store.deliveries import ATTEMPT_COLUMNS, get_delivery
from content_publishing.store.posts import EXPIRED, PUSHABLE, PUSHABLE_SOON


def add_event(event_id, workspace_id, event_type, post_id, body, endpoint_ids, now):
    """The event, and a delivery of it to each endpoint, ready at once."""
    add_events(workspace_id, event_type, [(event_id, post_id, body)], endpoint_ids, now)


def add_events(workspace_id, event_type, events, endpoint_ids, now):
    """add_event for each (event_id, post_id, body) of `events`, all of one
    workspace and type, in two statements."""
    execute_many(
        "INSERT INTO webhook_events (id, workspace_id, type, post_id, body, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (event_id, workspace_id, event_type, post_id, body, now)
            for event_id, post_id, body in events
        ],
    )
    execute_many(
        "INSERT INTO webhook_deliveries (id, event_id, endpoint_id, workspace_id, event_type, post_id,"
        " next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                str(uuid.uuid4()),
                event_id,
                endpoint_id,
                workspace_id,
                event_type,
                post_id,
                now,
                now,
                now,
            )
            for event_id, post_id, _ in events
            for endpoint_id in endpoint_ids
        ],
    )


_READY = "outcome = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)"


def any_ready(now):
    """Whether a delivery waits for a dispatcher (a read, before taking the write lock)."""
    return value(f"SELECT 1 FROM webhook_deliveries WHERE {_READY} LIMIT 1", (now, now)) == 1


def waiting(now, soon):
    """What a dispatcher's round finds to do, in one read before it takes the
    write lock: `pushable` (a due post waits for its post.due endpoint),
    `expired` (a handoff ran out), `ready` (a delivery waits), each true or
    false; and `next_due`, the scheduled_at of the first post to push after
    `now` and up to `soon`, or None."""
    return one(
        f"SELECT EXISTS (SELECT 1 FROM posts p WHERE {PUSHABLE}) AS pushable,"
        f" EXISTS (SELECT 1 FROM posts WHERE {EXPIRED}) AS expired,"
        f" EXISTS (SELECT 1 FROM webhook_deliveries WHERE {_READY}) AS ready,"
        f" (SELECT p.scheduled_at FROM posts p WHERE {PUSHABLE_SOON}"
        " ORDER BY p.scheduled_at LIMIT 1) AS next_due",
        (now, now, now, now, now, soon),
    )


def lease_ready(owner, now, lease_until, limit):
    """Lease up to `limit` pending deliveries whose time has come and which
    nobody holds (or whose holder's lease ran out): theirs until `lease_until`.
    Returns them with what sending needs: the event's body, the endpoint (url,
    enabled, sealed secrets; NULLs if it was deleted) and, for post.due, the
    post's current handoff."""
    ids = [
        r["id"]
        for r in rows(
            f"SELECT id FROM webhook_deliveries WHERE {_READY} ORDER BY next_attempt_at LIMIT ?"
            + dialect().skip_locked,
            (now, now, limit),
        )
    ]
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    execute(
        f"UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ? WHERE id IN ({marks})",
        (owner, lease_until, *ids),
    )
    return rows(
        "SELECT d.id, d.event_id, d.endpoint_id, d.workspace_id, d.event_type, d.post_id, d.attempt_count,"
        " e.body, w.url, w.enabled, w.secret, w.previous_secret, w.previous_secret_until,"
        " w.auth_header_name, w.auth_header_token,"
        " p.status AS post_status, p.handoff_id, p.handoff_expires_at"
        " FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id"
        " LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id"
        " LEFT JOIN posts p ON p.id = d.post_id AND d.event_type = 'post.due'"
        f" WHERE d.id IN ({marks}) ORDER BY d.next_attempt_at",
        ids,
    )


def record_attempt(delivery_id, owner, attempt, outcome):
    """Store one attempt and the delivery's new state, if `owner` still holds
    the lease; False if it does not (the attempt is then not recorded: the
    delivery is someone else's now). `outcome` holds the delivery's outcome
    (pending, delivered, failed), next_attempt_at, last_error and now."""
    changed = execute(
        "UPDATE webhook_deliveries SET outcome = ?, attempt_count = attempt_count + 1, next_attempt_at = ?,"
        " last_error = ?, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?"
        " WHERE id = ? AND lease_owner = ? AND outcome = 'pending'",
        (
            outcome["outcome"],
            outcome["next_attempt_at"],
            outcome["last_error"],
            outcome["now"],
            delivery_id,
            owner,
        ),
    ).rowcount
    if changed != 1:
        return False
    execute(
        f"INSERT INTO webhook_attempts ({ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            delivery_id,
            attempt["attempted_at"],
            attempt["outcome"],
            attempt["status_code"],
            attempt["duration_ms"],
            attempt["error"],
            attempt["response"],
        ),
    )
    return True


def record_delivered(owner, delivery_ids, attempts, now):
    """record_attempt for many deliveries that got their 2xx, in three
    statements; the ids recorded (those `owner` still held). `attempts`:
    {delivery id: attempt row}."""
    if not delivery_ids:
        return set()
    marks = ", ".join("?" * len(delivery_ids))
    recorded = {
        r["id"]
        for r in rows(
            "UPDATE webhook_deliveries SET outcome = 'delivered', attempt_count = attempt_count + 1,"
            " next_attempt_at = NULL, last_error = NULL, lease_owner = NULL, lease_expires_at = NULL,"
            f" updated_at = ? WHERE id IN ({marks}) AND lease_owner = ? AND outcome = 'pending'"
            " RETURNING id",
            (now, *delivery_ids, owner),
        )
    }
    execute_many(
        f"INSERT INTO webhook_attempts ({ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                delivery_id,
                attempts[delivery_id]["attempted_at"],
                attempts[delivery_id]["outcome"],
                attempts[delivery_id]["status_code"],
                attempts[delivery_id]["duration_ms"],
                attempts[delivery_id]["error"],
                attempts[delivery_id]["response"],
            )
            for delivery_id in delivery_ids
            if delivery_id in recorded
        ],
    )
    return recorded


def renew(owner, now, lease_until):
    """Extend the leases `owner` still holds (those not yet run out) to
    `lease_until`; returns the ids extended. A lease that ran out is not
    revived: another dispatcher may have taken or be taking it."""
    return {
        r["id"]
        for r in rows(
            "UPDATE webhook_deliveries SET lease_expires_at = ?"
            " WHERE lease_owner = ? AND outcome = 'pending' AND lease_expires_at > ? RETURNING id",
            (lease_until, owner, now),
        )
    }


def cancel(delivery_id, owner, reason, now):
    """End a leased delivery that must not be sent (its handoff is over)."""
    execute(
        "UPDATE webhook_deliveries SET outcome = 'cancelled', last_error = ?, next_attempt_at = NULL,"
        " lease_owner = NULL, lease_expires_at = NULL, updated_at = ?"
        " WHERE id = ? AND lease_owner = ? AND outcome = 'pending'",
        (reason, now, delivery_id, owner),
    )


def fail(delivery_id, owner, reason, now):
    """End a leased delivery that can never be sent (its secret cannot be
    opened): failed, with no attempt, saying why."""
    execute(
        "UPDATE webhook_deliveries SET outcome = 'failed', last_error = ?, next_attempt_at = NULL,"
        " lease_owner = NULL, lease_expires_at = NULL, updated_at = ?"
        " WHERE id = ? AND lease_owner = ? AND outcome = 'pending'",
        (reason, now, delivery_id, owner),
    )


def release(owner, delivery_ids=None):
    """Give back leases (all of `owner`'s, or some) for another dispatcher."""
    sql = (
        "UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL"
        " WHERE lease_owner = ? AND outcome = 'pending'"
    )
    params = [owner]
    if delivery_ids is not None:
        if not delivery_ids:
            return
        sql += f" AND id IN ({', '.join('?' * len(delivery_ids))})"
        params += list(delivery_ids)
    execute(sql, params)


def cancel_for_endpoint(endpoint_id, reason, now):
    """The pending deliveries of an endpoint being deleted or disabled."""
    execute(
        "UPDATE webhook_deliveries SET outcome = 'cancelled', last_error = ?, next_attempt_at = NULL,"
        " lease_owner = NULL, lease_expires_at = NULL, updated_at = ?"
        " WHERE endpoint_id = ? AND outcome = 'pending'",
        (reason, now, endpoint_id),
    )


def redeliver(workspace_id, delivery, now):
    """A new pending delivery of the same event to the same endpoint."""
    delivery_id = str(uuid.uuid4())
    execute(
        "INSERT INTO webhook_deliveries (id, event_id, endpoint_id, workspace_id, event_type, post_id,"
        " next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            delivery_id,
            delivery["event_id"],
            delivery["endpoint_id"],
            workspace_id,
            delivery["event_type"],
            delivery["post_id"],
            now,
            now,
            now,
        ),
    )
    return get_delivery(workspace_id, delivery_id)


PURGE_BATCH = 2000  # rows per transaction: a big backlog never holds the write lock for long

# What makes a row of the log old enough to forget, by table, in the order the
# foreign keys need: attempts, then finished deliveries left without attempts,
# then events left without deliveries.
_FORGETTABLE = {
    "webhook_attempts": "attempted_at < ?",
    "webhook_deliveries": "outcome <> 'pending' AND updated_at < ? AND NOT EXISTS"
    " (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id)",
    "webhook_events": "created_at < ? AND NOT EXISTS"
    " (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)",
}


def purgeable(before, limit=PURGE_BATCH):
    """(table, ids) of up to `limit` rows of the log older than `before`, from
    the first table that has any; None when none is left. A read, outside
    any transaction: only purge() takes the write lock, to delete them."""
    for table, old in _FORGETTABLE.items():
        found = rows(f"SELECT id FROM {table} WHERE {old} LIMIT ?", (before, limit))
        if found:
            return table, [r["id"] for r in found]
    return None


def purge(table, ids, before):
    """Forget the rows purgeable() found that still may be (a delivery
    redelivered meanwhile keeps its event); returns how many."""
    marks = ", ".join("?" * len(ids))
    return execute(
        f"DELETE FROM {table} WHERE id IN ({marks}) AND {_FORGETTABLE[table]}", (*ids, before)
    ).rowcount
