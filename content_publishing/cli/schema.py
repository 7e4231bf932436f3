"""`flask --app app init-db` and `flask --app app migrate [--dry-run]`.

Both bring the database to this code's schema version with the numbered
migrations of store/migrations/ (docs/operations.md, "Upgrading"); every
gunicorn worker does the same as it starts. `migrate --dry-run` prints the
migrations a database lacks, with their SQL, and changes nothing.
"""

import click
from flask import current_app
from flask.cli import with_appcontext

from content_publishing.store.db import (
    backend,
    check_database,
    describe,
    init_db,
    pending_migrations,
)
from content_publishing.store.versions import SCHEMA_VERSION, MigrationError


@click.command("init-db")
@with_appcontext
def init_db_command():
    """Create the tables if missing and apply any migration; safe on a database that holds data."""
    found, steps = _migrated()
    click.echo(f"Database ready: {backend().describe()}")
    if steps:
        click.echo(_applied(found, steps))


@click.command("migrate")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the migrations the database lacks, with their SQL, and change nothing.",
)
@with_appcontext
def migrate_command(dry_run):
    """Bring the database to this code's schema version, one numbered migration at a time."""
    if dry_run:
        _dry_run()
        return
    found, steps = _migrated()
    where = backend().describe()
    if steps:
        click.echo(f"{where}: {_applied(found, steps)}")
    else:
        click.echo(f"{where} is at schema version {found}, this code's: nothing to do.")


def _migrated():
    problem = check_database(current_app.config)
    if problem:
        raise click.ClickException(problem)
    try:
        return init_db()
    except MigrationError as e:
        raise click.ClickException(f"{e}. Nothing was changed.") from None
    except backend().errors as e:  # a lock not granted in time, a full disk, ...
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise click.ClickException(
            f"the migration failed ({first}). Nothing was changed."
        ) from None


def _applied(found, steps):
    names = ", ".join(step.name for step in steps)
    if found == 0:
        return f"created at schema version {steps[-1].version} ({names})."
    return f"migrated from schema version {found} to {steps[-1].version} ({names})."


def _dry_run():
    config = current_app.config
    where = describe(config)
    problem = check_database(config)
    if problem:
        raise click.ClickException(problem)
    try:
        found, steps = pending_migrations(config)
    except MigrationError as e:
        raise click.ClickException(str(e)) from None
    if not steps:
        click.echo(f"{where} is at schema version {found}, this code's: nothing to do.")
        return
    record = backend().version_sql
    click.echo(
        f"{where} is at schema version {found}; this code's is {SCHEMA_VERSION}."
        f" `flask migrate` would apply, in one transaction:"
    )
    for step in steps:
        click.echo(f"\n-- {step.name}: schema version {step.version}")
        click.echo(step.sql.rstrip())
        for statement in record(step.version):
            click.echo(statement)
    click.echo("\n-- Nothing was changed (--dry-run).")


def init_app(app):
    app.cli.add_command(init_db_command)
    app.cli.add_command(migrate_command)
