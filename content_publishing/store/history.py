"""Post history: one row per change of a post, written in the change's
transaction, deleted with the post. Never a key (only its id, for its
prefix) and never the post's content."""

import json

from content_publishing.store.db import execute, execute_many, rows

COLUMNS = (
    "post_id, workspace_id, at, action, status_from, status_to, fields, key_id, member_id,"
    " handoff_id, detail"
)


def add(entries):
    """Write history rows: dicts with the keys of COLUMNS (fields a list)."""
    if not entries:
        return
    execute_many(
        f"INSERT INTO post_history ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                e["post_id"],
                e["workspace_id"],
                e["at"],
                e["action"],
                e["status_from"],
                e["status_to"],
                json.dumps(e["fields"]),
                e["key_id"],
                e.get("member_id"),
                e["handoff_id"],
                e["detail"],
            )
            for e in entries
        ],
    )


def for_post(workspace_id, post_id):
    """The post's history, oldest first, with the prefix of each key and
    its member (member_id, member_name: the key's, or the session's who acted;
    None for the service itself)."""
    return [
        {**r, "fields": json.loads(r["fields"])}
        for r in rows(
            "SELECT h.at, h.action, h.status_from, h.status_to, h.fields, k.prefix AS key_prefix,"
            " h.handoff_id, h.detail, m.id AS member_id, m.name AS member_name"
            " FROM post_history h LEFT JOIN api_keys k ON k.id = h.key_id"
            " LEFT JOIN members m ON m.id = COALESCE(h.member_id, k.member_id)"
            " WHERE h.workspace_id = ? AND h.post_id = ? ORDER BY h.id",
            (workspace_id, post_id),
        )
    ]


def changers_since_approval(workspace_id, post_id):
    """[(member_id, fields)] of the post's history entries made by a member
    (with their key, or their session: post_history.member_id) after its last `approved` entry (all of them if it was
    never approved), oldest first: who changed which fields of what is now
    under review. An index read of the post's own entries (post_id, id)."""
    return [
        (r["member_id"], json.loads(r["fields"]))
        for r in rows(
            "SELECT COALESCE(h.member_id, k.member_id) AS member_id, h.fields"
            " FROM post_history h LEFT JOIN api_keys k ON k.id = h.key_id"
            " WHERE h.workspace_id = ? AND h.post_id = ? AND h.id > COALESCE("
            "(SELECT MAX(a.id) FROM post_history a WHERE a.post_id = ? AND a.action = 'approved'),"
            " 0) AND COALESCE(h.member_id, k.member_id) IS NOT NULL ORDER BY h.id",
            (workspace_id, post_id, post_id),
        )
    ]


def forget(post_id):
    """A deleted post's history goes with it."""
    execute("DELETE FROM post_history WHERE post_id = ?", (post_id,))
