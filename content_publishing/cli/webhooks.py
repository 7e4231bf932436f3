"""`flask --app app webhooks ...`: the operator's view of webhook endpoints.

add --user U --url URL --event post.due [--event ...] [--description D]
    prints the signing secret alone on its last line, once
list           every endpoint of every workspace (never a secret)
remove ID      delete it; its pending deliveries end
test ID        send a signed `ping` event now and print the answer
"""

import click
from flask import current_app
from flask.cli import AppGroup
from marshmallow import ValidationError

from content_publishing import sealing, timestamps
from content_publishing.cli.keys import single_line_name
from content_publishing.errors import ApiError
from content_publishing.outbound import Guard, Sender
from content_publishing.schemas.webhooks import TYPES as EVENT_TYPES
from content_publishing.schemas.webhooks import endpoint_schema
from content_publishing.store import keys as key_store
from content_publishing.store import webhooks as webhook_store
from content_publishing.store.db import needs_database, transaction
from content_publishing.webhooks import events
from content_publishing.webhooks import rules as webhook_rules
from content_publishing.webhooks.delivery import deliver

webhooks_cli = AppGroup("webhooks", help="Manage webhook endpoints.")


def _refuse(error):
    if isinstance(error, ApiError):
        details = "; ".join(
            f"{k}: {' '.join(v)}" for k, v in error.details.items() if isinstance(v, list)
        )
        raise click.ClickException(f"{error.message} {details}".strip())
    raise click.ClickException(
        "; ".join(f"{k}: {' '.join(v)}" for k, v in error.normalized_messages().items())
    )


@webhooks_cli.command("add")
@click.option(
    "--user",
    required=True,
    callback=single_line_name,  # the rules of `keys create --user`, so a bad name is refused as such
    help="The endpoint's workspace, by the name `keys create --user` gave it.",
)
@click.option("--url", required=True, help="Where to deliver: an absolute http(s) URL.")
@click.option(
    "--event",
    "events_",
    multiple=True,
    required=True,
    type=click.Choice(EVENT_TYPES),
    help="An event type to deliver; repeat for several.",
)
@click.option("--description", default=None)
@needs_database
def add_command(user, url, events_, description):
    """Add an endpoint; its signing secret is printed once, on the last line."""
    workspace_id = key_store.find_workspace(user)
    if workspace_id is None:
        raise click.BadParameter(
            f"no user {user!r} (create a key for them first)", param_hint="--user"
        )
    try:
        fields = endpoint_schema.load(
            {"url": url, "events": list(dict.fromkeys(events_)), "description": description}
        )
        webhook_rules.check_destination(fields["url"], Guard.of(current_app.config))
        with transaction():
            endpoint, shown = webhook_rules.create(workspace_id, fields, timestamps.now_text())
    except (ApiError, ValidationError) as e:
        _refuse(e)
    click.echo(
        f"Added webhook endpoint {endpoint['id']} for user {user}: "
        f"{', '.join(endpoint['events'])} -> {endpoint['url']}"
    )
    click.echo("Its signing secret is shown once; store it now:")
    click.echo(shown["secret"])


@webhooks_cli.command("list")
@needs_database
def list_command():
    """Every endpoint: id, user, state, events, URL."""
    rows = webhook_store.list_all()
    if not rows:
        click.echo("No webhook endpoints.")
        return
    header = ("ID", "USER", "STATE", "EVENTS", "URL")
    table = [header] + [
        (
            r["id"],
            r["workspace_name"],
            "enabled" if r["enabled"] else "disabled",
            ",".join(r["events"]),
            r["url"],
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def _endpoint(endpoint_id):
    endpoint = webhook_store.find_any(endpoint_id.strip())
    if endpoint is None:
        raise click.ClickException(f"No webhook endpoint {endpoint_id}.")
    return endpoint


@webhooks_cli.command("remove")
@click.argument("endpoint_id")
@needs_database
def remove_command(endpoint_id):
    """Delete an endpoint; its pending deliveries are cancelled."""
    endpoint = _endpoint(endpoint_id)
    with transaction():
        webhook_rules.delete(endpoint["workspace_id"], endpoint, timestamps.now_text())
    click.echo(f"Removed webhook endpoint {endpoint['id']}.")


@webhooks_cli.command("test")
@click.argument("endpoint_id")
@needs_database
def test_command(endpoint_id):
    """Send a signed ping event to an endpoint now and print its answer."""
    endpoint = _endpoint(endpoint_id)
    sealed = webhook_store.signing(endpoint["id"])
    now = timestamps.now_text()
    body = events.body("ping", {"endpoint_id": endpoint["id"]}, now)
    sender = Sender(current_app.config["WEBHOOK_TIMEOUT_SECONDS"], Guard.of(current_app.config))
    try:
        secrets = webhook_rules.signing_secrets(sealed, now)
        attempt = deliver(
            sender,
            endpoint["url"],
            events.new_id(),
            body,
            [sealing.unseal(s) for s in secrets],
            webhook_rules.delivery_headers(sealed, sealing.unseal),
        )
    finally:
        sender.close()
    status = attempt["status_code"] if attempt["status_code"] is not None else "no answer"
    click.echo(f"POST {endpoint['url']}: {status} in {attempt['duration_ms']} ms")
    if attempt["response"]:
        click.echo(attempt["response"])
    if attempt["outcome"] != "delivered":
        raise click.ClickException(f"The ping was not acknowledged: {attempt['error']}.")


def init_app(app):
    app.cli.add_command(webhooks_cli)
