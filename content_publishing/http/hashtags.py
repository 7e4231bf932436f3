"""Saved hashtag sets, which the composer inserts in one click.

GET    /functions/v1/hashtag-sets            list (posts:read)
POST   /functions/v1/hashtag-sets            create (posts:write)
GET    /functions/v1/hashtag-sets-item/{id}  read (posts:read)
PATCH  /functions/v1/hashtag-sets-item/{id}  update (posts:write; its maker, or an editor or higher)
DELETE /functions/v1/hashtag-sets-item/{id}  delete (posts:write; its maker, or an editor or higher)
"""

from flask import Blueprint, g, url_for

from content_publishing import timestamps
from content_publishing.auth import require_scope
from content_publishing.http.apidoc import doc, item_links
from content_publishing.http.common import check_if_match, get_owned, page_body, render, with_etag
from content_publishing.planning import hashtags
from content_publishing.schemas.hashtags import (
    hashtag_set_list_query_schema,
    hashtag_set_schema,
    hashtag_set_update_schema,
    hashtag_sets_page_schema,
)
from content_publishing.store import hashtags as hashtag_store
from content_publishing.store.db import snapshot, transaction

bp = Blueprint("hashtags", __name__)


@bp.get("/hashtag-sets")
@doc(
    "List the caller's hashtag sets",
    query=hashtag_set_list_query_schema,
    response=hashtag_sets_page_schema,
)
@require_scope("posts:read")
def list_sets(query):
    with snapshot():
        page = hashtag_store.list_sets(g.workspace_id, query)
    return page_body(hashtag_set_schema, page, query)


@bp.post("/hashtag-sets")
@doc(
    "Save a hashtag set",
    body=hashtag_set_schema,
    response=hashtag_set_schema,
    status=201,
    errors=[409],
    headers=["ETag", "Location"],
    links=item_links("HashtagSet", "set_id", views="set"),
    description="A name (1-50 characters) and 1 to 30 hashtags, each '#' and a word. A name "
    "the caller has given another set already is a 409 conflict (details.id names that set).",
)
@require_scope("posts:write")
def create_set(body):
    with transaction():
        made = hashtags.create(g.workspace_id, body, timestamps.now_text(), g.member_id)
    location = url_for("api.hashtags.get_set_item", set_id=made["id"])
    return with_etag(render(hashtag_set_schema, made), made, 201, {"Location": location})


@bp.get("/hashtag-sets-item/<set_id>")
@doc("Get one hashtag set", response=hashtag_set_schema, headers=["ETag"])
@require_scope("posts:read")
def get_set_item(set_id):
    found = get_owned(hashtag_store.get_set, set_id, "hashtag set")
    return with_etag(render(hashtag_set_schema, found), found)


@bp.patch("/hashtag-sets-item/<set_id>")
@doc(
    "Update a hashtag set",
    body=hashtag_set_update_schema,
    response=hashtag_set_schema,
    errors=[409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Rename it (a name another of the caller's sets has is a 409) or replace its "
    "hashtags. Whoever made the set changes it, or an editor or higher (403 forbidden).",
)
@require_scope("posts:write")
def update_set_item(set_id, body):
    with transaction():
        found = get_owned(hashtag_store.lock_set, set_id, "hashtag set")
        check_if_match(found)
        changed = hashtags.update(g.workspace_id, found, body, timestamps.now_text(), g.scopes)
    return with_etag(render(hashtag_set_schema, changed), changed)


@bp.delete("/hashtag-sets-item/<set_id>")
@doc(
    "Delete a hashtag set",
    status=204,
    errors=[412],
    request_headers=["If-Match"],
    description="Whoever made the set deletes it, or an editor or higher (403 forbidden).",
)
@require_scope("posts:write")
def delete_set_item(set_id):
    with transaction():
        found = get_owned(hashtag_store.lock_set, set_id, "hashtag set")
        check_if_match(found)
        hashtags.delete(g.workspace_id, found, g.scopes)
    return "", 204
