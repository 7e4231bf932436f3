"""`POST /make-post-callback`: the automation platform reports a published post."""

from flask import Blueprint, g

import timestamps
from apidoc import doc
from auth import require_scope
from blueprints.common import json_body, render, with_etag
from blueprints.posts import get_post
from publishing import plan_publish
from schemas.posts import callback_schema, post_schema
from store import posts as post_store
from store.db import transaction

bp = Blueprint("callback", __name__)


@bp.post("/make-post-callback")
@doc(
    "Mark a post Published (automation platform callback)",
    body=callback_schema,
    response=post_schema,
    errors=[404, 409],
    headers=["ETag"],
    description="A Scheduled or Failed post becomes Published. The same callback again returns "
    "200 with the unchanged record; a different URN or URL for a Published post, or a Draft, "
    "is a 409.",
)
@require_scope("posts:publish")
def publish_callback():
    """Scheduled (or Failed) -> Published. The platform retries, so the same
    callback again is answered 200 with the unchanged record."""
    data = callback_schema.load(json_body())
    with transaction() as db:
        post = get_post(str(data["post_id"]), db)
        now = timestamps.now_text()
        columns = plan_publish(post, data["linkedin_post_id"], data["live_url"], now)
        if columns:
            post = post_store.update_post(db, g.user_id, post["id"], columns, now)
    return with_etag(render(post_schema, post), post)
