"""Planning posts: the queue, bulk import, and the repeats a series will make.

POST /functions/v1/api-v2-posts-queue        a Draft or Failed post to its channel's next free slot (posts:publish)
POST /functions/v1/api-v2-posts-recycle/ID   a Published post's copy to its channel's next free slot (posts:write, editor)
POST /functions/v1/api-v2-posts-import       up to 1,000 posts from CSV or JSON, all or nothing (posts:write)
GET  /functions/v1/api-v2-posts-occurrences  the coming occurrences of recurring posts, from-to (posts:read)
"""

from flask import Blueprint, g, request, url_for
from marshmallow import ValidationError

from content_publishing import posts, timestamps
from content_publishing.auth import require_scope
from content_publishing.errors import ApiError, bad_request, row_errors, validation_error
from content_publishing.http.apidoc import doc
from content_publishing.http.common import (
    check_if_match,
    get_owned,
    idempotency_key,
    json_body,
    lead_seconds,
    render,
    with_etag,
)
from content_publishing.planning import clock, forecast
from content_publishing.posts import imports
from content_publishing.schemas.forecast import occurrences_query_schema, occurrences_schema
from content_publishing.schemas.imports import (
    MAX_COLUMNS,
    MAX_ROWS,
    import_result_schema,
    import_row_schema,
    import_schema,
    rows_from_csv,
)
from content_publishing.schemas.posts import post_schema, queue_schema
from content_publishing.store import posts as post_store
from content_publishing.store.db import snapshot, transaction

bp = Blueprint("planning", __name__)


@bp.post("/api-v2-posts-queue")
@doc(
    "Add a post to its channel's queue",
    body=queue_schema,
    response=post_schema,
    errors=[404, 409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="A Draft or Failed post becomes Scheduled at the first free slot of its channel "
    "at or after now plus the lead time: no Scheduled, Publishing or Published post of the "
    "channel at that instant, and the channel's guards kept. The queue has no depth limit. 409 "
    "no_free_slot when the channel has no slots (or is not set up) or nothing is free in the "
    "90 days after its last planned post; 400 naming content when the text is over "
    "LinkedIn's limit once escaped. In a workspace that requires approvals, an Approved post "
    "(or a Failed one whose approval holds) is queued; any other is a 409 `approval_required`.",
)
@require_scope("posts:publish")
def queue_post(body):
    lead = lead_seconds()
    with transaction(short_locks=True):  # queue requests of a channel wait on its row
        now = timestamps.now_text()
        post = get_owned(post_store.lock_post, str(body["post_id"]), "post")
        post = posts.settle(g.workspace_id, post, lead, now)
        check_if_match(post)
        post = posts.add_to_queue(g.workspace_id, post, lead, now, g.actor)
    return with_etag(render(post_schema, post), post)


@bp.post("/api-v2-posts-recycle/<post_id>")
@doc(
    "Recycle a published post",
    response=post_schema,
    status=201,
    errors=[404, 409],
    headers=["ETag"],
    request_headers=["Idempotency-Key"],
    description="A copy of a Published post (its text, media, alt text, document title and "
    "first comment; not its repeat) is queued on the post's channel: Scheduled at the first "
    "free slot at or after now plus the lead time, as add-to-queue does, with `recycled_from` "
    "set to the original's id. The original is unchanged. 409 not_published when the post is "
    "not Published; 409 too_soon when that slot comes before the channel's "
    "`recycle_after_days` have passed since the original went out (`details.earliest_at` says "
    "from when a copy may go out, `details.next_slot` the slot found); 409 no_free_slot as for "
    "the queue; 409 approval_required where the workspace requires approvals and the original "
    "went out without one (a copy keeps the original's approval). The same Idempotency-Key "
    "answers the first copy.",
)
@require_scope("posts:write", role="editor")
def recycle_post(post_id):
    lead, key = lead_seconds(), idempotency_key()
    with transaction():
        now = timestamps.now_text()
        post = get_owned(post_store.lock_post, post_id, "post")
        copy = posts.recycle(g.workspace_id, post, lead, key, now, g.actor, g.member_id)
    location = url_for("api.posts.get_post_item", post_id=copy["id"])
    return with_etag(render(post_schema, copy), copy, 201, {"Location": location})


class ImportBody:
    """The body of an import: JSON {"posts": [...]} or a CSV file, loaded row
    by row so that every bad row is named at once (with those the planning
    finds, posts/imports.py)."""

    described = (
        "The body may also be a CSV file (Content-Type: text/csv): UTF-8, a byte-order mark "
        "allowed, a header row naming the columns type, brand_id, content, scheduled_at, "
        "media_urls (space-separated), queue (true or empty) and repeat; at most "
        f"{MAX_COLUMNS} columns (a JSON row: fields)."
    )

    def load(self, schema):
        """{"posts": [loaded row, or None for a bad one], "invalid": {row: messages}}."""
        document = self.read()
        rows = document.get("posts") if isinstance(document, dict) else None
        if not isinstance(rows, list) or set(document) != {"posts"}:
            schema.load(document)  # names what is wrong with the envelope
            raise validation_error({"posts": ["Give the rows as a list."]})
        if not 1 <= len(rows) <= MAX_ROWS:
            raise validation_error({"posts": [f"Give 1 to {MAX_ROWS} rows."]})
        loaded, invalid = [], {}
        for n, row in enumerate(rows, start=1):
            if isinstance(row, dict) and len(row) > MAX_COLUMNS:  # named once, not field by field
                loaded.append(None)
                invalid[n] = {
                    "_schema": [
                        f"The row has {len(row):,} fields; a row takes at most {MAX_COLUMNS}."
                    ]
                }
                continue
            try:
                loaded.append(import_row_schema.load(row))
            except ValidationError as error:
                loaded.append(None)
                invalid[n] = error.normalized_messages()
        return {"posts": loaded, "invalid": invalid}

    def read(self):
        if request.mimetype == "text/csv":
            try:
                text = request.get_data(cache=True).decode("utf-8-sig")
            except UnicodeDecodeError as e:
                raise bad_request(f"The CSV is not UTF-8 (an invalid byte at {e.start}).") from None
            try:
                return rows_from_csv(text)
            except ValidationError as error:
                messages = error.normalized_messages()
                if "rows" in messages:  # a row the CSV reader could not split into cells
                    raise row_errors(
                        {int(n): {"_schema": found} for n, found in messages["rows"].items()}
                    ) from None
                raise validation_error(messages) from None
        if request.is_json:
            return json_body()
        raise ApiError(415, 'Send text/csv, or application/json {"posts": [...]}.')


@bp.post("/api-v2-posts-import")
@doc(
    "Import posts from CSV or JSON",
    body=import_schema,
    body_reader=ImportBody(),
    response=import_result_schema,
    status=201,
    errors=[409],
    request_headers=["Idempotency-Key"],
    description="Each row becomes a Draft, a Scheduled post (scheduled_at: the lead time and "
    "its channel's guards apply) or a queued one (queue: the next free slot, in row order). "
    "All or nothing: any bad row is a 400 validation_error with details.rows naming every bad "
    "row (1-based) and its fields, and nothing is stored. Rows that schedule need "
    "posts:publish, and a text within LinkedIn's limit once escaped (a Draft row may be longer).",
)
@require_scope("posts:write", role="editor")
def import_posts(body):
    key, now = idempotency_key(), timestamps.now_text()
    with transaction():
        made = imports.import_posts(
            g.workspace_id,
            body["posts"],
            body["invalid"],
            g.scopes,
            lead_seconds(),
            key,
            now,
            g.actor,
        )
    return {"data": [render(post_schema, post) for post in made], "count": len(made)}, 201


@bp.get("/api-v2-posts-occurrences")
@doc(
    "The coming occurrences of recurring posts",
    query=occurrences_query_schema,
    response=occurrences_schema,
    description="A series holds one post at a time: its next occurrence is made when the "
    "current one finishes. These are the repeats the series will make from `from` to `to` "
    "(at most 92 days), by the rule that will make them: after both the current occurrence's "
    "scheduled_at and now plus the lead time, in the channel's zone, ending with COUNT or "
    "UNTIL. None is a post yet; `post_id` is the occurrence each series copies. A repeat "
    "that would break a guard of its channel (with the posts planned now) carries `stops`, "
    "and none follow it.",
)
@require_scope("posts:read")
def list_occurrences(query):
    now, lead = timestamps.now_text(), lead_seconds()
    if posts.leases_ran_out(now, g.workspace_id):  # a series whose lease ran out has moved on
        with transaction():
            posts.settle_all(now, lead, g.workspace_id)
    start, end = clock.parse(query["start"]), clock.parse(query["end"])
    with snapshot():
        found, more = forecast.planned_repeats(g.workspace_id, start, end, lead, now)
    return occurrences_schema.dump({"data": found, "more": more})
