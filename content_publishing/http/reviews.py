"""A post's review and comments.

POST  /functions/v1/api-v2-posts-review/{id}     submit, approve or request changes (posts:write)
GET   /functions/v1/api-v2-posts-comments/{id}   the post's comments, oldest first (posts:read)
POST  /functions/v1/api-v2-posts-comments/{id}   comment on the post (posts:read: viewers comment)

Who may make which move is the domain's (posts/reviews.py, roles.py); a
review checks If-Match like any write, so an approve names the version
that was read.
"""

from flask import Blueprint, g

from content_publishing import posts, timestamps
from content_publishing.auth import require_scope
from content_publishing.http.apidoc import doc
from content_publishing.http.common import (
    check_if_match,
    get_owned,
    lead_seconds,
    render,
    with_etag,
)
from content_publishing.posts import reviews
from content_publishing.schemas.posts import post_schema
from content_publishing.schemas.reviews import (
    comment_schema,
    comments_schema,
    review_schema,
    reviewed_schema,
)
from content_publishing.store import comments as comment_store
from content_publishing.store import posts as post_store
from content_publishing.store.db import transaction

bp = Blueprint("reviews", __name__)


@bp.post("/api-v2-posts-review/<post_id>")
@doc(
    "Submit a post for review, approve it, or ask for changes",
    body=review_schema,
    response=reviewed_schema,
    errors=[404, 409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Only in a workspace that requires approvals (409 otherwise). `submit`: a Draft "
    "becomes In review (its author, or an editor or higher). `approve`: an In review post "
    "becomes Approved (an editor or higher, never the post's author: 403 forbidden), and may "
    "then be scheduled or queued. `request_changes` with a `comment`: back to Draft (an editor "
    "or higher). Send If-Match with the version you reviewed: an approve of any other version "
    "is a 412, and it is written only over that version. A `comment` is kept as a comment of "
    "the post.",
)
@require_scope("posts:write")
def review_post(post_id, body):
    lead = lead_seconds()
    with transaction():
        now = timestamps.now_text()
        post = posts.settle(
            g.workspace_id, get_owned(post_store.lock_post, post_id, "post"), lead, now
        )
        check_if_match(post)
        done = reviews.review(
            g.workspace_id, post, body["action"], body["comment"], g.scopes, lead, now, g.key_id
        )
    answer = {
        "post": render(post_schema, done.post),
        "comment": None if done.comment is None else render(comment_schema, _shown(done.comment)),
    }
    return with_etag(answer, done.post)


@bp.get("/api-v2-posts-comments/<post_id>")
@doc("A post's comments", response=comments_schema, errors=[404])
@require_scope("posts:read")
def list_comments(post_id):
    post = get_owned(post_store.get_post, post_id, "post")
    found = comment_store.for_post(g.workspace_id, post["id"])
    return {"data": [render(comment_schema, _shown(c)) for c in found]}


@bp.post("/api-v2-posts-comments/<post_id>")
@doc(
    "Comment on a post",
    body=comment_schema,
    response=comment_schema,
    status=201,
    errors=[404],
    description="Every member may comment, viewers included. `mentions` answers the members "
    "named as @<name>.",
)
@require_scope("posts:read")
def create_comment(post_id, body):
    with transaction():
        now = timestamps.now_text()
        post = get_owned(post_store.lock_post, post_id, "post")
        made = reviews.add_comment(g.workspace_id, post, g.member_id, body["body"], now)
    return render(comment_schema, _shown(made)), 201


def _shown(comment):
    return {**comment, "member": {"id": comment["member_id"], "name": comment["member_name"]}}
