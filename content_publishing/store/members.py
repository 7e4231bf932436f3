"""Members of a workspace, their invitations, and the revocation of a
member's keys (migration 0014 says what each table holds)."""

import json

from content_publishing.store.db import dialect, execute, one, rows, value

COLUMNS = "id, workspace_id, name, email, role, notify, created_at, removed_at"


def decoded(member):
    """A member's row with notify decoded (a list of events; None: every one)."""
    if member is not None and member.get("notify") is not None:
        return {**member, "notify": json.loads(member["notify"])}
    return member


def list_members(workspace_id):
    """The workspace's members, the removed ones included (they still name
    authors), oldest first."""
    return [
        decoded(m)
        for m in rows(
            f"SELECT {COLUMNS} FROM members WHERE workspace_id = ? ORDER BY id", (workspace_id,)
        )
    ]


def list_all(workspace_id=None):
    """Every member with their workspace's name (`flask members list`)."""
    where, params = ("WHERE m.workspace_id = ?", (workspace_id,)) if workspace_id else ("", ())
    return rows(
        "SELECT m.id, m.workspace_id, w.name AS workspace_name, m.name, m.email, m.role,"
        f" m.removed_at FROM members m JOIN workspaces w ON w.id = m.workspace_id {where}"
        " ORDER BY m.id",
        params,
    )


def get_member(workspace_id, member_id):
    return decoded(
        one(
            f"SELECT {COLUMNS} FROM members WHERE workspace_id = ? AND id = ?",
            (workspace_id, member_id),
        )
    )


def get_any_member(member_id):
    """A member of any workspace (the CLI names members by id alone)."""
    return decoded(one(f"SELECT {COLUMNS} FROM members WHERE id = ?", (member_id,)))


def lock_workspace(workspace_id):
    """Lock the workspace's row: every change of its members' roles takes
    it first, so that two demotions cannot both find another owner left."""
    return one(
        "SELECT id, name, created_at FROM workspaces WHERE id = ?" + dialect().for_update,
        (workspace_id,),
    )


def get_workspace(workspace_id):
    return one("SELECT id, name, created_at FROM workspaces WHERE id = ?", (workspace_id,))


def find_workspace(name):
    return one("SELECT id, name, created_at FROM workspaces WHERE name = ?", (name,))


def count_owners(workspace_id):
    """Owners who are still members."""
    return value(
        "SELECT COUNT(*) FROM members"
        " WHERE workspace_id = ? AND role = 'owner' AND removed_at IS NULL",
        (workspace_id,),
    )


def insert_member(workspace_id, name, email, role, now):
    """The new member's record, or None when the workspace has a member of
    that name (names are unique among the members still in: a removed
    member's name may be taken again, and the history keeps theirs)."""
    return one(
        "INSERT INTO members (workspace_id, name, email, role, created_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, name) WHERE removed_at IS NULL"
        " DO NOTHING"
        f" RETURNING {COLUMNS}",
        (workspace_id, name, email, role, now),
    )


def update_member(member_id, changes):
    """Write `changes` (role, email, notify: a list of events, None for
    every one); the new record."""
    if "notify" in changes and changes["notify"] is not None:
        changes = {**changes, "notify": json.dumps(changes["notify"])}
    assignments = ", ".join(f"{column} = ?" for column in changes)
    return decoded(
        one(
            f"UPDATE members SET {assignments} WHERE id = ? RETURNING {COLUMNS}",
            (*changes.values(), member_id),
        )
    )


def remove_member(member_id, now):
    """Mark the member removed and revoke every key of theirs, in the
    caller's transaction: both move the key generation, so every worker's
    cached keys of theirs are looked up again on their next use. Their own
    invitation ends, and so does every invitation they made."""
    execute(
        "UPDATE api_keys SET revoked_at = ? WHERE member_id = ? AND revoked_at IS NULL",
        (now, member_id),
    )
    execute(
        "UPDATE member_invites SET used_at = ? WHERE (member_id = ? OR invited_by = ?)"
        " AND used_at IS NULL",
        (now, member_id, member_id),
    )
    return decoded(
        one(f"UPDATE members SET removed_at = ? WHERE id = ? RETURNING {COLUMNS}", (now, member_id))
    )


def insert_invite(token_hash, member_id, expires_at, now, invited_by=None):
    """An invitation of member `member_id`, made by member `invited_by`
    (None: the operator)."""
    execute(
        "INSERT INTO member_invites (token_hash, member_id, expires_at, created_at, invited_by)"
        " VALUES (?, ?, ?, ?, ?)",
        (token_hash, member_id, expires_at, now, invited_by),
    )


def invite_workspace(token_hash):
    """The id of the workspace of the invitation with this token's hash
    (not locked: what to lock first), or None."""
    return value(
        "SELECT m.workspace_id FROM member_invites i JOIN members m ON m.id = i.member_id"
        " WHERE i.token_hash = ?",
        (token_hash,),
    )


def lock_invite(token_hash):
    """The invitation with this token's hash, locked, with its member and
    workspace; None when unknown."""
    return one(
        "SELECT i.token_hash, i.member_id, i.expires_at, i.used_at, m.workspace_id,"
        " m.name, m.email, m.role, m.removed_at, w.name AS workspace_name"
        " FROM member_invites i JOIN members m ON m.id = i.member_id"
        " JOIN workspaces w ON w.id = m.workspace_id WHERE i.token_hash = ?" + dialect().for_update,
        (token_hash,),
    )


def find_invite(token_hash):
    """The invitation with this token's hash, its member, workspace and who
    made it (not locked: a read that leaves it unused); None when unknown."""
    return one(
        "SELECT i.member_id, i.expires_at, i.used_at, m.workspace_id, m.name, m.email, m.role,"
        " m.removed_at, w.name AS workspace_name, b.name AS invited_by_name"
        " FROM member_invites i JOIN members m ON m.id = i.member_id"
        " JOIN workspaces w ON w.id = m.workspace_id LEFT JOIN members b ON b.id = i.invited_by"
        " WHERE i.token_hash = ?",
        (token_hash,),
    )


def use_invite(token_hash, now):
    execute("UPDATE member_invites SET used_at = ? WHERE token_hash = ?", (now, token_hash))
