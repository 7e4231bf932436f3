"""A post's review and comments.

POST  /functions/v1/api-v2-posts-review/{id}     submit, approve or request changes (posts:write)
POST  /functions/v1/api-v2-posts-review-bulk     the same move for many posts, one at a time,
                                                 in the order given (posts:write)
GET   /functions/v1/api-v2-posts-comments/{id}   the post's comments, oldest first (posts:read)
POST  /functions/v1/api-v2-posts-comments/{id}   comment on the post (posts:read: viewers comment)

Who may make which move is the domain's (posts/reviews.py, roles.py); a
review checks If-Match like any write, so an approve names the version
that was read.
"""

from flask import Blueprint, g

from content_publishing import posts, timestamps
from content_publishing.auth import require_scope
from content_publishing.errors import ApiError
from content_publishing.http.apidoc import doc
from content_publishing.http.common import (
    check_if_match,
    etag,
    get_owned,
    lead_seconds,
    render,
    with_etag,
)
from content_publishing.posts import reviews
from content_publishing.posts.reviews import Intent
from content_publishing.schemas.posts import post_schema
from content_publishing.schemas.reviews import (
    bulk_review_schema,
    bulk_reviewed_schema,
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
    "the post. `scheduled_at` or `queue: true` with submit: what the post does the moment it "
    "is approved (its `intent`); with approve: approve and schedule, or approve and queue, in "
    "one step. A post submitted with an intent is scheduled or queued when approved; where "
    "that cannot be done now, it waits Approved and `not_planned` says why.",
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
            g.workspace_id,
            post,
            body["action"],
            body["comment"],
            g.scopes,
            lead,
            now,
            g.actor,
            Intent(body["scheduled_at"], body["queue"]),
        )
    answer = {
        "post": render(post_schema, done.post),
        "comment": None if done.comment is None else render(comment_schema, _shown(done.comment)),
        "not_planned": done.not_planned,
    }
    return with_etag(answer, done.post)


@bp.post("/api-v2-posts-review-bulk")
@doc(
    "Submit, approve or ask for changes to many posts",
    body=bulk_review_schema,
    response=bulk_reviewed_schema,
    description="Each post in the order given, each in a transaction of its own, as "
    "POST /api-v2-posts-review/{id} with its `version` as If-Match would: a post refused "
    "(another's version, a move its status does not allow, a role that may not) is answered "
    "with its error, in words for people, and the others go on. `queue: true` with approve "
    "approves and queues each, taking the channel's free slots in that order.",
)
@require_scope("posts:write")
def review_many(body):
    lead = lead_seconds()
    outcomes = []
    for item in body["posts"]:
        try:
            outcomes.append(_review_one(item, body, lead))
        except ApiError as error:
            outcomes.append(
                {
                    "id": str(item["id"]),
                    "post": None,
                    "error": {"code": error.code, "message": error.message},
                    "not_planned": None,
                }
            )
    return {"data": outcomes}


def _review_one(item, body, lead):
    with transaction():
        now = timestamps.now_text()
        post = posts.settle(
            g.workspace_id, get_owned(post_store.lock_post, str(item["id"]), "post"), lead, now
        )
        if post["version"] != item["version"]:
            raise ApiError(
                412,
                "Someone changed this post since it was shown: look at it again first.",
                details={"current_version": post["version"]},
                headers={"ETag": etag(post)},
            )
        done = reviews.review(
            g.workspace_id,
            post,
            body["action"],
            body["comment"],
            g.scopes,
            lead,
            now,
            g.actor,
            Intent(None, body["queue"]),
        )
    return {
        "id": str(item["id"]),
        "post": render(post_schema, done.post),
        "error": None,
        "not_planned": done.not_planned,
    }


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
