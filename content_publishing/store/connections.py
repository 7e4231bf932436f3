"""Channels connected to LinkedIn, and the sign-ins under way.

A connection's tokens are stored sealed (the caller seals and unseals them):
nothing here sees a token in the clear. A sign-in's state is stored as its
SHA-256, so that the table cannot be replayed either.
"""

import json

from content_publishing.store.db import execute, one, rows, write

COLUMNS = (
    "workspace_id, channel_id, status, member_urn, member_name, organizations, scopes,"
    " access_token, access_expires_at, refresh_token, refresh_expires_at, connected_at,"
    " updated_at, broken"
)
WRITABLE = (
    "status",
    "member_urn",
    "member_name",
    "organizations",
    "scopes",
    "access_token",
    "access_expires_at",
    "refresh_token",
    "refresh_expires_at",
    "broken",
)


def _record(row):
    if row is None:
        return None
    return {**row, "organizations": json.loads(row["organizations"])}


def _stored(fields):
    return {
        k: json.dumps(v) if k == "organizations" else v for k, v in fields.items() if k in WRITABLE
    }


# --- sign-ins under way --------------------------------------------------------------------


def add_state(state_hash, workspace_id, channel_id, key_id, browser_hash, expires_at, now):
    write(
        "INSERT INTO linkedin_states (state_hash, workspace_id, channel_id, key_id, browser_hash,"
        " expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (state_hash, workspace_id, channel_id, key_id, browser_hash, expires_at, now),
    )


def forget_states_before(now):
    """Sign-ins whose time ran out: nobody can finish them any more."""
    write("DELETE FROM linkedin_states WHERE expires_at <= ?", (now,))


def take_state(state_hash):
    """The sign-in of this state, removed in the same statement, so that a
    state is taken once however many callbacks race for it; None if unknown."""
    return one(
        "DELETE FROM linkedin_states WHERE state_hash = ?"
        " RETURNING workspace_id, channel_id, key_id, browser_hash, expires_at",
        (state_hash,),
    )


# --- connections ------------------------------------------------------------------------------


def get(workspace_id, channel_id):
    """The connection of the workspace's channel (tokens sealed), or None."""
    return _record(
        one(
            f"SELECT {COLUMNS} FROM linkedin_connections WHERE workspace_id = ? AND channel_id = ?",
            (workspace_id, channel_id),
        )
    )


def of_channels(workspace_id, channel_ids):
    """{channel id: connection} of those of the workspace's channels that have one."""
    if not channel_ids:
        return {}
    marks = ", ".join("?" * len(channel_ids))
    return {
        r["channel_id"]: _record(r)
        for r in rows(
            f"SELECT {COLUMNS} FROM linkedin_connections WHERE workspace_id = ?"
            f" AND channel_id IN ({marks})",
            (workspace_id, *sorted(channel_ids)),
        )
    }


def save(workspace_id, channel_id, fields, now):
    """A new sign-in of the channel: the connection written whole (a
    reconnection replaces the last one); its record."""
    values = _stored(fields)
    names = ", ".join(values)
    marks = ", ".join("?" * len(values))
    updates = ", ".join(f"{name} = excluded.{name}" for name in values)
    return _record(
        one(
            f"INSERT INTO linkedin_connections (workspace_id, channel_id, {names}, connected_at,"
            f" updated_at) VALUES (?, ?, {marks}, ?, ?) ON CONFLICT (workspace_id, channel_id)"
            f" DO UPDATE SET {updates}, connected_at = excluded.connected_at,"
            f" updated_at = excluded.updated_at RETURNING {COLUMNS}",
            (workspace_id, channel_id, *values.values(), now, now),
        )
    )


def update(workspace_id, channel_id, changes, now, expected_updated_at=None):
    """Write `changes`; the new record, or None when the connection is gone
    (or, with `expected_updated_at`, changed by someone else meanwhile)."""
    values = _stored(changes)
    assignments = "".join(f"{name} = ?, " for name in values)
    where, params = "workspace_id = ? AND channel_id = ?", [workspace_id, channel_id]
    if expected_updated_at is not None:
        where += " AND updated_at = ?"
        params.append(expected_updated_at)
    return _record(
        one(
            f"UPDATE linkedin_connections SET {assignments}updated_at = ? WHERE {where}"
            f" RETURNING {COLUMNS}",
            (*values.values(), now, *params),
        )
    )


def with_member(workspace_id, member_urn):
    """The ids of the workspace's personal channels of members still in it
    that are (or were) connected as the LinkedIn member `member_urn`."""
    if not member_urn:
        return []
    return [
        r["channel_id"]
        for r in rows(
            "SELECT l.channel_id FROM linkedin_connections l JOIN channels c"
            " ON c.workspace_id = l.workspace_id AND c.id = l.channel_id"
            " JOIN members m ON m.id = c.member_id"
            " WHERE l.workspace_id = ? AND l.member_urn = ? AND m.removed_at IS NULL"
            " ORDER BY l.channel_id",
            (workspace_id, member_urn),
        )
    ]


def needing_upkeep(before):
    """Connections still in use whose access token ends by `before`: to
    refresh ahead, or to mark expiring or expired."""
    return [
        _record(r)
        for r in rows(
            f"SELECT {COLUMNS} FROM linkedin_connections"
            " WHERE status IN ('connected', 'expiring') AND access_expires_at <= ?"
            " ORDER BY access_expires_at",
            (before,),
        )
    ]


def forget(workspace_id, channel_id):
    execute(
        "DELETE FROM linkedin_connections WHERE workspace_id = ? AND channel_id = ?",
        (workspace_id, channel_id),
    )
