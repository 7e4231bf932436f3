"""What each post did on the network: its stats snapshots.

POST /functions/v1/api-v2-posts-stats        up to 500 snapshots, each kept or refused on its own (posts:publish)
GET  /functions/v1/api-v2-posts-stats/{id}   a post's snapshots, oldest first, and the latest (posts:read)
"""

from flask import Blueprint, g
from marshmallow import ValidationError

from content_publishing import timestamps
from content_publishing.analytics import snapshots
from content_publishing.auth import require_scope
from content_publishing.errors import validation_error
from content_publishing.http.apidoc import doc
from content_publishing.http.common import get_owned, json_body
from content_publishing.schemas.stats import (
    check_items,
    post_stats_schema,
    snapshot_schema,
    stats_body_schema,
    stats_result_schema,
)
from content_publishing.store import posts as post_store
from content_publishing.store import stats as stats_store
from content_publishing.store.db import snapshot, transaction

bp = Blueprint("stats", __name__)


class StatsBody:
    """{"data": [...]}, each snapshot loaded on its own, so that a bad one
    is refused alone and the rest are kept."""

    described = ""

    def load(self, schema):
        """{"items": [loaded, or None], "invalid": {item: messages}, "sent": [(post_id, taken_at)]}."""
        document = json_body()
        if not isinstance(document, dict) or set(document) != {"data"}:
            schema.load(document)  # names what is wrong with the envelope
            raise validation_error({"data": ["Missing data for required field."]})
        items = document["data"]
        try:
            check_items(items)
        except ValidationError as error:
            raise validation_error({"data": error.messages}) from None
        loaded, invalid, sent = [], {}, []
        for n, item in enumerate(items, start=1):
            sent.append(_as_sent(item))
            try:
                loaded.append(snapshot_schema.load(item))
            except ValidationError as error:
                loaded.append(None)
                invalid[n] = error.normalized_messages()
        return {"items": loaded, "invalid": invalid, "sent": sent}


def _as_sent(item):
    """(post_id, taken_at) of an item as sent, where they are text."""
    if not isinstance(item, dict):
        return None, None
    return tuple(
        item.get(name) if isinstance(item.get(name), str) else None
        for name in ("post_id", "taken_at")
    )


@bp.post("/api-v2-posts-stats")
@doc(
    "Record stats snapshots of published posts",
    body=stats_body_schema,
    body_reader=StatsBody(),
    response=stats_result_schema,
    description="Each snapshot is kept or refused on its own, and `data` says which, in the "
    "order sent, with the error of each refused one: `not_found` (no such post of the caller), "
    "`not_published` (the post is not Published), `validation_error` (a field, named in "
    "details; taken_at must be RFC 3339 and not in the future; every figure a whole number "
    "from 0 to 500,000,000, or null or absent when not known). The same post_id and taken_at "
    "again "
    "replace the figures (`replaced`), so sending a batch twice changes nothing more. A body "
    'that is not {"data": [1 to 500 snapshots]} is a 400 and nothing is kept.',
)
@require_scope("posts:publish")
def record_stats(body):
    with transaction():
        now = timestamps.now_text()
        results = snapshots.record(
            g.workspace_id, body["items"], body["invalid"], now, body["sent"]
        )
    count = dict.fromkeys(("created", "replaced", "refused"), 0)
    for item in results:
        count[item["result"]] += 1
    return stats_result_schema.dump({"data": results, **count})


@bp.get("/api-v2-posts-stats/<post_id>")
@doc(
    "A post's stats snapshots",
    response=post_stats_schema,
    errors=[404],
    description="Every snapshot of the post, oldest first, each with its engagement, and the "
    "latest one (null while there is none, as for a post that is not Published). Besides "
    "those a collector sent, a post published while its channel was connected to LinkedIn "
    "has the service's own reads, taken 1 hour, 24 hours, 7 days and 30 days after it went "
    "out (docs/analytics.md).",
)
@require_scope("posts:read")
def post_stats(post_id):
    with snapshot():
        post = get_owned(post_store.get_post, post_id, "post")
        found = [snapshots.read_back(s) for s in stats_store.snapshots_of(post["id"])]
    return post_stats_schema.dump(
        {"post_id": post["id"], "data": found, "latest": found[-1] if found else None}
    )
