"""Posts.

    GET    /functions/v1/api-v2-posts             list, filter, the due feed (posts:read)
    POST   /functions/v1/api-v2-posts             create a Draft (posts:write)
    POST   /functions/v1/api-v2-posts-claim       hand due posts to one automation (posts:publish)
    POST   /functions/v1/api-v2-posts-preview     the LinkedIn request a post would get (posts:read)
    GET    /functions/v1/api-v2-posts-history/{id}  what happened to a post, oldest first (posts:read)
    GET    /functions/v1/api-v2-posts-item/{id}   read (posts:read)
    PATCH  /functions/v1/api-v2-posts-item/{id}   update; status moves also need posts:publish
    DELETE /functions/v1/api-v2-posts-item/{id}   delete a Draft, Scheduled or Failed post (posts:write)

Every read shows a post as it stands now (posts.current): a handoff
whose lease has run out reads as Failed even before its row is rewritten.
"""

from flask import Blueprint, current_app, g, url_for

from content_publishing import posts, timestamps
from content_publishing.auth import KEY_PREFIX, require_scope
from content_publishing.errors import search_too_broad
from content_publishing.http.apidoc import doc, item_links
from content_publishing.http.common import (
    check_if_match,
    get_owned,
    idempotency_key,
    lead_seconds,
    page_body,
    render,
    with_etag,
)
from content_publishing.posts import preview, publish_plan
from content_publishing.schemas.posts import (
    claim_schema,
    history_schema,
    post_list_query_schema,
    post_schema,
    post_update_schema,
    posts_page_schema,
)
from content_publishing.schemas.publish_plan import (
    claimed_schema,
    preview_result_schema,
    preview_schema,
)
from content_publishing.store import history as history_store
from content_publishing.store import posts as post_store
from content_publishing.store.db import TimedOut, snapshot, transaction

bp = Blueprint("posts", __name__)


@bp.get("/api-v2-posts")
@doc(
    "List the caller's posts",
    query=post_list_query_schema,
    response=posts_page_schema,
    errors=[503],
    description="`q` finds the posts whose content holds every word. A search that "
    "matches more than 10,000 posts answers an estimated `total` (`total_is_estimate`), and "
    "one that cannot be answered within the time limit is a 503 `search_too_broad`.",
)
@require_scope("posts:read")
def list_posts(query):
    now = timestamps.now_text()
    if posts.leases_ran_out(now, g.workspace_id):  # so that status filters and totals agree
        with transaction():
            posts.settle_all(now, lead_seconds(), g.workspace_id)
    limit_ms = current_app.config["SEARCH_TIMEOUT_MS"]
    try:
        with snapshot():
            page = post_store.list_posts(g.workspace_id, query, now, search_ms=limit_ms)
    except TimedOut:
        raise search_too_broad(limit_ms) from None
    return page_body(post_schema, page, query, [posts.current(row, now) for row in page.rows])


@bp.post("/api-v2-posts")
@doc(
    "Create a post draft",
    body=post_schema,
    response=post_schema,
    status=201,
    errors=[404, 409],
    headers=["ETag", "Location"],
    request_headers=["Idempotency-Key"],
    links=item_links(
        "Post",
        "post_id",
        PublishPost={
            "operationId": "publish_callback",
            "requestBody": {"post_id": "$response.body#/id"},
        },
        ClaimPosts={"operationId": "claim_posts"},
    ),
    description="Always creates a Draft, on the channel `channel_id` names (404 for another "
    "workspace's), or where `type` and `brand_id` place it. A post for a colleague's personal "
    "profile is refused where its member keeps it to themselves (403 `forbidden`), and needs "
    "its member's approval before it is scheduled (409 `owner_approval_required`). The same "
    "Idempotency-Key with the same fields returns the first post; with other fields it is a "
    "409.",
)
@require_scope("posts:write")
def create_post(body):
    key, now = idempotency_key(), timestamps.now_text()
    with transaction():
        post = posts.create(g.workspace_id, body, key, now, g.actor, g.member_id)
    location = url_for("api.posts.get_post_item", post_id=post["id"])
    return with_etag(render(post_schema, post), post, 201, {"Location": location})


@bp.get("/api-v2-posts-item/<post_id>")
@doc("Get one post", response=post_schema, headers=["ETag"])
@require_scope("posts:read")
def get_post_item(post_id):
    post = posts.current(get_owned(post_store.get_post, post_id, "post"), timestamps.now_text())
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
    "Draft->Scheduled, Scheduled->Draft|Failed, Failed->Draft|Scheduled. A Publishing post "
    'takes only the automation\'s report: `{"status": "Failed", "last_error": ...}` '
    'or `{"status": "Scheduled"}` to give it back untried (posts:publish); any other '
    "change is a 409. Published is reached only through the publish callback, Publishing only "
    "through a claim (409 here). No change leaves a post Scheduled with a text over LinkedIn's "
    "limit of 3,000 characters once escaped, counted in UTF-16 code units (400 naming content); "
    "a Draft may hold one. In a workspace that requires approvals, only an approved post is "
    "scheduled (409 `approval_required`), and a change of content, media, first comment or "
    "channel ends the approval: an In review or Approved post (or a Scheduled one) goes back "
    "to Draft.",
)
@require_scope("posts:write")
def update_post_item(post_id, body):
    lead = lead_seconds()
    with transaction():
        now = timestamps.now_text()
        post = posts.settle(
            g.workspace_id, get_owned(post_store.lock_post, post_id, "post"), lead, now
        )
        check_if_match(post)
        post = posts.update(g.workspace_id, post, body, g.scopes, lead, now, g.actor)
    return with_etag(render(post_schema, post), post)


@bp.delete("/api-v2-posts-item/<post_id>")
@doc(
    "Delete a post",
    status=204,
    errors=[409, 412],
    request_headers=["If-Match"],
    description="A Draft, Scheduled or Failed post is gone for good (a deleted Scheduled post is "
    "never claimed); a Publishing or Published post is a 409. An Idempotency-Key that named the "
    "post is forgotten with it.",
)
@require_scope("posts:write")
def delete_post_item(post_id):
    with transaction():
        now = timestamps.now_text()
        post = get_owned(post_store.lock_post, post_id, "post")
        post = posts.settle(g.workspace_id, post, lead_seconds(), now)
        check_if_match(post)
        posts.delete(g.workspace_id, post, g.scopes)
    return "", 204


@bp.post("/api-v2-posts-claim")
@doc(
    "Claim due posts for publishing",
    body=claim_schema,
    body_required=False,
    response=claimed_schema,
    links={
        "PublishClaimed": {
            "operationId": "publish_callback",
            "requestBody": {"post_id": "$response.body#/data/0/id"},
        },
        "ReportClaimed": {
            "operationId": "update_post_item",
            "parameters": {"post_id": "$response.body#/data/0/id"},
        },
    },
    description="Takes up to `limit` of the caller's due posts (Scheduled, `scheduled_at` <= now), "
    "soonest first, and hands each to this caller alone: it becomes Publishing with a new "
    "`handoff_id` and `handoff_expires_at` = now + `lease_seconds`. Two concurrent claims never "
    "return the same post. Report back before the lease runs out: the publish callback, or a "
    "PATCH to Failed or Scheduled; otherwise the post becomes Failed and is not handed out "
    "again by itself. A due post whose escaped text is over LinkedIn's limit is never handed "
    "over: it becomes Failed (last_error says why) and the next due post is taken instead. "
    "An empty `data` means nothing is due.",
)
@require_scope("posts:publish")
def claim_posts(body):
    with transaction():
        claimed = posts.claim(
            g.workspace_id,
            timestamps.now_text(),
            body["limit"],
            body["lease_seconds"],
            body.get("type"),
            g.actor,
            lead_seconds=lead_seconds(),
        )
        requests = publish_plan.requests_for(g.workspace_id, claimed, plan_target())
    return {
        "data": [
            {**render(post_schema, post), "linkedin_request": requests[post["id"]]}
            for post in claimed
        ]
    }


@bp.post("/api-v2-posts-preview")
@doc(
    "Preview the publish plan of a post",
    body=preview_schema,
    response=preview_result_schema,
    errors=[404],
    description="A dry run that stores nothing: the linkedin_request (the publish plan) an "
    'automation would be handed for a stored post ({"post_id": ...}) or for the fields of a '
    "create (type, brand_id, content, media_urls, media_alt, document_title, first_comment), "
    "the length of the content, and warnings, each naming the field it is about: "
    "author_unknown (the channel has no author_urn), over_length (the escaped text passes "
    "3,000 characters, counted in UTF-16 code units: the post cannot be scheduled), "
    "link_preview_hidden (media and a URL: LinkedIn shows no link card), plain_mention (an "
    "@Name that is no @[Name](urn:li:...) mention tags no one; `text` names it), "
    "media_unsupported (a URL whose type LinkedIn refuses), media_missing (a library medium "
    "deleted since), media_mixed (a document with images, or two documents), too_many_images "
    "(over 20), alt_text_missing, document_title_missing, first_comment_over_length (over "
    "1,250 escaped).",
)
@require_scope("posts:read")
def preview_post(body):
    if "post_id" in body:
        post = get_owned(post_store.get_post, str(body["post_id"]), "post")
    else:
        post = posts.kept_for_preview(g.workspace_id, body, g.member_id)
    return preview.preview(g.workspace_id, post, plan_target())


def plan_target():
    """Where and how the publish plans of this answer send (settings)."""
    config = current_app.config
    return publish_plan.Target(
        config["LINKEDIN_VERSION"], config["LINKEDIN_API_BASE"], config["PUBLIC_URL"]
    )


@bp.get("/api-v2-posts-history/<post_id>")
@doc(
    "What happened to a post",
    response=history_schema,
    errors=[404],
    description="Every change, oldest first, written in the change's own transaction: when, the "
    "action, the status before and after, the names of the fields it set, the prefix of the key "
    "that made it (null: the service itself, as when the dispatcher hands a post over or a lease "
    "runs out) and its member (`{id, name}`), the handoff and a short detail. Kept as long as the post; never a key or content.",
)
@require_scope("posts:read")
def post_history(post_id):
    post = get_owned(post_store.get_post, post_id, "post")
    entries = history_store.for_post(g.workspace_id, post["id"])
    for entry in entries:
        entry["key_prefix"] = KEY_PREFIX + entry["key_prefix"] if entry["key_prefix"] else None
        member_id, name = entry.pop("member_id"), entry.pop("member_name")
        entry["member"] = None if member_id is None else {"id": member_id, "name": name}
    return {"data": entries}
