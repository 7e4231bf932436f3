"""Posts.

    GET   /functions/v1/api-v2-posts             list, filter, the due feed (posts:read)
    POST  /functions/v1/api-v2-posts             create a Draft (posts:write)
    GET   /functions/v1/api-v2-posts-item/{id}   read (posts:read)
    PATCH /functions/v1/api-v2-posts-item/{id}   update; status moves also need posts:publish
"""

from flask import Blueprint, current_app, g, url_for

import publishing
import timestamps
from apidoc import doc, item_links
from auth import require_scope
from blueprints.common import check_if_match, get_owned, idempotency_key, page_body, render, with_etag
from schemas.posts import post_list_query_schema, post_schema, post_update_schema, posts_page_schema
from store import posts as post_store
from store.db import snapshot, transaction

bp = Blueprint("posts", __name__)


@bp.get("/api-v2-posts")
@doc("List the caller's posts", query=post_list_query_schema, response=posts_page_schema)
@require_scope("posts:read")
def list_posts(query):
    with snapshot():
        rows, total = post_store.list_posts(g.user_id, query, timestamps.now_text())
    return page_body(post_schema, rows, total, query)


@bp.post("/api-v2-posts")
@doc(
    "Create a post draft",
    body=post_schema,
    response=post_schema,
    status=201,
    errors=[409],
    headers=["ETag", "Location"],
    request_headers=["Idempotency-Key"],
    links=item_links(
        "Post",
        "post_id",
        PublishPost={
            "operationId": "publish_callback",
            "requestBody": {"post_id": "$response.body#/id"},
        },
    ),
    description="Always creates a Draft. The same Idempotency-Key with the same fields returns "
    "the first post; with other fields it is a 409.",
)
@require_scope("posts:write")
def create_post(body):
    key, now = idempotency_key(), timestamps.now_text()
    with transaction():
        post = publishing.create_post(g.user_id, body, key, now)
    location = url_for("api.posts.get_post_item", post_id=post["id"])
    return with_etag(render(post_schema, post), post, 201, {"Location": location})


@bp.get("/api-v2-posts-item/<post_id>")
@doc("Get one post", response=post_schema, headers=["ETag"])
@require_scope("posts:read")
def get_post_item(post_id):
    post = get_owned(post_store.get_post, post_id, "post")
    return with_etag(render(post_schema, post), post)


@bp.patch("/api-v2-posts-item/<post_id>")
@doc(
    "Update a post",
    body=post_update_schema,
    response=post_schema,
    errors=[409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Status moves and rescheduling a Scheduled post also need `posts:publish`: "
    "Draft->Scheduled, Scheduled->Draft|Failed, Failed->Draft|Scheduled. Published is reached "
    "only through the publish callback (409 here).",
)
@require_scope("posts:write")
def update_post_item(post_id, body):
    lead = current_app.config["SCHEDULE_MIN_LEAD_SECONDS"]
    with transaction():
        post = get_owned(post_store.lock_post, post_id, "post")
        check_if_match(post)
        now = timestamps.now_text()
        columns = publishing.plan_update(post, body, g.scopes, lead, now)
        if columns:
            post = post_store.update_post(g.user_id, post["id"], columns, now)
    return with_etag(render(post_schema, post), post)
