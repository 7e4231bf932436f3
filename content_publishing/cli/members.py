"""`flask --app app members ...`: a workspace's members, from the shell.

The operator stands above the roles: these commands may make, change and
remove owners, but a workspace still keeps at least one owner. A member
added here gets their first key at once (printed on the last line, shown
only then), with every scope their role allows unless --scope says less.
"""

import click
from flask import current_app
from flask.cli import AppGroup
from marshmallow import ValidationError

from content_publishing import roles, timestamps
from content_publishing.auth import SCOPES, display_prefix, generate_key, hash_key
from content_publishing.cli.keys import single_line_name
from content_publishing.errors import ApiError
from content_publishing.linkedin.api import Api, LinkedInError
from content_publishing.schemas.members import ROLES, check_email
from content_publishing.store import keys as key_store
from content_publishing.store import members as member_store
from content_publishing.store.db import needs_database, transaction
from content_publishing.workspaces import members

members_cli = AppGroup("members", help="Manage the members of workspaces.")


def _refused(error):
    return click.ClickException(f"{error.message} ({error.code})")


def _email(ctx, param, value):
    """--email as the API takes it (schemas/members.py)."""
    if value is None:
        return None
    try:
        check_email(value)
    except ValidationError as e:
        raise click.BadParameter(" ".join(e.messages), param_hint="--email") from None
    return value


def _member(member_id):
    member = member_store.get_any_member(member_id)
    if member is None:
        raise click.ClickException(f"No member {member_id}.")
    return member


@members_cli.command("add")
@click.option("--workspace", required=True, callback=single_line_name, help="The workspace's name.")
@click.option("--name", required=True, callback=single_line_name, help="The member's name.")
@click.option("--email", default=None, callback=_email, help="Where their notifications go.")
@click.option("--role", required=True, type=click.Choice(ROLES))
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    type=click.Choice(SCOPES),
    help="A scope of their first key; repeat for several (default: all their role allows).",
)
@needs_database
def add_command(workspace, name, email, role, scopes):
    """Add a member; prints their id, then their first key on the last line."""
    allowed = roles.ROLE_SCOPES[role]
    scopes = [s for s in SCOPES if s in (set(scopes) or allowed)]
    outside = [s for s in scopes if s not in allowed]
    if outside:
        raise click.BadParameter(f"a {role} may not use {' '.join(outside)}", param_hint="--scope")
    key = generate_key()
    now = timestamps.now_text()
    try:
        with transaction():
            found = member_store.find_workspace(workspace)
            if found is None:
                raise click.ClickException(
                    f"No workspace {workspace!r}: `keys create --user {workspace}` makes one."
                )
            fields = {"name": name, "email": email, "role": role}
            member, _ = members.add(found["id"], None, fields, None, now)
            key_store.insert_key(
                member["id"], hash_key(key), display_prefix(key), scopes, None, now
            )
    except ApiError as e:
        raise _refused(e) from None
    click.echo(f"Added member {member['id']} ({name}, {role}) to workspace {workspace}.")
    click.echo(f"Their key has the scopes {' '.join(scopes)}. Store it now: it is not shown again.")
    click.echo(key)


@members_cli.command("list")
@click.option("--workspace", default=None, help="Only this workspace's members.")
@needs_database
def list_command(workspace):
    """Every member: id, workspace, name, email, role, state."""
    with transaction():
        spaces = [member_store.find_workspace(workspace)] if workspace else None
        if spaces == [None]:
            raise click.ClickException(f"No workspace {workspace!r}.")
        found = member_store.list_all(spaces[0]["id"] if spaces else None)
    if not found:
        click.echo("No members.")
        return
    header = ("ID", "WORKSPACE", "NAME", "EMAIL", "ROLE", "STATE")
    table = [header] + [
        (
            str(m["id"]),
            m["workspace_name"],
            m["name"],
            m["email"] or "-",
            m["role"],
            "removed" if m["removed_at"] else "member",
        )
        for m in found
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


@members_cli.command("role")
@click.argument("member_id", type=click.IntRange(1, 2**63 - 1))
@click.argument("role", type=click.Choice(ROLES))
@needs_database
def role_command(member_id, role):
    """Give a member another role (the last owner keeps theirs)."""
    try:
        with transaction():
            member = _member(member_id)
            members.change(member["workspace_id"], None, member, {"role": role}, None)
    except ApiError as e:
        raise _refused(e) from None
    click.echo(f"Member {member_id} ({member['name']}) is now {role}.")


@members_cli.command("remove")
@click.argument("member_id", type=click.IntRange(1, 2**63 - 1))
@needs_database
def remove_command(member_id):
    """Remove a member: every key of theirs is revoked at once."""
    config = current_app.config
    try:
        with transaction():
            member = _member(member_id)
            _, token = members.remove(
                member["workspace_id"],
                None,
                member,
                timestamps.now_text(),
                config["SCHEDULE_MIN_LEAD_SECONDS"],
            )
    except ApiError as e:
        raise _refused(e) from None
    if token and config["LINKEDIN_CLIENT_ID"]:
        try:
            Api(config).revoke(token)
        except LinkedInError as error:
            click.echo(f"Could not revoke their LinkedIn token at LinkedIn: {error.message}")
    click.echo(f"Removed member {member_id} ({member['name']}); their keys are revoked.")


def init_app(app):
    app.cli.add_command(members_cli)
