"""A post's comments: kept with the post, deleted with it (store/posts.py)."""

import json

from content_publishing.store.db import execute, one, rows

COLUMNS = "c.id, c.post_id, c.member_id, m.name AS member_name, c.body, c.mentions, c.created_at"


def _record(row):
    return {**row, "mentions": json.loads(row["mentions"])}


def add(workspace_id, post_id, member_id, body, mentions, now):
    """Write a comment; its record, with its member's name."""
    made = one(
        "INSERT INTO post_comments (workspace_id, post_id, member_id, body, mentions, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (workspace_id, post_id, member_id, body, json.dumps(mentions), now),
    )
    return _record(
        one(
            f"SELECT {COLUMNS} FROM post_comments c JOIN members m ON m.id = c.member_id"
            " WHERE c.id = ?",
            (made["id"],),
        )
    )


def for_post(workspace_id, post_id):
    """The post's comments, oldest first."""
    return [
        _record(r)
        for r in rows(
            f"SELECT {COLUMNS} FROM post_comments c JOIN members m ON m.id = c.member_id"
            " WHERE c.workspace_id = ? AND c.post_id = ? ORDER BY c.id",
            (workspace_id, post_id),
        )
    ]


def forget(post_id):
    """A deleted post's comments go with it."""
    execute("DELETE FROM post_comments WHERE post_id = ?", (post_id,))
