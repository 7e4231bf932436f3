"""Stats snapshots of published posts, and the one row per Published post
that the analytics and the posts list read (post_metrics: its channel, when
it went out and its latest snapshot's figures).

A snapshot is stored once per (post_id, taken_at): the same pair again
replaces its figures, held by the table's primary key on both backends.
The latest snapshot's figures are copied onto the post's post_metrics row
in the same transaction, so reads never scan the snapshots.
"""

from content_publishing.store.db import dialect, execute_many, rows, write

FIGURES = ("impressions", "members_reached", "reactions", "comments", "reshares", "clicks")
_FIGURES = ", ".join(FIGURES)
LATEST = f"taken_at, {_FIGURES}, engagement"


def lock_posts(workspace_id, post_ids):
    """{id: {id, status, channel_id, type, brand_id, published_at}} of the workspace's posts
    among `post_ids`, locked until the transaction ends (in id order, so that
    two batches naming the same posts never wait on each other in a circle)."""
    if not post_ids:
        return {}
    ids = sorted(set(post_ids))
    found = rows(
        "SELECT id, status, channel_id, type, brand_id, published_at FROM posts WHERE workspace_id = ?"
        f" AND id IN ({', '.join('?' * len(ids))}) ORDER BY id" + dialect().for_update,
        (workspace_id, *ids),
    )
    return {r["id"]: r for r in found}


def stored_pairs(pairs):
    """Which of [(post_id, taken_at)] already have a snapshot: a set of them."""
    pairs = sorted(set(pairs))
    if not pairs:
        return set()
    values = ", ".join(["(?, ?)"] * len(pairs))
    found = rows(
        f"SELECT post_id, taken_at FROM post_stats WHERE (post_id, taken_at) IN (VALUES {values})",
        [part for pair in pairs for part in pair],
    )
    return {(r["post_id"], r["taken_at"]) for r in found}


def save_snapshots(snapshots, now):
    """Write snapshots ({post_id, taken_at, <figures>: int or None}), each
    replacing the one with the same post and taken_at."""
    execute_many(
        f"INSERT INTO post_stats (post_id, taken_at, {_FIGURES}, recorded_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (post_id, taken_at) DO UPDATE SET "
        + ", ".join(f"{f} = excluded.{f}" for f in FIGURES)
        + ", recorded_at = excluded.recorded_at",
        [(s["post_id"], s["taken_at"], *(s[f] for f in FIGURES), now) for s in snapshots],
    )


def save_latest(workspace_id, latest):
    """Copy each post's newest snapshot onto its post_metrics row (made if
    missing), unless the row holds a newer one already. `latest`: dicts with
    post_id, channel, published_at, published_quarter, taken_at, the figures,
    interactions and engagement."""
    columns = (
        "post_id, workspace_id, channel, published_at, published_quarter, taken_at,"
        f" {_FIGURES}, interactions, engagement"
    )
    kept = ("taken_at", *FIGURES, "interactions", "engagement")
    execute_many(
        f"INSERT INTO post_metrics ({columns}) VALUES ({', '.join('?' * 14)})"
        " ON CONFLICT (post_id) DO UPDATE SET "
        + ", ".join(f"{c} = excluded.{c}" for c in kept)
        + " WHERE post_metrics.taken_at IS NULL OR excluded.taken_at >= post_metrics.taken_at",
        [
            (
                s["post_id"],
                workspace_id,
                s["channel"],
                s["published_at"],
                s["published_quarter"],
                s["taken_at"],
                *(s[f] for f in FIGURES),
                s["interactions"],
                s["engagement"],
            )
            for s in latest
        ],
    )


def track_published(workspace_id, post_id, channel, published_at, published_quarter):
    """The post_metrics row of a post that has just become Published."""
    write(
        "INSERT INTO post_metrics (post_id, workspace_id, channel, published_at, published_quarter)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (post_id) DO NOTHING",
        (post_id, workspace_id, channel, published_at, published_quarter),
    )


def snapshots_of(post_id):
    """Every snapshot of one post, oldest first (its owner already checked)."""
    return rows(
        f"SELECT taken_at, {_FIGURES} FROM post_stats WHERE post_id = ? ORDER BY taken_at",
        (post_id,),
    )


def latest_of(post_ids):
    """{post id: its latest snapshot's figures with taken_at and engagement},
    for those of `post_ids` that have one."""
    ids = sorted(set(post_ids))
    if not ids:
        return {}
    found = rows(
        f"SELECT post_id, {LATEST} FROM post_metrics WHERE post_id IN ({', '.join('?' * len(ids))})"
        " AND taken_at IS NOT NULL",
        ids,
    )
    return {r.pop("post_id"): r for r in found}


# The posts list's orders by the latest figures: posts without them last,
# then newest first. A lookup per post of the filtered list (post_metrics's
# primary key), then a sort. The post is named by its bare `id`, which
# post_metrics lacks: the order then reads the same over posts and over a
# subquery of them (a broad search numbers its rows in it, store/search.py).
def order_by_latest(figure):
    return (
        f"(SELECT m.{figure} FROM post_metrics m WHERE m.post_id = id) DESC NULLS LAST,"
        " created_at DESC, id DESC"
    )
