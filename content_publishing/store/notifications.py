"""The notification outbox: messages to members (email) and to a
workspace's chat, their leases and attempts (migration 0018 says what the
table holds), and the members who may receive them.

A message is added in the transaction of the change that causes it, so it
is never lost after the change commits and never sent for one that rolled
back. A dispatcher leases the oldest pending message of a recipient, and
only when no earlier message of that recipient is pending: one at a time
per recipient, in order, whichever dispatcher holds it.
"""

import json

from content_publishing.store.db import dialect, execute, execute_many, one, rows, value

COLUMNS = (
    "id, workspace_id, member_id, kind, recipient, event, post_id, body, outcome,"
    " attempt_count, next_attempt_at, lease_owner, lease_expires_at, last_error,"
    " created_at, updated_at"
)

# Ready: pending, its time come, nobody's lease on it, and the first of its
# recipient's pending messages (an earlier one waiting for its retry holds
# the later ones back).
_READY = (
    "n.outcome = 'pending' AND n.next_attempt_at <= ?"
    " AND (n.lease_expires_at IS NULL OR n.lease_expires_at <= ?)"
    " AND NOT EXISTS (SELECT 1 FROM notifications e WHERE e.recipient = n.recipient"
    " AND e.outcome = 'pending' AND e.id < n.id)"
)


def recipients(workspace_id):
    """The workspace's members who may hear of anything: not removed, with
    an email address (id, name, email, role, notify: a list, None for all)."""
    found = rows(
        "SELECT id, name, email, role, notify FROM members"
        " WHERE workspace_id = ? AND removed_at IS NULL AND email IS NOT NULL ORDER BY id",
        (workspace_id,),
    )
    return [{**m, "notify": m["notify"] and json.loads(m["notify"])} for m in found]


def add(messages, now):
    """Queue each of `messages` (dicts of workspace_id, member_id, kind,
    recipient, event, post_id, body), ready at once."""
    execute_many(
        "INSERT INTO notifications (workspace_id, member_id, kind, recipient, event, post_id,"
        " body, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                m["workspace_id"],
                m["member_id"],
                m["kind"],
                m["recipient"],
                m["event"],
                m["post_id"],
                m["body"],
                now,
                now,
                now,
            )
            for m in messages
        ],
    )


def any_ready(now):
    """Whether a message waits (a read, before taking the write lock)."""
    return value(f"SELECT 1 FROM notifications n WHERE {_READY} LIMIT 1", (now, now)) == 1


def lease_one(owner, now, lease_until):
    """Lease the oldest ready message to `owner` until `lease_until`; it, or None."""
    found = one(
        f"SELECT n.id FROM notifications n WHERE {_READY} ORDER BY n.id LIMIT 1"
        + dialect().skip_locked,
        (now, now),
    )
    if found is None:
        return None
    return one(
        "UPDATE notifications SET lease_owner = ?, lease_expires_at = ?"
        " WHERE id = ? AND outcome = 'pending'"
        " AND (lease_expires_at IS NULL OR lease_expires_at <= ?)"
        f" RETURNING {COLUMNS}",
        (owner, lease_until, found["id"], now),
    )


def record(message_id, owner, outcome, next_attempt_at, error, now):
    """One attempt's result (outcome: pending, sent, failed, cancelled), if
    `owner` still holds the lease; False if not (someone else's now)."""
    return (
        execute(
            "UPDATE notifications SET outcome = ?, attempt_count = attempt_count + ?,"
            " next_attempt_at = ?, last_error = ?, lease_owner = NULL, lease_expires_at = NULL,"
            " updated_at = ? WHERE id = ? AND lease_owner = ? AND outcome = 'pending'",
            (
                outcome,
                0 if outcome == "cancelled" else 1,
                next_attempt_at,
                error,
                now,
                message_id,
                owner,
            ),
        ).rowcount
        == 1
    )


def release(owner):
    """Give back every lease `owner` holds (a dispatcher on its way out)."""
    execute(
        "UPDATE notifications SET lease_owner = NULL, lease_expires_at = NULL"
        " WHERE lease_owner = ? AND outcome = 'pending'",
        (owner,),
    )


def list_for(workspace_id, limit=100):
    """The workspace's newest messages (the operator's and the tests' view)."""
    return rows(
        f"SELECT {COLUMNS} FROM notifications WHERE workspace_id = ? ORDER BY id DESC LIMIT ?",
        (workspace_id, limit),
    )


def purge(before, limit):
    """Forget up to `limit` finished messages last changed before `before`; how many."""
    return execute(
        "DELETE FROM notifications WHERE id IN (SELECT id FROM notifications"
        " WHERE outcome <> 'pending' AND updated_at < ? LIMIT ?)",
        (before, limit),
    ).rowcount
