"""The service's own collection of stats: one row per Published post whose
figures are still to be read at LinkedIn (analytics/collection.py says
when), found by the due_at index.

A row is taken by moving its due_at past a lease in the transaction that
reads it (FOR UPDATE SKIP LOCKED on PostgreSQL, the write lock on SQLite), so that two
dispatchers never collect the same post at once; a collector that dies
leaves it to be taken again once the lease runs out.
"""

from content_publishing.store.db import dialect, one, rows, value, write

COLUMNS = "post_id, workspace_id, published_at, age, tries, due_at, last_error"


def add(post_id, workspace_id, published_at, age, due_at):
    """The schedule of a post that has just gone out (kept as it is if it
    has one: the first publishing counts)."""
    write(
        f"INSERT INTO stats_collections ({COLUMNS}) VALUES (?, ?, ?, ?, 0, ?, NULL)"
        " ON CONFLICT (post_id) DO NOTHING",
        (post_id, workspace_id, published_at, age, due_at),
    )


def any_due(now):
    """Whether a collection is due: the first entry of the due_at index, no
    lock. MIN rather than `WHERE due_at <= ? LIMIT 1`, which PostgreSQL's
    generic plan of a prepared statement reads as a scan of the table."""
    first = value("SELECT MIN(due_at) FROM stats_collections")
    return first is not None and first <= now


def take_due(now, limit, until):
    """Up to `limit` due rows, oldest due first, each leased until `until`
    and its try counted (inside a transaction); the rows as they were, with
    `tries` counting this one."""
    found = rows(
        f"SELECT {COLUMNS} FROM stats_collections WHERE due_at <= ?"
        " ORDER BY due_at, post_id LIMIT ?" + dialect().skip_locked,
        (now, limit),
    )
    for row in found:
        row["tries"] += 1
        write(
            "UPDATE stats_collections SET due_at = ?, tries = ? WHERE post_id = ?",
            (until, row["tries"], row["post_id"]),
        )
    return found


def lock(post_id):
    """The row, locked until the transaction ends; None once it is gone."""
    return one(
        f"SELECT {COLUMNS} FROM stats_collections WHERE post_id = ?" + dialect().for_update,
        (post_id,),
    )


def move(post_id, age, tries, due_at, last_error):
    write(
        "UPDATE stats_collections SET age = ?, tries = ?, due_at = ?, last_error = ?"
        " WHERE post_id = ?",
        (age, tries, due_at, last_error, post_id),
    )


def drop(post_id):
    write("DELETE FROM stats_collections WHERE post_id = ?", (post_id,))


def of_post(post_id):
    """The row of one post, or None (for the tests' and an operator's eyes)."""
    return one(f"SELECT {COLUMNS} FROM stats_collections WHERE post_id = ?", (post_id,))
