"""The service's command line, `flask --app app ...`, as an operator runs it.

flask_cli() runs a command that ends (init-db, keys create/list/revoke) and
returns its output; create_key() makes an API key the way an operator would,
so tests and tools never write keys into the database behind the service's
back. FlaskCommand is a long-running command, started, stopped and killed
like gunicorn; Dispatcher is `flask --app app dispatch`.
"""

import os
import subprocess

from harness.paths import BIN, ROOT
from harness.process import Process


def flask_cli(database, *args, env=None, root=ROOT, timeout=60):
    """Run `flask --app app ARGS` against `database`; returns its stdout.
    Raises RuntimeError (with its output) if it exits non-zero."""
    result = subprocess.run(
        [str(BIN / "flask"), "--app", "app", *args],
        cwd=root,
        env={**os.environ, **(env or {}), "FLASK_DATABASE": str(database)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"flask {' '.join(args)} failed: {result.stderr}{result.stdout}")
    return result.stdout


# How init_database() and create_key() run their command: flask_cli, as an
# operator would. The test suite replaces it (tests/conftest.py) with one
# that runs the same click command inside the test process: those two are
# the setup of many tests rather than what they test, and each `flask`
# process costs about 0.4 s of CPU to start (160 of them were a sixth of
# the suite's CPU). The tools (bench, faults) keep the processes.
run_setup_command = flask_cli


def init_database(database, env=None):
    """`flask init-db`: a new database file with the schema; returns its path."""
    run_setup_command(database, "init-db", env=env)
    return database


# The scopes of README "Scopes", as a client knows them (tests/test_harness.py
# checks them against the service's own list).
SCOPES = (
    "posts:read",
    "posts:write",
    "posts:publish",
    "articles:read",
    "articles:write",
    "webhooks:manage",
    "members:manage",
)


def create_key(database, user="alice", scopes=None, env=None):
    """`flask keys create` for `user` (every scope unless given); returns the plain key."""
    args = ["keys", "create", "--user", user]
    for scope in scopes or SCOPES:
        args += ["--scope", scope]
    return run_setup_command(database, *args, env=env).strip().splitlines()[-1]


class FlaskCommand(Process):
    """A long-running `flask --app app ARGS` against `database`, ready once
    `ready_text` shows in its log (at once if None). Its output is unbuffered
    (PYTHONUNBUFFERED=1) so that a line it prints reaches the log at once."""

    def __init__(self, database, *args, env=None, log=None, ready_text=None, root=ROOT, name=None):
        super().__init__(
            [BIN / "flask", "--app", "app", *args],
            cwd=root,
            env={"PYTHONUNBUFFERED": "1", **(env or {}), "FLASK_DATABASE": str(database)},
            log=log,
            ready_text=ready_text,
            name=name or f"flask {' '.join(args)}",
        )
        self.database = database


class Dispatcher(FlaskCommand):
    """`flask --app app dispatch --name NAME`, ready when it logs that it started."""

    def __init__(self, database, name="dispatcher", env=None, log=None, root=ROOT):
        super().__init__(
            database,
            "dispatch",
            "--name",
            name,
            env=env,
            log=log,
            ready_text=f"dispatcher {name} started",
            root=root,
            name=name,
        )
