"""The container's entrypoint: `python -m content_publishing.cli.container CMD...`.

The image (Dockerfile) starts every command through here: gunicorn (its
default command), `flask dispatch` (the dispatcher's), or any `flask ...`.
Before it hands over (exec, so that the command is the container's process
and gets its signals), it refuses with one `error: cannot start: ...` line,
and exit status 1, what would otherwise fail later or with a traceback:

- a setting that cannot work, as the service's own start does
  (settings.py); a secrets key file that is missing (a compose secret whose
  file is not on the host) is named, with how to make one;
- a data folder (/data, the instance folder) that this user cannot write,
  such as a volume owned by root: named, with the command that fixes it;
- a PostgreSQL server that does not answer: waited for, for up to
  DATABASE_WAIT_SECONDS (default 60), saying so once, since in a compose
  stack the database may still be starting.

Before gunicorn only, it then brings the database to this code's schema
(`flask init-db`, idempotent, once whichever container starts first) and
makes the demo key if the database has no key, printing it in the log the
one time it is made.

`--health` is the image's HEALTHCHECK: GET /health at the address BIND
names, with the standard library alone, so that a probe every few seconds
costs no import of the app.
"""

import os
import sys
import tempfile
import time
import urllib.request

WAIT_VARIABLE = "DATABASE_WAIT_SECONDS"
DEFAULT_WAIT = 60
SECRET_HELP = (
    "create it beside compose.yaml, for example: python3 -c 'import base64, os; "
    "print(base64.urlsafe_b64encode(os.urandom(32)).decode())' > secrets/secrets_key "
    '(docs/operations.md, "Containers")'
)


class Refusal(Exception):
    """Why the container cannot start: one line."""


def main(argv):
    if argv == ["--health"]:
        return health()
    if not argv:
        print("usage: python -m content_publishing.cli.container COMMAND [ARG...]", file=sys.stderr)
        return 2
    try:
        prepare(serving=os.path.basename(argv[0]) == "gunicorn")
    except Refusal as refusal:
        print(f"error: cannot start: {refusal}", file=sys.stderr, flush=True)
        return 1
    sys.stdout.flush()
    os.execvp(argv[0], argv)


def prepare(serving):
    from content_publishing.app import create_app

    try:
        app = create_app()
    except ValueError as e:  # settings.SettingError
        raise Refusal(_with_help(str(e))) from None
    writable(os.path.realpath(app.instance_path))
    database = app.config["DATABASE"]
    if "://" not in database:
        writable(os.path.dirname(os.path.realpath(database)))
    wait_for_database(app.config)
    if serving:
        with app.app_context():
            migrate_and_greet()


def _with_help(problem):
    """A secrets key file that cannot be read is most often a compose secret
    whose file was not made: say how to make it."""
    if not problem.startswith("FLASK_SECRETS_KEY_FILE cannot be read"):
        return problem
    if "Is a directory" in problem:  # where the file was missing, compose v1 made a folder
        return (
            f"{problem}: remove the folder made in its place (rmdir secrets/secrets_key), "
            f"then {SECRET_HELP}"
        )
    return f"{problem}: {SECRET_HELP}"


def writable(path):
    """Refuse a folder this user cannot create files in, naming the fix."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=path)
    except FileNotFoundError:
        raise Refusal(f"{path} does not exist: mount a volume there (-v cps-data:{path})") from None
    except OSError as e:
        raise Refusal(_unwritable(path, e)) from None
    os.close(fd)
    os.unlink(probe)


def _unwritable(path, error):
    uid, gid = os.getuid(), os.getgid()
    try:
        owner = f"owned by uid {os.stat(path).st_uid}"
    except OSError:
        owner = "not readable"
    return (
        f"{path} is not writable by this container's user (uid {uid}): it is {owner} "
        f"({error.strerror}). Give it to uid {uid}: for a named volume, "
        f"docker run --rm -u 0 -v VOLUME:{path} --entrypoint chown IMAGE -R {uid}:{gid} {path}; "
        f"for a host folder, chown -R {uid}:{gid} FOLDER on the host"
    )


def wait_for_database(config):
    """None once the database can serve; PostgreSQL that does not answer
    yet is waited for, up to DATABASE_WAIT_SECONDS."""
    from content_publishing.store.db import check_database, describe

    limit = _wait_limit()
    started = time.monotonic()
    said = False
    while True:
        problem = check_database(config)
        if problem is None or not problem.startswith("cannot reach PostgreSQL"):
            break
        waited = time.monotonic() - started
        if waited >= limit:
            raise Refusal(f"{problem}, still after waiting {limit:g} s ({WAIT_VARIABLE})")
        if not said:
            print(
                f"waiting for PostgreSQL at {describe(config)}, for up to {limit:g} s: {problem}",
                flush=True,
            )
            said = True
        time.sleep(min(0.5, max(0.0, limit - waited)))
    if problem:
        raise Refusal(problem)
    if said:
        print(f"PostgreSQL answered after {time.monotonic() - started:.1f} s", flush=True)


def _wait_limit():
    text = os.environ.get(WAIT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_WAIT
    try:
        limit = float(text)
    except ValueError:
        limit = -1
    if not limit >= 0:
        raise Refusal(f"{WAIT_VARIABLE} must be a number of seconds, 0 or more, not {text!r}")
    return limit


def migrate_and_greet():
    """init-db's work, then the demo key if no key exists (in an app context)."""
    from content_publishing import timestamps
    from content_publishing.auth import SCOPES, display_prefix, generate_key, hash_key
    from content_publishing.store import keys as key_store
    from content_publishing.store.db import backend, init_db, transaction
    from content_publishing.store.versions import MigrationError

    try:
        found, steps = init_db()
    except MigrationError as e:
        raise Refusal(f"{e}. Nothing was changed.") from None
    where = backend().describe()
    if found == 0:
        print(f"{where}: created at schema version {steps[-1].version}")
    elif steps:
        print(f"{where}: migrated from schema version {found} to {steps[-1].version}")
    else:
        print(f"Database ready: {where}")
    key = generate_key()
    with transaction():
        key_id = key_store.create_first_key(
            "demo", hash_key(key), display_prefix(key), SCOPES, timestamps.now_text()
        )
    if key_id is not None:
        print(
            f"Created demo key {key_id} for user demo with every scope. It is not shown again:\n"
            f"{key}",
            flush=True,
        )


def health():
    """0 when /health answers 200 at BIND's address, else 1 (HEALTHCHECK)."""
    host, _, port = os.environ.get("BIND", "0.0.0.0:8000").rpartition(":")
    host = host.strip("[]")
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/health"
    try:
        with urllib.request.urlopen(url, timeout=4) as answer:
            return 0 if answer.status == 200 else 1
    except OSError as e:
        print(f"{url}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
