"""Webhook endpoints: where a workspace's events are delivered."""

import json

from content_publishing.store.db import execute, one, rows, value
from content_publishing.store.records import OwnedTable

COLUMNS = (
    "id, url, events, description, enabled, disabled_reason, auth_header_name,"
    " created_at, updated_at, version"
)


def _with_auth_header(record):
    """auth_header as the API shows it: {"name"} (never the token), or null."""
    name = record.pop("auth_header_name")
    return {**record, "auth_header": {"name": name} if name else None}


endpoints = OwnedTable(
    "webhook_endpoints",
    COLUMNS,
    json_columns=["events"],
    bool_columns=["enabled"],
    writable=[
        "url",
        "events",
        "description",
        "enabled",
        "disabled_reason",
        "secret",
        "previous_secret",
        "previous_secret_until",
        "auth_header_name",
        "auth_header_token",
    ],
    shape=_with_auth_header,
)


def _wants(event_type):
    """A LIKE pattern for an event type in the JSON array column."""
    return f"%{json.dumps(event_type)}%"


def get_endpoint(workspace_id, endpoint_id):
    return endpoints.get(workspace_id, endpoint_id)


def lock_endpoint(workspace_id, endpoint_id):
    return endpoints.lock(workspace_id, endpoint_id)


def insert_endpoint(workspace_id, endpoint_id, fields, sealed, now):
    """`sealed`: the sealed secret, and the auth header's name and sealed
    token when it has one: {secret, auth_header_name, auth_header_token}."""
    return endpoints.insert(workspace_id, endpoint_id, {**fields, **sealed}, now)


def update_endpoint(workspace_id, endpoint_id, changes, now):
    return endpoints.update(workspace_id, endpoint_id, changes, now)


def delete_endpoint(workspace_id, endpoint_id):
    return endpoints.delete(workspace_id, endpoint_id)


def list_endpoints(workspace_id, query):
    return endpoints.page_of(workspace_id, query, "created_at DESC, id DESC")


def subscribed(workspace_id, event_type):
    """Ids of the workspace's enabled endpoints that want `event_type`."""
    return [
        r["id"]
        for r in rows(
            "SELECT id FROM webhook_endpoints WHERE workspace_id = ? AND enabled = 1 AND events LIKE ?"
            " ORDER BY created_at, id",
            (workspace_id, _wants(event_type)),
        )
    ]


def other_enabled_for(workspace_id, event_type, endpoint_id):
    """Another enabled endpoint of the workspace that wants `event_type`, or None."""
    return value(
        "SELECT id FROM webhook_endpoints WHERE workspace_id = ? AND enabled = 1 AND events LIKE ?"
        " AND id <> ? LIMIT 1",
        (workspace_id, _wants(event_type), endpoint_id),
    )


def signing(endpoint_id):
    """url, enabled, the sealed secrets and the auth header of an endpoint,
    for a delivery; or None."""
    return one(
        "SELECT id, workspace_id, url, enabled, secret, previous_secret, previous_secret_until,"
        " auth_header_name, auth_header_token FROM webhook_endpoints WHERE id = ?",
        (endpoint_id,),
    )


def disable(endpoint_id, reason, now):
    """Turn an endpoint off for the receiver's sake (it answered 410 Gone)."""
    execute(
        "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ?,"
        " version = version + 1 WHERE id = ? AND enabled = 1",
        (reason, now, endpoint_id),
    )


def find_any(endpoint_id):
    """An endpoint of any workspace, with its owner's name (the operator's CLI)."""
    row = one(
        f"SELECT e.workspace_id, u.name AS workspace_name, {', '.join('e.' + c.strip() for c in COLUMNS.split(','))}"
        " FROM webhook_endpoints e JOIN workspaces u ON u.id = e.workspace_id WHERE e.id = ?",
        (endpoint_id,),
    )
    return endpoints.record(row) if row else None


def list_all():
    """Every endpoint of every workspace, with the owner's name (the operator's CLI)."""
    found = rows(
        f"SELECT u.name AS workspace_name, {', '.join('e.' + c.strip() for c in COLUMNS.split(','))}"
        " FROM webhook_endpoints e JOIN workspaces u ON u.id = e.workspace_id ORDER BY e.created_at, e.id"
    )
    return [endpoints.record(r) for r in found]
