"""`flask --app app backup PATH` and `flask --app app restore PATH` (docs/operations.md, "Backups").

A backup is taken while the service runs; a restore needs it stopped. The
work and every check are in store/backup.py; this module turns a refusal
into click's one `Error: ...` line and exit status 1.
"""

from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from content_publishing.store import backup as backups
from content_publishing.store.db import backend, dispose_db, needs_database
from content_publishing.store.versions import SCHEMA_VERSION


def _where(summary):
    schema = f" (schema {summary.schema})" if summary.schema else ""
    return f"{backend().describe()}{schema}"


@click.command("backup")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@with_appcontext
@needs_database
def backup_command(path, force):
    """Write a consistent copy of the database to PATH, while the service runs."""
    try:
        summary = backups.backup(current_app.config, path, force)
    except backups.BackupError as e:
        raise click.ClickException(str(e)) from None
    click.echo(
        f"Backed up {_where(summary)} to {path}: {summary.size:,} bytes, {summary.contents()}."
    )


@click.command("restore")
@click.argument("path", type=click.Path(path_type=Path))
@with_appcontext
def restore_command(path):
    """Replace the database with the backup at PATH; the service must be stopped."""
    dispose_db()  # this process's own connection must not count as the service's
    try:
        summary = backups.restore(current_app.config, path)
    except backups.BackupError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"Restored {path} into {_where(summary)}: {summary.contents()}.")
    if summary.version < SCHEMA_VERSION:
        click.echo(
            f"Its schema is brought from version {summary.version} to {SCHEMA_VERSION}"
            " when the service starts (or by `flask --app app init-db`)."
        )


def init_app(app):
    app.cli.add_command(backup_command)
    app.cli.add_command(restore_command)
