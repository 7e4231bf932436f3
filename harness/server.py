"""gunicorn serving the service (or any WSGI app) on a free loopback port.

Tests, `python -m bench` and `python -m faults` all start the service through
Gunicorn so that they run it exactly as production does: `gunicorn -c
gunicorn.conf.py wsgi:app` from the project root, settings from FLASK_*
environment variables, bound to 127.0.0.1 only.
"""

import contextlib
import socket
from pathlib import Path

from harness.flask_cli import init_database
from harness.http_client import Client
from harness.paths import BIN, ROOT
from harness.process import Process


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gunicorn(Process):
    """gunicorn with the project's gunicorn.conf.py.

    database: FLASK_DATABASE; app: WSGI app spec (bench serves
    bench.ceiling_app:app too); root: the checkout to serve (another one for
    an A/B run); workers: WEB_CONCURRENCY; env: extra environment (FLASK_*
    settings); log: file for gunicorn's output (access and error log);
    extra_args: more gunicorn options, before the app spec; inherit_env=False:
    `env` and the variables above are the whole environment.
    """

    def __init__(
        self,
        database,
        *,
        app="wsgi:app",
        root=ROOT,
        workers=4,
        env=None,
        log=None,
        extra_args=(),
        port=None,
        inherit_env=True,
        name="gunicorn",
    ):
        self.database = database if str(database).startswith("postgres") else Path(database)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        env = {
            **(env or {}),
            "FLASK_DATABASE": str(self.database),
            "BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": str(workers),
        }
        argv = [BIN / "gunicorn", "-c", "gunicorn.conf.py", *extra_args, app]
        super().__init__(argv, cwd=root, env=env, inherit_env=inherit_env, log=log, name=name)

    def ready(self):
        with Client(self.url, timeout=1.0) as client:
            return client.get("/health").status == 200

    def worker_pids(self):
        return self.child_pids()


@contextlib.contextmanager
def serve(directory, workers=4, env=None, database=None, **kwargs):
    """A fresh database (`live.sqlite` in `directory`, or `database`, a
    PostgreSQL URL of a fresh schema), its schema applied with `flask
    init-db`, and gunicorn serving it; stopped on exit."""
    database = init_database(database or Path(directory) / "live.sqlite", env=env)
    with Gunicorn(database, workers=workers, env=env, **kwargs) as server:
        yield server
