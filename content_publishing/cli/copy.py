"""`flask --app app copy-db --to postgresql://...`: move from SQLite to PostgreSQL.

Copies the database in FLASK_DATABASE (SQLite) into an empty PostgreSQL
database, row for row (docs/operations.md, "Outgrowing one machine"), and checks the
counts before it commits.
"""

import click
from flask import current_app
from flask.cli import with_appcontext

from content_publishing.store.db import describe, is_postgres


@click.command("copy-db")
@click.option(
    "--to",
    "target",
    required=True,
    metavar="postgresql://...",
    help="The empty PostgreSQL database to fill.",
)
@with_appcontext
def copy_db_command(target):
    """Copy this SQLite database, every row of it, into an empty PostgreSQL database."""
    source = current_app.config["DATABASE"]
    if is_postgres(source):
        raise click.ClickException(
            "FLASK_DATABASE is already a PostgreSQL URL; copy-db copies an SQLite database"
        )
    if not is_postgres(target):
        raise click.BadParameter("must be a postgresql:// URL", param_hint="--to")
    from content_publishing.store.copy import (  # psycopg: imported when it is needed
        CopyRefused,
        copy_database,
    )

    target_config = {**current_app.config, "DATABASE": target}
    try:
        copied = copy_database(
            current_app.config,
            target_config,
            progress=lambda table, rows: click.echo(f"  {table}: {rows:,} rows"),
            starting=lambda: click.echo(f"Copying {source} into {describe(target_config)} ..."),
        )
    except CopyRefused as e:
        raise click.ClickException(f"{e}. Nothing was written.") from None
    click.echo(
        f"Copied {sum(copied.values()):,} rows; every table's count and every list total "
        "agree with the source. Point FLASK_DATABASE at the new database and start the service."
    )


def init_app(app):
    app.cli.add_command(copy_db_command)
