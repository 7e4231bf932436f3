"""`flask --app app accounts ...`: people's accounts, from the shell.

`accounts link EMAIL` prints a sign-in link (`--reset`: one that sets a new
password) for the account of EMAIL, or for the member of that email who
has no account yet: what an operator hands over when the service sends no
mail. The link is shown only here; the store keeps its hash.
"""

import click
from flask import current_app
from flask.cli import AppGroup

from content_publishing import timestamps
from content_publishing.accounts import links
from content_publishing.store.db import needs_database, transaction

accounts_cli = AppGroup("accounts", help="People's accounts: sign-in links.")


@accounts_cli.command("link")
@click.argument("email")
@click.option("--reset", is_flag=True, help="A link that sets a new password.")
@needs_database
def link(email, reset):
    """Print a single-use sign-in link for EMAIL (15 minutes)."""
    with transaction():
        made = links.for_email(email, "reset" if reset else "sign_in", timestamps.now_text())
    if made is None:
        raise click.ClickException(
            f"No account and no member has the address {email!r}: set the member's email "
            "first (`flask members` or the dashboard)."
        )
    click.echo(f"A link for {made[2]}, valid {links.LINK_MINUTES} minutes, once:")
    click.echo(links.link_url(current_app.config["PUBLIC_URL"], made[0]))


def init_app(app):
    app.cli.add_command(accounts_cli)
