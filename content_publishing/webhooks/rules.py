"""Rules of webhook endpoints: the SSRF guard, one post.due endpoint, secrets.

A due post is handed to exactly one automation, so a workspace has at most one
enabled endpoint that wants post.due: a second is a 409, rather than two
automations each publishing the same post. A unique index holds the rule
(webhook_endpoints_one_post_due, store/migrations/); the read before the write only
finds the other endpoint's id for the message, and a save that races another
one past it is refused by the index with the same 409.
"""

import uuid

from content_publishing import outbound, sealing, timestamps
from content_publishing.errors import conflict, validation_error
from content_publishing.store import deliveries, outbox
from content_publishing.store import webhooks as webhook_store
from content_publishing.store.db import is_unique_violation, savepoint
from content_publishing.webhooks import events
from content_publishing.webhooks import secrets as webhook_secrets

ROTATION_OVERLAP_SECONDS = 24 * 3600


def signing_secrets(endpoint, now):
    """The sealed secrets a message to `endpoint` is signed with: the current
    one and, for a day after a rotation, the previous one too."""
    sealed = [endpoint["secret"]]
    if endpoint["previous_secret"] and (endpoint["previous_secret_until"] or "") > now:
        sealed.append(endpoint["previous_secret"])
    return sealed


def guard(config):
    """What the SSRF guard lets through under these settings (outbound.Guard)."""
    return outbound.Guard.of(config)


def check_destination(url, guard, field="url"):
    """400 naming `field` unless the SSRF guard lets webhooks go to `url`
    (a chat's webhook too). Before the transaction: it may wait for DNS."""
    if url is None:
        return
    try:
        outbound.check_destination(url, guard)
    except outbound.Unreachable as e:
        raise validation_error({field: [f"Cannot be reached: {e}."]}) from None
    except outbound.Refused as e:
        raise validation_error({field: [f"Not a public address: {e}."]}) from None


def _one_post_due(workspace_id, endpoint_id, events, enabled):
    if enabled and "post.due" in events:
        other = webhook_store.other_enabled_for(workspace_id, "post.due", endpoint_id)
        if other:
            raise _post_due_taken(other)


def _post_due_taken(other):
    return conflict(
        "Another enabled endpoint already takes post.due; a due post is handed to one "
        "automation only. Disable or change that one first.",
        {"endpoint_id": other},
    )


def _saved(workspace_id, endpoint_id, write):
    """`write()` inside a savepoint; the index's refusal of a second enabled
    post.due endpoint, committed by a concurrent request after our read, is
    the same 409 as the read's."""
    try:
        with savepoint():
            return write()
    except Exception as error:
        if not is_unique_violation(error):
            raise
        raise _post_due_taken(
            webhook_store.other_enabled_for(workspace_id, "post.due", endpoint_id)
        ) from None


def create(workspace_id, fields, now):
    """The new endpoint, and what is shown of it once: its secret, and its
    auth_header's token if it has one (inside the caller's transaction)."""
    endpoint_id = str(uuid.uuid4())
    _one_post_due(workspace_id, endpoint_id, fields["events"], True)
    fields = dict(fields)
    secret = webhook_secrets.generate()
    sealed = {"secret": sealing.seal(secret)}
    shown = {"secret": secret}
    header = fields.pop("auth_header", None)
    if header:
        sealed.update(_header_columns(header["name"], shown))
    endpoint = _saved(
        workspace_id,
        endpoint_id,
        lambda: webhook_store.insert_endpoint(workspace_id, endpoint_id, fields, sealed, now),
    )
    return endpoint, shown


def _header_columns(name, shown):
    """The columns of a new header token under `name`; the token into `shown`."""
    token = webhook_secrets.generate_token()
    shown["auth_header"] = {"name": name, "token": token}
    return {"auth_header_name": name, "auth_header_token": sealing.seal(token)}


def update(workspace_id, endpoint, changes, now):
    """The changed endpoint, and what is shown once: a new secret if the
    change rotates it, a new auth_header token if it issues one."""
    changes = dict(changes)
    rotate = changes.pop("rotate_secret", False)
    rotate_header = changes.pop("rotate_auth_header", False)
    columns = {k: v for k, v in changes.items() if endpoint.get(k) != v}
    shown = {}
    header = columns.pop("auth_header", endpoint["auth_header"])
    if header is None:
        if rotate_header:
            raise conflict("The endpoint has no auth_header to rotate; set one first.", {})
        if endpoint["auth_header"] is not None:
            columns.update(auth_header_name=None, auth_header_token=None)
    elif header != endpoint["auth_header"] or rotate_header:
        columns.update(_header_columns(header["name"], shown))
    if columns.get("enabled") is True:
        columns["disabled_reason"] = None
    if columns.keys() & {"events", "enabled"}:
        _one_post_due(
            workspace_id,
            endpoint["id"],
            columns.get("events", endpoint["events"]),
            columns.get("enabled", endpoint["enabled"]),
        )
    if columns.get("enabled") is False:
        columns["disabled_reason"] = "disabled through the API"
        outbox.cancel_for_endpoint(endpoint["id"], "the endpoint was disabled", now)
    if rotate:
        shown["secret"] = webhook_secrets.generate()
        current = webhook_store.signing(endpoint["id"])
        columns.update(
            secret=sealing.seal(shown["secret"]),
            previous_secret=current["secret"],
            previous_secret_until=timestamps.later(now, ROTATION_OVERLAP_SECONDS),
        )
    if not columns:
        return endpoint, shown
    changed = _saved(
        workspace_id,
        endpoint["id"],
        lambda: webhook_store.update_endpoint(workspace_id, endpoint["id"], columns, now),
    )
    return changed, shown


def delivery_headers(endpoint, unseal):
    """The auth_header a delivery to `endpoint` carries ({} when none);
    `unseal` opens the sealed token (the dispatcher caches them)."""
    if not endpoint.get("auth_header_name"):
        return {}
    return {endpoint["auth_header_name"]: unseal(endpoint["auth_header_token"])}


def delete(workspace_id, endpoint, now):
    outbox.cancel_for_endpoint(endpoint["id"], "the endpoint was deleted", now)
    webhook_store.delete_endpoint(workspace_id, endpoint["id"])


def disable_gone(endpoint_id, reason, now):
    """The receiver answered 410 Gone: the endpoint is disabled and nothing
    more is sent to it (the dispatcher's one change of an endpoint)."""
    webhook_store.disable(endpoint_id, reason, now)
    outbox.cancel_for_endpoint(endpoint_id, reason, now)


def ping(workspace_id, endpoint, now):
    """A ping to `endpoint`, pending for the dispatcher: its delivery."""
    _must_be_enabled(endpoint, "The endpoint")
    event_id = events.ping(workspace_id, endpoint["id"], now)
    return deliveries.delivery_of_event(workspace_id, event_id)


def redeliver(workspace_id, delivery, now):
    endpoint = webhook_store.get_endpoint(workspace_id, delivery["endpoint_id"])
    if endpoint is None:
        raise conflict(
            "The endpoint of this delivery was deleted.", {"endpoint_id": delivery["endpoint_id"]}
        )
    _must_be_enabled(endpoint, "The endpoint of this delivery")
    return outbox.redeliver(workspace_id, delivery, now)


def _must_be_enabled(endpoint, named):
    """409 for a disabled endpoint: nothing is sent to it."""
    if not endpoint["enabled"]:
        raise conflict(f"{named} is disabled; enable it first.", {"endpoint_id": endpoint["id"]})
