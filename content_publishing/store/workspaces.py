"""A workspace's settings (approvals), read and changed as one record with
a version, as every record the API changes is."""

import json

from content_publishing.store.db import dialect, one, rows

COLUMNS = (
    "id, name, approvals, chat_webhook_url, chat_events, timezone, created_at, updated_at, version"
)
SETTINGS = frozenset(
    {"name", "approvals", "chat_webhook_url", "chat_events", "timezone"}
)  # the columns a PATCH of the workspace may write


def _decoded(found):
    """chat_events as a list of events (None: every one)."""
    if found is not None and found.get("chat_events") is not None:
        return {**found, "chat_events": json.loads(found["chat_events"])}
    return found


def get_workspace(workspace_id):
    return _decoded(one(f"SELECT {COLUMNS} FROM workspaces WHERE id = ?", (workspace_id,)))


def lock_workspace(workspace_id):
    """The workspace, locked: a change of a setting and the posts it moves
    are one transaction, and a review reads the setting under this lock."""
    return _decoded(
        one(
            f"SELECT {COLUMNS} FROM workspaces WHERE id = ?" + dialect().for_update,
            (workspace_id,),
        )
    )


def approvals_required(workspace_id, channel_id=None):
    """Whether posts (of `channel_id`, when given) are approved before they
    are scheduled: the channel's own rule (channels.approvals), else the
    workspace's."""
    if channel_id is not None:
        found = one(
            "SELECT approvals FROM channels WHERE workspace_id = ? AND id = ?",
            (workspace_id, channel_id),
        )
        if found is not None and found["approvals"] != "workspace":
            return found["approvals"] == "required"
    found = one("SELECT approvals FROM workspaces WHERE id = ?", (workspace_id,))
    return found is not None and found["approvals"] == "required"


def update_workspace(workspace_id, changes, now):
    """Write `changes` (of SETTINGS) and bump the version; the new record."""
    unknown = changes.keys() - SETTINGS
    if unknown:
        raise ValueError(f"not writable in workspaces: {sorted(unknown)}")
    if changes.get("chat_events") is not None:
        changes = {**changes, "chat_events": json.dumps(changes["chat_events"])}
    assignments = "".join(f"{column} = ?, " for column in changes)
    return _decoded(
        one(
            f"UPDATE workspaces SET {assignments}updated_at = ?, version = version + 1"
            f" WHERE id = ? RETURNING {COLUMNS}",
            (*changes.values(), now, workspace_id),
        )
    )


def active_members(workspace_id):
    """The members still in the workspace (id, name, role), for mentions."""
    return rows(
        "SELECT id, name, role FROM members WHERE workspace_id = ? AND removed_at IS NULL"
        " ORDER BY id",
        (workspace_id,),
    )


def posts_in_review(workspace_id):
    """The ids of the workspace's In review and Approved posts."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM posts WHERE workspace_id = ? AND status IN ('In review', 'Approved')"
            " ORDER BY created_at, id",
            (workspace_id,),
        )
    ]
