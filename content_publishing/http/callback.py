"""The automation platform's report that a post is live.

POST /functions/v1/make-post-callback   Scheduled, Publishing or Failed -> Published (posts:publish)
"""

from flask import Blueprint, g

from content_publishing import posts, timestamps
from content_publishing.auth import require_scope
from content_publishing.http.apidoc import doc
from content_publishing.http.common import get_owned, lead_seconds, render, with_etag
from content_publishing.schemas.posts import callback_schema, post_schema
from content_publishing.store import posts as post_store
from content_publishing.store.db import transaction

bp = Blueprint("callback", __name__)


@bp.post("/make-post-callback")
@doc(
    "Mark a post Published (automation platform callback)",
    body=callback_schema,
    response=post_schema,
    errors=[404, 409],
    headers=["ETag"],
    description="A Scheduled, Publishing or Failed post becomes Published (a handoff ends; a "
    "post whose handoff expired is accepted too, since the callback reports what is true on the "
    "network). The same callback again returns 200 with the unchanged record; a different URN "
    "or URL for a Published post, or a Draft, is a 409. It may carry the first comment's "
    "outcome, with the post or in the same callback again later: first_comment_urn once "
    "posted, or first_comment_error (the post stays Published; a comment_failed history "
    "entry). A comment reported posted cannot be reported failed or posted as another URN "
    "after (409).",
)
@require_scope("posts:publish")
def publish_callback(body):
    """The platform retries, so the same callback again is answered 200 with
    the unchanged record."""
    with transaction():
        now = timestamps.now_text()
        post = get_owned(post_store.lock_post, str(body["post_id"]), "post")
        lead = lead_seconds()
        post = posts.settle(g.workspace_id, post, lead, now)
        comment = {k: body[k] for k in ("first_comment_urn", "first_comment_error") if k in body}
        post = posts.publish(
            g.workspace_id,
            post,
            body["linkedin_post_id"],
            body["live_url"],
            lead,
            now,
            g.actor,
            comment=comment,
        )
    return with_etag(render(post_schema, post), post)
