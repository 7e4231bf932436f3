"""Users and API keys."""

from content_publishing.store.db import KEY_GENERATION_SQL, dialect, execute, one, rows, value


def create_key(user_name, key_hash, prefix, scopes, expires_at, now):
    """Store a key (hash only) for a user, creating the user if new; returns its id."""
    return _insert_key(_user(user_name, now), key_hash, prefix, scopes, expires_at, now)


def create_first_key(user_name, key_hash, prefix, scopes, now):
    """Store a key for `user_name` only if no key exists at all (the demo
    key); its id, or None. The user's row is locked before the second count,
    so two concurrent calls cannot both find no key (SQLite's write
    transaction keeps the second out anyway); the first count spares a
    database that has keys a new user row."""
    if count_keys():
        return None
    user_id = _user(user_name, now, lock=True)
    if count_keys():
        return None
    return _insert_key(user_id, key_hash, prefix, scopes, None, now)


def _user(user_name, now, lock=False):
    execute(
        "INSERT INTO users (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
        (user_name, now),
    )
    return value(
        "SELECT id FROM users WHERE name = ?" + (dialect().for_update if lock else ""),
        (user_name,),
    )


def _insert_key(user_id, key_hash, prefix, scopes, expires_at, now):
    return value(
        "INSERT INTO api_keys (user_id, key_hash, prefix, scopes, expires_at, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (user_id, key_hash, prefix, " ".join(scopes), expires_at, now),
    )


def find_user(user_name):
    """The id of the user with this name, or None."""
    return value("SELECT id FROM users WHERE name = ?", (user_name,))


def find_key(key_hash):
    """The key with this hash and its owner, whatever its state, or None;
    with the key generation it was read at (store/key_cache.py), in the
    same statement so that the two agree."""
    return one(
        "SELECT k.id, k.user_id, u.name AS user_name, k.scopes, k.revoked_at,"
        f" k.expires_at, k.last_used_at, ({KEY_GENERATION_SQL}) AS generation"
        " FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?",
        (key_hash,),
    )


def get_key(key_id):
    """What a key's owner may know of it (GET /me): never its hash."""
    return one(
        "SELECT k.id, k.prefix, u.name AS user_name, k.scopes, k.expires_at, k.created_at"
        " FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.id = ?",
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
        "SELECT k.id, k.prefix, u.name AS user_name, k.scopes, k.revoked_at,"
        " k.expires_at, k.last_used_at, k.created_at"
        " FROM api_keys k JOIN users u ON u.id = k.user_id ORDER BY k.id"
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
