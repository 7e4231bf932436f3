"""Sessions: a signed-in browser's row (migration 0021). Only the token's
SHA-256 is kept. A session is read afresh on every request, with its
member's role and removal in the same statement, so that a role changed or
a member removed holds from the next request on every worker."""

from content_publishing.store.db import execute, one, rows

_COLUMNS = (
    "s.id, s.account_id, s.member_id, s.device, s.address, s.created_at, s.last_seen_at, s.ended_at"
)


def insert_session(token_hash, account_id, member_id, device, address, now):
    return one(
        "INSERT INTO sessions (token_hash, account_id, member_id, device, address, created_at,"
        f" last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {_COLUMNS.replace('s.', '')}",
        (token_hash, account_id, member_id, device, address, now, now),
    )


def find_session(token_hash):
    """The session with this hash, with its member, workspace and account,
    whatever its state; or None."""
    return one(
        f"SELECT {_COLUMNS}, m.workspace_id, w.name AS workspace_name, m.name AS member_name,"
        " m.email AS member_email, m.role, m.removed_at AS member_removed_at,"
        " m.account_id AS member_account_id, a.email AS account_email, a.name AS account_name"
        " FROM sessions s JOIN members m ON m.id = s.member_id"
        " JOIN workspaces w ON w.id = m.workspace_id JOIN accounts a ON a.id = s.account_id"
        " WHERE s.token_hash = ?",
        (token_hash,),
    )


def touch_session(session_id, now, stale_before):
    """Record use, only when last seen before `stale_before` and not ended."""
    execute(
        "UPDATE sessions SET last_seen_at = ?"
        " WHERE id = ? AND last_seen_at < ? AND ended_at IS NULL",
        (now, session_id, stale_before),
    )


def list_sessions(account_id, idle_since, started_since):
    """The account's sessions that still hold, the last seen first."""
    return rows(
        f"SELECT {_COLUMNS}, w.name AS workspace_name FROM sessions s"
        " JOIN members m ON m.id = s.member_id JOIN workspaces w ON w.id = m.workspace_id"
        " WHERE s.account_id = ? AND s.ended_at IS NULL AND s.last_seen_at > ?"
        " AND s.created_at > ? ORDER BY s.last_seen_at DESC, s.id DESC",
        (account_id, idle_since, started_since),
    )


def end_session(account_id, session_id, now):
    """End one of the account's sessions; its id, or None when it has no
    such session still open."""
    found = one(
        "UPDATE sessions SET ended_at = ? WHERE id = ? AND account_id = ? AND ended_at IS NULL"
        " RETURNING id",
        (now, session_id, account_id),
    )
    return found and found["id"]


def end_all(account_id, now):
    execute(
        "UPDATE sessions SET ended_at = ? WHERE account_id = ? AND ended_at IS NULL",
        (now, account_id),
    )


def switch_member(session_id, member_id):
    execute("UPDATE sessions SET member_id = ? WHERE id = ?", (member_id, session_id))
