"""Webhook endpoints and the delivery log.

GET    /functions/v1/webhooks                        list endpoints (webhooks:manage)
POST   /functions/v1/webhooks                        add one; the secret is shown once
GET    /functions/v1/webhooks-item/{id}              read
PATCH  /functions/v1/webhooks-item/{id}              change, enable, rotate the secret
DELETE /functions/v1/webhooks-item/{id}              remove; its pending deliveries end
GET    /functions/v1/webhook-deliveries              the delivery log, with attempts
POST   /functions/v1/webhook-deliveries-redeliver    send one delivery's event again
POST   /functions/v1/webhooks-ping                   send a test event to an endpoint
"""

from flask import Blueprint, current_app, g, url_for

from content_publishing import timestamps
from content_publishing.auth import require_scope
from content_publishing.errors import not_found
from content_publishing.http.apidoc import doc, item_links
from content_publishing.http.common import (
    check_if_match,
    get_owned,
    item_id,
    page_body,
    render,
    with_etag,
)
from content_publishing.schemas.webhooks import (
    deliveries_page_schema,
    delivery_list_query_schema,
    delivery_schema,
    endpoint_list_query_schema,
    endpoint_schema,
    endpoint_update_schema,
    endpoint_with_secret_schema,
    endpoints_page_schema,
    ping_schema,
    redeliver_schema,
)
from content_publishing.store import deliveries
from content_publishing.store import webhooks as webhook_store
from content_publishing.store.db import snapshot, transaction
from content_publishing.webhooks import rules as webhook_rules

bp = Blueprint("webhooks", __name__)
SCOPE = "webhooks:manage"


@bp.get("/webhooks")
@doc(
    "List the caller's webhook endpoints",
    query=endpoint_list_query_schema,
    response=endpoints_page_schema,
)
@require_scope(SCOPE)
def list_webhooks(query):
    with snapshot():
        page = webhook_store.list_endpoints(g.workspace_id, query)
    return page_body(endpoint_schema, page, query)


@bp.post("/webhooks")
@doc(
    "Add a webhook endpoint",
    body=endpoint_schema,
    response=endpoint_with_secret_schema,
    status=201,
    errors=[409],
    headers=["ETag", "Location"],
    links=item_links("Webhook", "webhook_id"),
    description="Events go to `url` signed with Standard Webhooks v1. The answer carries the "
    "signing `secret`, shown only here, and, with an `auth_header`, its `token`, also shown "
    "only here: every delivery carries that header, for platforms that cannot check the "
    "signature. A URL whose host is not a public address is a 400 "
    "(unless the service allows private addresses). A workspace has at most one enabled endpoint "
    "for post.due (409), since a due post is handed to exactly one automation.",
)
@require_scope(SCOPE)
def create_webhook(body):
    webhook_rules.check_destination(body["url"], webhook_rules.guard(current_app.config))
    now = timestamps.now_text()
    with transaction():
        endpoint, shown = webhook_rules.create(g.workspace_id, body, now)
    location = url_for("api.webhooks.get_webhook_item", webhook_id=endpoint["id"])
    answer = {**render(endpoint_schema, endpoint), **shown}
    return with_etag(answer, endpoint, 201, {"Location": location})


@bp.get("/webhooks-item/<webhook_id>")
@doc("Get one webhook endpoint", response=endpoint_schema, headers=["ETag"])
@require_scope(SCOPE)
def get_webhook_item(webhook_id):
    endpoint = get_owned(webhook_store.get_endpoint, webhook_id, "webhook endpoint")
    return with_etag(render(endpoint_schema, endpoint), endpoint)


@bp.patch("/webhooks-item/<webhook_id>")
@doc(
    "Change a webhook endpoint",
    body=endpoint_update_schema,
    response=endpoint_with_secret_schema,
    errors=[409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Changes `url`, `events`, `description`, `enabled` and `auth_header`. "
    "`rotate_secret: true` answers with a new `secret` (shown only then); for 24 hours "
    "deliveries are signed with both the old and the new secret. A new `auth_header` (or "
    "`rotate_auth_header: true`) answers with its new `token`, shown only then, and only the "
    "new one is sent from the next delivery on. Otherwise the answer shows neither.",
)
@require_scope(SCOPE)
def update_webhook_item(webhook_id, body):
    webhook_rules.check_destination(body.get("url"), webhook_rules.guard(current_app.config))
    now = timestamps.now_text()
    with transaction():
        endpoint = get_owned(webhook_store.lock_endpoint, webhook_id, "webhook endpoint")
        check_if_match(endpoint)
        endpoint, shown = webhook_rules.update(g.workspace_id, endpoint, body, now)
    return with_etag({**render(endpoint_schema, endpoint), **shown}, endpoint)


@bp.delete("/webhooks-item/<webhook_id>")
@doc(
    "Remove a webhook endpoint",
    status=204,
    errors=[412],
    request_headers=["If-Match"],
    description="Its pending deliveries end (cancelled); its delivery log stays.",
)
@require_scope(SCOPE)
def delete_webhook_item(webhook_id):
    now = timestamps.now_text()
    with transaction():
        endpoint = get_owned(webhook_store.lock_endpoint, webhook_id, "webhook endpoint")
        check_if_match(endpoint)
        webhook_rules.delete(g.workspace_id, endpoint, now)
    return "", 204


@bp.get("/webhook-deliveries")
@doc(
    "The delivery log",
    query=delivery_list_query_schema,
    response=deliveries_page_schema,
    description="One entry per event and endpoint, newest first, with every attempt (time, "
    "status code, duration, error, the first 1 KB of the answer). Kept for "
    "FLASK_DELIVERY_LOG_DAYS (30) days.",
)
@require_scope(SCOPE)
def list_deliveries(query):
    query = {k: str(v) if k in ("endpoint_id", "post_id") else v for k, v in query.items()}
    with snapshot():
        page = deliveries.list_deliveries(g.workspace_id, query)
    return page_body(delivery_schema, page, query)


@bp.post("/webhook-deliveries-redeliver")
@doc(
    "Send one delivery's event again",
    body=redeliver_schema,
    response=delivery_schema,
    status=202,
    errors=[404, 409],
    description="A new pending delivery of the same event (the same webhook-id, so a receiver "
    "that already has it can drop it) to the same endpoint, sent by the dispatcher at once. "
    "409 if the endpoint was deleted or is disabled.",
)
@require_scope(SCOPE)
def redeliver(body):
    now = timestamps.now_text()
    with transaction():
        delivery = deliveries.get_delivery(
            g.workspace_id, item_id(str(body["delivery_id"]), "delivery")
        )
        if delivery is None:
            raise not_found("delivery")
        delivery = webhook_rules.redeliver(g.workspace_id, delivery, now)
    return render(delivery_schema, delivery), 202


@bp.post("/webhooks-ping")
@doc(
    "Send a test event to an endpoint",
    body=ping_schema,
    response=delivery_schema,
    status=202,
    errors=[404, 409],
    description="A `ping` event, signed as every event, goes to the endpoint through the "
    "dispatcher, whatever events it subscribes to: the answer is its pending delivery, whose "
    "attempts the delivery log shows. A disabled endpoint is a 409.",
)
@require_scope(SCOPE)
def ping_webhook(body):
    now = timestamps.now_text()
    with transaction():
        endpoint = get_owned(
            webhook_store.get_endpoint, str(body["webhook_id"]), "webhook endpoint"
        )
        delivery = webhook_rules.ping(g.workspace_id, endpoint, now)
    return render(delivery_schema, delivery), 202
