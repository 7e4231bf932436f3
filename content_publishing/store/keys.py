"""Workspaces, their owners as `keys create --user` makes them, and API keys."""

from content_publishing.store.db import KEY_GENERATION_SQL, dialect, execute, one, rows, value


def create_key(workspace_name, key_hash, prefix, scopes, expires_at, now):
    """Store a key (hash only) for the owner of the workspace `workspace_name`,
    making the workspace and its owner member if new; returns its id."""
    member_id = _owner(workspace_name, now)
    return insert_key(member_id, key_hash, prefix, scopes, expires_at, now)


def create_first_key(workspace_name, key_hash, prefix, scopes, now):
    """Store a key for `workspace_name` only if no key exists at all (the demo
    key); its id, or None. The workspace's row is locked before the second
    count, so two concurrent calls cannot both find no key (SQLite's write
    transaction keeps the second out anyway); the first count spares a
    database that has keys a new workspace row."""
    if count_keys():
        return None
    member_id = _owner(workspace_name, now, lock=True)
    if count_keys():
        return None
    return insert_key(member_id, key_hash, prefix, scopes, None, now)


def _owner(workspace_name, now, lock=False):
    """The member named as the workspace `workspace_name` (its first owner),
    both made when new: the key of `keys create --user` is that member's."""
    execute(
        "INSERT INTO workspaces (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
        (workspace_name, now),
    )
    workspace_id = value(
        "SELECT id FROM workspaces WHERE name = ?" + (dialect().for_update if lock else ""),
        (workspace_name,),
    )
    execute(
        "INSERT INTO members (workspace_id, name, role, created_at) SELECT ?, ?, 'owner', ?"
        " WHERE NOT EXISTS (SELECT 1 FROM members WHERE workspace_id = ? AND name = ?)"
        " ON CONFLICT (workspace_id, name) WHERE removed_at IS NULL DO NOTHING",
        (workspace_id, workspace_name, now, workspace_id, workspace_name),
    )
    return value(
        "SELECT id FROM members WHERE workspace_id = ? AND name = ?"
        " ORDER BY removed_at IS NOT NULL, id LIMIT 1",
        (workspace_id, workspace_name),
    )


def insert_key(member_id, key_hash, prefix, scopes, expires_at, now):
    """Store a key (hash only) of a member, in the member's workspace; its id."""
    return value(
        "INSERT INTO api_keys (workspace_id, member_id, key_hash, prefix, scopes, expires_at,"
        " created_at) SELECT workspace_id, id, ?, ?, ?, ?, ? FROM members WHERE id = ?"
        " RETURNING id",
        (key_hash, prefix, " ".join(scopes), expires_at, now, member_id),
    )


def find_workspace(workspace_name):
    """The id of the workspace with this name, or None."""
    return value("SELECT id FROM workspaces WHERE name = ?", (workspace_name,))


# A key with its workspace and member: what authentication needs of it.
_KEY_COLUMNS = (
    "k.id, k.workspace_id, w.name AS workspace_name, k.member_id, m.name AS member_name,"
    " m.email AS member_email, m.role, m.removed_at AS member_removed_at, k.scopes"
)
_KEY_JOIN = (
    " FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id"
    " JOIN members m ON m.id = k.member_id"
)


def find_key(key_hash):
    """The key with this hash, its workspace and member, whatever its state,
    or None; with the key generation it was read at (store/key_cache.py), in
    the same statement so that the two agree."""
    return one(
        f"SELECT {_KEY_COLUMNS}, k.revoked_at, k.expires_at, k.last_used_at,"
        f" ({KEY_GENERATION_SQL}) AS generation{_KEY_JOIN} WHERE k.key_hash = ?",
        (key_hash,),
    )


def get_key(key_id):
    """What a key's holder may know of it (GET /me): never its hash."""
    return one(
        f"SELECT {_KEY_COLUMNS}, k.prefix, k.expires_at, k.created_at,"
        f" w.created_at AS workspace_created_at{_KEY_JOIN} WHERE k.id = ?",
        (key_id,),
    )


def touch_key(key_id, now, stale_before):
    """Record use of a key, writing only last_used_at and only if the stored
    value is older than `stale_before`: a revoke in the meantime stays."""
    execute(
        "UPDATE api_keys SET last_used_at = ?"
        " WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        (now, key_id, stale_before),
    )


def list_keys():
    return rows(
        "SELECT k.id, k.prefix, w.name AS workspace_name, k.member_id, m.name AS member_name,"
        " k.scopes, k.revoked_at, k.expires_at, k.last_used_at, k.created_at"
        f"{_KEY_JOIN} ORDER BY k.id"
    )


def revoke_key(now, key_id=None, key_hash=None):
    """Revoke by id or by hash. Returns {id, revoked_at}, or None if unknown.
    Revoking a revoked key keeps its first revoked_at, so a revoked_at other
    than `now` says it was revoked before."""
    column, wanted = ("id", key_id) if key_id is not None else ("key_hash", key_hash)
    return one(
        f"UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE {column} = ?"
        " RETURNING id, revoked_at",
        (now, wanted),
    )


def count_keys():
    return value("SELECT COUNT(*) FROM api_keys")


def ping():
    """True when the database answers a query."""
    return value("SELECT 1") == 1


def member_keys(member_id):
    """A member's keys, newest first: what the keys page lists (never a hash)."""
    return rows(
        "SELECT id, prefix, scopes, revoked_at, expires_at, last_used_at, created_at"
        " FROM api_keys WHERE member_id = ? ORDER BY id DESC",
        (member_id,),
    )


def revoke_member_key(member_id, key_id, now):
    """Revoke one of the member's keys; {id, revoked_at}, or None when not theirs."""
    return one(
        "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND member_id = ?"
        " RETURNING id, revoked_at",
        (now, key_id, member_id),
    )
