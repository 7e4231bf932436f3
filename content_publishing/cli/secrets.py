"""`flask --app app secrets ...`: the secrets key that seals webhook secrets
and LinkedIn tokens (sealing.py; docs/operations.md, "The secrets key").

new-key        print a new secrets key (for FLASK_SECRETS_KEY on a new installation)
rotate [--new-key-file PATH]
               seal every stored secret and token again under a new key, in one
               transaction. With the key from instance/secrets.key the new key takes
               its place (the old one kept as secrets.key.old); with FLASK_SECRETS_KEY
               or FLASK_SECRETS_KEY_FILE the new key is written to PATH, for the
               operator to set on every host. Stop the service first.
"""

from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

from content_publishing import sealing
from content_publishing.store import sealed as sealed_store
from content_publishing.store.db import needs_database, transaction

secrets_cli = AppGroup("secrets", help="The secrets key of webhook secrets and LinkedIn tokens.")


@secrets_cli.command("new-key")
def new_key_command():
    """Print a new secrets key."""
    click.echo(sealing.new_key())


@secrets_cli.command("rotate")
@click.option(
    "--new-key-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the new key (needed when the key comes from FLASK_SECRETS_KEY or "
    "FLASK_SECRETS_KEY_FILE; it must not exist).",
)
@needs_database
def rotate_command(new_key_file):
    """Seal every stored secret and token again under a new key."""
    app = current_app._get_current_object()
    from_setting = bool(app.config["SECRETS_KEY"])
    problem = sealing.check_key(
        app.config, app.instance_path, lambda: sealed_store.any_stored(app.config)
    )
    if problem:
        raise click.ClickException(problem)
    if from_setting and new_key_file is None:
        raise click.ClickException(
            "the secrets key comes from FLASK_SECRETS_KEY (or FLASK_SECRETS_KEY_FILE): name "
            "where the new key goes with --new-key-file PATH, then set it on every host"
        )
    target = new_key_file or Path(app.instance_path) / (sealing.KEY_FILE + ".new")
    if new_key_file is not None and new_key_file.exists():
        raise click.ClickException(f"{new_key_file} exists already: name a new file")
    key = sealing.new_key()
    target.write_bytes(key.encode("ascii"))  # kept before the commit: never a key lost
    target.chmod(0o600)
    try:
        with transaction():
            count = _reseal_all(key)
    except ValueError as error:
        target.unlink()
        raise click.ClickException(f"nothing was changed: {error}") from None
    sealing.forget_cached_key(app)
    if new_key_file is None:
        old = sealing.install_key_file(app.instance_path, key)
        target.unlink()
        kept = f"; the old key is kept as {old} until you delete it" if old else ""
        click.echo(f"re-sealed {count} secrets and tokens under a new instance/secrets.key{kept}")
        return
    click.echo(
        f"re-sealed {count} secrets and tokens under the new key in {new_key_file}: set "
        f"FLASK_SECRETS_KEY_FILE={new_key_file} (or FLASK_SECRETS_KEY to its content) on every "
        "host, then start the service again"
    )


def _reseal_all(key):
    """Every stored secret and token sealed again under `key` (inside the
    transaction, each row locked): how many. ValueError when one cannot be
    opened with the key in force (and the transaction rolls back)."""
    count = 0
    for table, (_, columns) in sealed_store.SEALED.items():
        for row in sealed_store.locked_rows(table):
            for column in columns:
                if row[column] is not None:
                    row[column] = sealing.resealed(row[column], key)
                    count += 1
            sealed_store.rewrite(table, row)
    return count


def init_app(app):
    app.cli.add_command(secrets_cli)
