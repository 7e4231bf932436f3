"""`flask --app app keys ...`: create, list and revoke API keys.

The plain key exists only in the output of `keys create` (and `keys demo`);
the database keeps its hash.
"""

import click
from flask import current_app
from flask.cli import AppGroup
from marshmallow import ValidationError

from content_publishing import timestamps
from content_publishing.accounts import links
from content_publishing.auth import (
    KEY_PREFIX,
    SCOPES,
    display_prefix,
    generate_key,
    hash_key,
    is_well_formed,
)
from content_publishing.schemas import text
from content_publishing.store import keys as key_store
from content_publishing.store import members as member_store
from content_publishing.store.db import needs_database, transaction

keys_cli = AppGroup("keys", help="Manage API keys.")

NAME_MAX_LENGTH = 100
CHECKOUT_FLASK = ".venv/bin/flask --app app"  # how `make run` calls these commands
MAX_ID = 2**63 - 1  # ids are 64-bit integers in SQLite and PostgreSQL


def single_line_name(ctx, param, value):
    """A workspace's or member's name (--user, --workspace, --name) as a
    single-line text field of the API (schemas/text.py): no control
    characters, line breaks or bidirectional formatting characters, a
    visible character, at most 100 characters.
    A workspace's name is written on every access-log line of its keys,
    where a control character could forge or hide lines."""
    hint = param.opts[0] if param is not None else None
    value = value.strip()
    if not value:
        raise click.BadParameter("must not be empty", param_hint=hint)
    if len(value) > NAME_MAX_LENGTH:
        raise click.BadParameter(
            f"must be at most {NAME_MAX_LENGTH} characters (this one has {len(value)})",
            param_hint=hint,
        )
    try:
        text.no_controls(multiline=False)(value)
        text.no_bidi_controls(value)
        text.not_blank(value)
    except ValidationError as e:
        raise click.BadParameter(" ".join(e.messages), param_hint=hint) from None
    return value


def _parse_expiry(ctx, param, value):
    if value is None:
        return None
    try:
        expiry = timestamps.to_text(timestamps.parse(value))
    except ValueError as e:
        raise click.BadParameter(
            f"{value!r} is not an RFC 3339 timestamp with offset ({e})"
        ) from None
    except OverflowError:  # a real time, but outside what UTC can hold (year 0 or 10000)
        raise click.ClickException(
            f"--expires-at {value!r} falls outside the years 1-9999 once moved to UTC;"
            " give a time within them"
        ) from None
    if expiry <= timestamps.now_text():  # a key dead on arrival is never what was meant
        raise click.BadParameter(
            f"{value!r} is not in the future; a key that has expired already works nowhere",
            param_hint="--expires-at",
        )
    return expiry


def _new_key(user, scopes, expires_at, member_id=None):
    """A key of workspace `user`'s owner (both made when new), or of member `member_id`."""
    key = generate_key()
    now = timestamps.now_text()
    with transaction():
        if member_id is None:
            key_id = key_store.create_key(
                user, hash_key(key), display_prefix(key), scopes, expires_at, now
            )
        else:
            member = member_store.get_any_member(member_id)
            if member is None or member["removed_at"] is not None:
                raise click.ClickException(f"No member {member_id} (or they were removed).")
            key_id = key_store.insert_key(
                member_id, hash_key(key), display_prefix(key), scopes, expires_at, now
            )
    return key_id, key


@keys_cli.command("create")
@click.option(
    "--user",
    callback=lambda ctx, param, value: (
        None if value is None else single_line_name(ctx, param, value)
    ),
    help="The workspace whose owner (of the same name) gets the key; both made if new.",
)
@click.option(
    "--member",
    "member_id",
    type=click.IntRange(1, MAX_ID),
    help="The member (`members list` shows ids) who gets the key, instead of --user.",
)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    required=True,
    type=click.Choice(SCOPES),
    help="A scope to grant; repeat for several.",
)
@click.option("--expires-at", callback=_parse_expiry, help="RFC 3339 time the key stops working.")
@needs_database
def create_command(user, member_id, scopes, expires_at):
    """Create a key; the plain key is printed once, on the last line."""
    if (user is None) == (member_id is None):
        raise click.UsageError("Give --user NAME or --member ID (one of them).")
    scopes = sorted(set(scopes), key=SCOPES.index)
    key_id, key = _new_key(user, scopes, expires_at, member_id)
    owner = f"user {user}" if member_id is None else f"member {member_id}"
    click.echo(f"Created key {key_id} for {owner} with scopes {' '.join(scopes)}.")
    click.echo("Store it now: it is not shown again.")
    click.echo(key)


@keys_cli.command("demo")
@needs_database
def demo_command():
    """Create a key with every scope for user 'demo', if no key exists yet."""
    key = generate_key()
    with transaction():
        now = timestamps.now_text()
        key_id = key_store.create_first_key("demo", hash_key(key), display_prefix(key), SCOPES, now)
        owner_link = None
        if key_id is not None:  # the first run: the owner's link to sign in as a person
            owner_link = links.owner_link(key_store.get_key(key_id)["member_id"], now)
    if key_id is None:
        scopes = " ".join(f"--scope {scope}" for scope in SCOPES)
        click.echo(
            "API keys exist already, so no demo key was made: the demo key is shown only once, "
            "when it is made.\n"
            "To make a new key with every scope, run this in the checkout (the key is on the "
            "last line it prints):\n"
            f"  {CHECKOUT_FLASK} keys create --user demo {scopes}\n"
            f"To see the keys there are: {CHECKOUT_FLASK} keys list"
        )
        return
    click.echo(
        f"To sign in to the dashboard as a person, open this link within {links.OWNER_HOURS} "
        "hours and set the owner's email and password (it works once):"
    )
    click.echo(f"  {links.link_url(current_app.config['PUBLIC_URL'], owner_link)}")
    click.echo(f"Created demo key {key_id} for user demo with every scope. It is not shown again:")
    click.echo(key)


def _state(row, now):
    if row["revoked_at"]:
        return "revoked"
    if row["expires_at"] and row["expires_at"] <= now:
        return "expired"
    return "active"


@keys_cli.command("list")
@needs_database
def list_command():
    """Every key: id, prefix, user, scopes, state, expiry, last use."""
    now = timestamps.now_text()
    rows = key_store.list_keys()
    if not rows:
        click.echo("No API keys.")
        return
    header = ("ID", "PREFIX", "USER", "SCOPES", "STATE", "EXPIRES_AT", "LAST_USED_AT")
    table = [header] + [
        (
            str(r["id"]),
            KEY_PREFIX + r["prefix"] + "…",
            r["workspace_name"],
            ",".join(r["scopes"].split()),
            _state(r, now),
            r["expires_at"] or "-",
            r["last_used_at"] or "-",
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


@keys_cli.command("revoke")
@click.argument("key_or_id")
@needs_database
def revoke_command(key_or_id):
    """Revoke a key, given the plain key or the id `keys list` shows."""
    value = key_or_id.strip()
    if value.isascii() and value.isdigit():
        if int(value) > MAX_ID:  # no database holds it, and it cannot be sent to one
            raise click.ClickException("No such key.")
        by = {"key_id": int(value)}
    elif is_well_formed(value):
        by = {"key_hash": hash_key(value)}
    else:
        raise click.BadParameter("give a key id or a whole svc_live_ key", param_hint="KEY_OR_ID")
    now = timestamps.now_text()
    with transaction():
        revoked = key_store.revoke_key(now, **by)
    if revoked is None:
        raise click.ClickException("No such key.")
    if revoked["revoked_at"] != now:
        click.echo(f"Key {revoked['id']} was already revoked at {revoked['revoked_at']}.")
        return
    click.echo(f"Revoked key {revoked['id']}.")


def init_app(app):
    app.cli.add_command(keys_cli)
