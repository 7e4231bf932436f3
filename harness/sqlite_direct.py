"""The only place the harness opens the service's SQLite file itself.

Everything else checks the service through its HTTP API and its CLI. What is
here cannot be asked of the service: whether the file survived a SIGKILL
intact, a column the API does not show (a key's revoked_at), and damage
done on purpose (a schema version from the future). A PostgreSQL backend
will need its own versions of these few functions, and nothing else.
"""

import sqlite3


def integrity_check(database):
    """PRAGMA integrity_check of the file: ["ok"] when it is intact."""
    conn = sqlite3.connect(database, timeout=30)
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def key_times(database, user):
    """{"revoked_at", "last_used_at"} of `user`'s key (read-only): `keys list`
    shows a key's state but not when it was revoked."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute(
            "SELECT k.revoked_at, k.last_used_at FROM api_keys k JOIN workspaces u ON u.id = k.workspace_id"
            " WHERE u.name = ?",
            (user,),
        ).fetchone()
        return dict(row) if row else None
    finally:
        conn.close()


def set_schema_version(database, version):
    """Mark the file as written by another version of the code (user_version)."""
    conn = sqlite3.connect(database)
    try:
        conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.commit()
    finally:
        conn.close()
