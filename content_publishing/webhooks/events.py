"""Webhook events: which changes cause which event, and what it carries.

    post.due           the dispatcher handed a due post to the workspace's post.due endpoint
    post.published     a post became Published (the publish callback)
    post.failed        a post became Failed (a failure report, or a handoff that ran out)
    post.first_comment_failed  a Published post's first comment was refused (the
                       callback's first_comment_error, or the service's own publisher)
    article.published  an article became Published
    channel.expiring      a channel's LinkedIn connection ends within 7 days and cannot be
                          refreshed: reconnect it
    channel.disconnected  a channel's LinkedIn connection expired, or LinkedIn refused to
                          refresh it: its posts cannot be published until it is reconnected

An event is written to the outbox (store/outbox.py) in the transaction of
the change that causes it, with one delivery per enabled endpoint of the
workspace that wants it; with no such endpoint nothing is written. The body is
fixed when the event is written, so every attempt sends the same bytes:

    {"type": "post.published", "timestamp": "...", "data": {...the record...}}
"""

import json
import uuid

from content_publishing.schemas.articles import article_schema
from content_publishing.schemas.channels import channel_schema
from content_publishing.schemas.common import render
from content_publishing.schemas.posts import post_schema
from content_publishing.store import outbox
from content_publishing.store import webhooks as webhook_store

POST_EVENTS = {"Published": "post.published", "Failed": "post.failed"}


def new_id():
    """A webhook-id: `msg_` and 32 hex digits, as Standard Webhooks suggests."""
    return "msg_" + uuid.uuid4().hex


def body(event_type, data, now):
    return json.dumps(
        {"type": event_type, "timestamp": now, "data": data},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def emit(workspace_id, event_type, data, now, post_id=None):
    """Write the event for the workspace's endpoints that want it; its id, or None."""
    endpoint_ids = webhook_store.subscribed(workspace_id, event_type)
    if not endpoint_ids:
        return None
    event_id = new_id()
    outbox.add_event(
        event_id, workspace_id, event_type, post_id, body(event_type, data, now), endpoint_ids, now
    )
    return event_id


def post_changed(workspace_id, before, after, now):
    """post.published or post.failed when a change moved the post there."""
    event_type = POST_EVENTS.get(after["status"])
    if event_type and before["status"] != after["status"]:
        emit(workspace_id, event_type, render(post_schema, after), now, post_id=after["id"])


def first_comment_failed(workspace_id, post, now):
    """post.first_comment_failed, with the Published post (its first_comment_error)."""
    emit(
        workspace_id,
        "post.first_comment_failed",
        render(post_schema, post),
        now,
        post_id=post["id"],
    )


def article_changed(workspace_id, before, after, now):
    if after["status"] == "Published" and before["status"] != "Published":
        emit(workspace_id, "article.published", render(article_schema, after), now)


def channel_changed(workspace_id, event_type, channel, now):
    """channel.expiring or channel.disconnected, with the channel record
    (its `connection` included, never a token)."""
    emit(workspace_id, event_type, render(channel_schema, channel), now)


def ping(workspace_id, endpoint_id, now):
    """A test event to one endpoint, whatever it subscribes to: the body
    `webhooks test` sends too, delivered by the dispatcher and logged."""
    event_id = new_id()
    outbox.add_event(
        event_id,
        workspace_id,
        "ping",
        None,
        body("ping", {"endpoint_id": endpoint_id}, now),
        [endpoint_id],
        now,
    )
    return event_id


def posts_due(workspace_id, handed, now):
    """The handoffs of due posts to the workspace's post.due endpoint: for each
    (post, handoff) of `handed`, the post and what the automation is told
    beside it (its callback_url, the lease_seconds that start when it
    acknowledges the delivery, and the linkedin_request to send). Her
    endpoints are read once, the events and deliveries written in two
    statements."""
    endpoint_ids = webhook_store.subscribed(workspace_id, "post.due")
    if not endpoint_ids:
        return []
    events = [
        (
            new_id(),
            post["id"],
            body(
                "post.due",
                {"post": render(post_schema, post), "handoff_id": post["handoff_id"], **handoff},
                now,
            ),
        )
        for post, handoff in handed
    ]
    outbox.add_events(workspace_id, "post.due", events, endpoint_ids, now)
    return [event_id for event_id, _, _ in events]
