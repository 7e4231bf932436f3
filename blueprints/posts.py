"""Posts: /api-v2-posts (list, create) and /api-v2-posts-item/{id} (read, update)."""

import hashlib
import json
import uuid

from flask import Blueprint, current_app, g, url_for

import timestamps
from apidoc import doc, item_links
from auth import require_scope
from blueprints.common import (
    get_owned,
    check_if_match,
    idempotency_key,
    json_body,
    load_query,
    page_body,
    render,
    with_etag,
)
from errors import conflict
from publishing import plan_update
from schemas.posts import post_list_query_schema, post_schema, post_update_schema, posts_page_schema
from store import posts as post_store
from store.db import transaction

bp = Blueprint("posts", __name__)


def get_post(post_id, db=None):
    """The caller's post, or 404: unknown, malformed and foreign ids alike."""
    return get_owned(post_store.get_post, post_id, "post", db)


@bp.get("/api-v2-posts")
@doc("List the caller's posts", query=post_list_query_schema, response=posts_page_schema)
@require_scope("posts:read")
def list_posts():
    query = load_query(post_list_query_schema)
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
    description="Always creates a Draft. The same Idempotency-Key with the same body returns "
    "the first post; with another body it is a 409.",
)
@require_scope("posts:write")
def create_post():
    body = json_body()
    fields = post_schema.load(body)
    key = idempotency_key()
    request_hash = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    with transaction() as db:
        earlier = key and post_store.find_idempotency_key(db, g.user_id, key)
        if earlier:
            if earlier["request_hash"] != request_hash:
                raise conflict(
                    "This Idempotency-Key was used with a different request body.",
                    {"idempotency_key": key},
                )
            post = post_store.get_post(g.user_id, earlier["post_id"], db)
        else:
            post_id = str(uuid.uuid4())
            post = post_store.insert_post(db, g.user_id, post_id, fields, timestamps.now_text())
            if key:
                post_store.save_idempotency_key(
                    db, g.user_id, key, request_hash, post_id, timestamps.now_text()
                )
    location = url_for("api.posts.get_post_item", post_id=post["id"])
    return with_etag(render(post_schema, post), post, 201, {"Location": location})


@bp.get("/api-v2-posts-item/<post_id>")
@doc("Get one post", response=post_schema, headers=["ETag"])
@require_scope("posts:read")
def get_post_item(post_id):
    post = get_post(post_id)
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
def update_post_item(post_id):
    changes = post_update_schema.load(json_body())
    lead = current_app.config["SCHEDULE_MIN_LEAD_SECONDS"]
    with transaction() as db:
        post = get_post(post_id, db)
        check_if_match(post)
        columns = plan_update(post, changes, lead)
        if columns:
            post = post_store.update_post(db, g.user_id, post["id"], columns, timestamps.now_text())
    return with_etag(render(post_schema, post), post)
