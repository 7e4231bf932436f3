"""Stats snapshots: what a post did on the network, as a collector reads it.

`record` is the one way in, whoever collects: the API (an n8n workflow
posting to /api-v2-posts-stats) and the service's own LinkedIn publisher
calling it in-process for its connected channels (collection.py). Each item is
kept or refused on its own, and the answer says which and why, as an
import names its bad rows:

- a post that is unknown or another workspace's is `not_found` (the same answer
  for both, as a 404 is);
- a post that is not Published has no figures yet: `not_published`;
- `taken_at` after `now` is a `validation_error` on taken_at.

The same (post_id, taken_at) again replaces the figures (the snapshots'
primary key holds it), so a collector can send what it read as often as it
likes. The latest snapshot of each post is copied onto its post_metrics row
in the same transaction, which the analytics and the posts list read.
"""

from content_publishing.analytics import zone
from content_publishing.errors import item_error, item_validation_error
from content_publishing.planning.plan import channel_of
from content_publishing.store import stats as stats_store

FIGURES = stats_store.FIGURES
INTERACTIONS = ("reactions", "comments", "reshares", "clicks")


def engagement(figures):
    """(reactions + comments + reshares + clicks) / impressions, a missing
    figure counting 0; None without impressions (missing or 0)."""
    impressions = figures.get("impressions")
    if not impressions:
        return None
    return interactions(figures) / impressions


def interactions(figures):
    return sum(figures.get(name) or 0 for name in INTERACTIONS)


def read_back(snapshot):
    """A stored snapshot as the API shows it: its figures and engagement."""
    return {**snapshot, "engagement": engagement(snapshot)}


def record(workspace_id, items, invalid, now, sent=None):
    """Keep the good snapshots of a batch (inside the caller's transaction)
    and say of each item what became of it: [{item, post_id, taken_at,
    result: created | replaced | refused, error}], in the order sent.

    `items`: the loaded snapshots, None where one did not load; `invalid`:
    {1-based item: {field: [messages]}} of those; `sent`: [(post_id,
    taken_at)] as sent, echoed for refused items (None where not text).
    """
    sent = sent or [(None, None)] * len(items)
    results = [None] * len(items)
    for n, messages in invalid.items():
        results[n - 1] = _refused(n, sent[n - 1], item_validation_error(messages))
    loaded = [(n, s) for n, s in enumerate(items, start=1) if s is not None]
    posts = stats_store.lock_posts(workspace_id, [str(s["post_id"]) for _, s in loaded])
    kept = []
    for n, snapshot in loaded:
        post_id = str(snapshot["post_id"])
        error = _refusal(snapshot, posts.get(post_id), now)
        if error:
            results[n - 1] = _refused(n, (post_id, sent[n - 1][1]), error)
        else:
            kept.append((n, {**snapshot, "post_id": post_id}))
    stored = stats_store.stored_pairs([(s["post_id"], s["taken_at"]) for _, s in kept])
    for n, snapshot in kept:
        pair = (snapshot["post_id"], snapshot["taken_at"])
        results[n - 1] = {
            "item": n,
            "post_id": pair[0],
            "taken_at": pair[1],
            "result": "replaced" if pair in stored else "created",
            "error": None,
        }
        stored.add(pair)  # the same pair later in the batch replaces this one
    snapshots = [s for _, s in kept]
    if snapshots:
        stats_store.save_snapshots(snapshots, now)
        stats_store.save_latest(workspace_id, _newest(snapshots, posts))
    return results


def _refusal(snapshot, post, now):
    """Why this snapshot cannot be kept, as an item error; None if it can."""
    if post is None:
        return item_error("not_found", "No such post.", {"post_id": ["No such post."]})
    if post["status"] != "Published":
        message = f"The post is {post['status']}: only a Published post has figures."
        return item_error("not_published", message, {"post_id": [message]})
    if snapshot["taken_at"] > now:
        return item_validation_error({"taken_at": ["Must not be in the future."]})
    return None


def _refused(n, sent, error):
    post_id, taken_at = sent
    return {
        "item": n,
        "post_id": post_id,
        "taken_at": taken_at,
        "result": "refused",
        "error": error,
    }


def _newest(snapshots, posts):
    """The newest snapshot of each post (the last sent, of equal taken_at),
    with what its post_metrics row holds."""
    newest = {}
    for snapshot in snapshots:
        held = newest.get(snapshot["post_id"])
        if held is None or snapshot["taken_at"] >= held["taken_at"]:
            newest[snapshot["post_id"]] = snapshot
    rows = []
    for post_id, snapshot in sorted(newest.items()):
        post = posts[post_id]
        rows.append(
            {
                **snapshot,
                "channel": channel_of(post),
                "published_at": post["published_at"],
                "published_quarter": zone.quarter_of(post["published_at"]),
                "interactions": interactions(snapshot),
                "engagement": engagement(snapshot),
            }
        )
    return rows
