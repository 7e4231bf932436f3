"""Users and API keys."""

from store.db import get_db, transaction


def create_key(user_name, key_hash, prefix, scopes, expires_at, now):
    """Store a key (hash only) for a user, creating the user if new."""
    with transaction() as db:
        db.execute(
            "INSERT INTO users (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (user_name, now),
        )
        user_id = db.execute("SELECT id FROM users WHERE name = ?", (user_name,)).fetchone()[0]
        cur = db.execute(
            "INSERT INTO api_keys (user_id, key_hash, prefix, scopes, expires_at, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, key_hash, prefix, " ".join(scopes), expires_at, now),
        )
        return cur.lastrowid


def find_key(key_hash):
    """The key with this hash and its owner, whatever its state, or None."""
    row = get_db().execute(
        "SELECT k.id, k.user_id, u.name AS user_name, k.scopes, k.revoked_at,"
        " k.expires_at, k.last_used_at"
        " FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?",
        (key_hash,),
    ).fetchone()
    return dict(row) if row else None


def touch_key(key_id, now, stale_before):
    """Record use of a key, writing only last_used_at and only if the stored
    value is older than `stale_before`: a revoke in the meantime stays."""
    get_db().execute(
        "UPDATE api_keys SET last_used_at = ?"
        " WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        (now, key_id, stale_before),
    )


def list_keys():
    rows = get_db().execute(
        "SELECT k.id, k.prefix, u.name AS user_name, k.scopes, k.revoked_at,"
        " k.expires_at, k.last_used_at, k.created_at"
        " FROM api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.id"
    )
    return [dict(r) for r in rows]


def revoke_key(now, key_id=None, key_hash=None):
    """Revoke by id or by hash. Returns the key's id, or None if unknown."""
    column, value = ("id", key_id) if key_id is not None else ("key_hash", key_hash)
    with transaction() as db:
        row = db.execute(f"SELECT id FROM api_keys WHERE {column} = ?", (value,)).fetchone()
        if row is None:
            return None
        db.execute(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
            (now, row[0]),
        )
        return row[0]


def count_keys():
    return get_db().execute("SELECT COUNT(*) FROM api_keys").fetchone()[0]


def ping():
    """True when the database answers a query."""
    return get_db().execute("SELECT 1").fetchone()[0] == 1
