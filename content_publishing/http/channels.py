"""Channels: where posts go, with their time zone, posting slots and guards.

GET    /functions/v1/channels               list (posts:read)
POST   /functions/v1/channels               create (posts:write, an editor's)
GET    /functions/v1/channels-item/{id}     read (posts:read)
PATCH  /functions/v1/channels-item/{id}     change (posts:write; an editor's, or one's own profile)
DELETE /functions/v1/channels-item/{id}     delete; its posts stay (posts:write)
GET    /functions/v1/channels-slots/{id}    the slot instants of the next days (posts:read)

A channel's id is `personal`, a personal channel's UUID or a brand_id, which
may hold any character a brand_id may, a slash included: hence `<path:...>`
in the routes. Who may change which channel is the domain's
(channels/changes.py): an editor any, a member their own profile.
"""

from datetime import timedelta

from flask import Blueprint, current_app, g, url_for

from content_publishing import timestamps
from content_publishing.auth import require_scope
from content_publishing.channels import changes, connections
from content_publishing.errors import linkedin_not_configured, not_found
from content_publishing.http.apidoc import doc
from content_publishing.http.common import check_if_match, page_body, render, with_etag
from content_publishing.http.connect import revoke_quietly
from content_publishing.planning import clock
from content_publishing.planning.plan import ChannelPlan
from content_publishing.schemas.channels import (
    channel_list_query_schema,
    channel_schema,
    channel_update_schema,
    channels_page_schema,
    slots_query_schema,
    upcoming_slots_schema,
)
from content_publishing.store import channels as channel_store
from content_publishing.store.db import snapshot, transaction

bp = Blueprint("channels", __name__)


def owned(fetch, channel_id):
    channel = fetch(g.workspace_id, channel_id)
    if channel is None:
        raise not_found("channel")
    return channel


def _publishing_needs_linkedin(body):
    """The service publishes a channel itself only with the operator's LinkedIn app."""
    if body.get("publisher") == "linkedin" and not current_app.config["LINKEDIN_CLIENT_ID"]:
        raise linkedin_not_configured()


@bp.get("/channels")
@doc("List the caller's channels", query=channel_list_query_schema, response=channels_page_schema)
@require_scope("posts:read")
def list_channels(query):
    with snapshot():
        page = channel_store.list_channels(g.workspace_id, query)
        shown = connections.attach(g.workspace_id, page.rows, timestamps.now_text())
    return page_body(channel_schema, page, query, shown)


@bp.post("/channels")
@doc(
    "Set up a channel",
    body=channel_schema,
    response=channel_schema,
    status=201,
    errors=[409],
    headers=["ETag", "Location"],
    description="A member's personal profile (no brand_id; `member_id`: the caller's own "
    "unless given, at most one each: a second is a 409; the first personal channel's id is "
    "`personal`, each later one's a UUID) or a brand page (its brand_id becomes the id; a "
    "second with the same id is a 409). Only the profile's member sets `others_may_post` "
    "(403 `forbidden` otherwise). `publisher: linkedin` is a 409 (a new channel is not "
    "connected yet).",
)
@require_scope("posts:write", role="editor")
def create_channel(body):
    _publishing_needs_linkedin(body)
    with transaction():
        channel = changes.create(g.workspace_id, body, timestamps.now_text(), g.scopes)
    location = url_for("api.channels.get_channel_item", channel_id=channel["id"])
    return with_etag(render(channel_schema, channel), channel, 201, {"Location": location})


@bp.get("/channels-item/<path:channel_id>")
@doc("Get one channel", response=channel_schema, headers=["ETag"])
@require_scope("posts:read")
def get_channel_item(channel_id):
    with snapshot():
        channel = owned(channel_store.get_channel, channel_id)
        channel = connections.attach_one(g.workspace_id, channel, timestamps.now_text())
    return with_etag(render(channel_schema, channel), channel)


@bp.patch("/channels-item/<path:channel_id>")
@doc(
    "Change a channel",
    body=channel_update_schema,
    response=channel_schema,
    errors=[409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Its name, author, zone, slots, guards and publisher; the id, type and member "
    "never change. Posts already planned stay where they are. `publisher: linkedin` needs a "
    "connected channel (409 otherwise); a connected channel's author is its member, or one of "
    "the pages its member may post for. An editor or higher changes any channel, a member "
    "their own profile (403 forbidden otherwise); `others_may_post` is the profile's member's "
    "alone.",
)
@require_scope("posts:write")
def update_channel_item(channel_id, body):
    _publishing_needs_linkedin(body)
    with transaction():
        channel = owned(channel_store.lock_channel, channel_id)
        check_if_match(channel)
        channel = changes.update(g.workspace_id, channel, body, timestamps.now_text(), g.scopes)
    return with_etag(render(channel_schema, channel), channel)


@bp.delete("/channels-item/<path:channel_id>")
@doc(
    "Delete a channel",
    status=204,
    errors=[412],
    request_headers=["If-Match"],
    description="Its posts stay, as posts of a channel that is not set up. Its LinkedIn "
    "connection goes with it: the token is revoked at LinkedIn and forgotten.",
)
@require_scope("posts:write", role="editor")
def delete_channel_item(channel_id):
    with transaction():
        channel = owned(channel_store.lock_channel, channel_id)
        check_if_match(channel)
        token = changes.delete(g.workspace_id, channel)
    if token:
        revoke_quietly(current_app.config, token)
    return "", 204


@bp.get("/channels-slots/<path:channel_id>")
@doc(
    "The channel's slot instants of the next days",
    query=slots_query_schema,
    response=upcoming_slots_schema,
    description="Each slot from now on, in UTC and in the channel's zone, with the post planned "
    "there (Scheduled, Publishing or Published) or null. A slot whose wall time does not exist "
    "that day (spring forward) is left out; an ambiguous one (fall back) is listed once.",
)
@require_scope("posts:read")
def list_channel_slots(channel_id, query):
    with snapshot():
        channel = owned(channel_store.get_channel, channel_id)
        plan = ChannelPlan(g.workspace_id, channel)
        start = timestamps.now()
        end = start + timedelta(days=query["days"])
        plan.cover(start, end)
        slots = [
            {
                "at": timestamps.to_text(moment),
                "local": moment.astimezone(plan.zone).isoformat(),
                "post_id": plan.occupant(moment),
            }
            for moment in clock.slot_instants(channel["slots"], plan.zone, start, end)
        ]
    return {"data": slots}
