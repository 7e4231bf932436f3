"""Run the real service under gunicorn on a free loopback port.

Used by the load tests, the browser tests, the README test, and the bench
and fault scripts, so that they all start the service the same way.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def flask_cli(database, *args, env=None):
    """Run `flask --app app ARGS` against `database`; returns its stdout."""
    result = subprocess.run(
        [str(BIN / "flask"), "--app", "app", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {}), "FLASK_DATABASE": str(database)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        raise RuntimeError(f"flask {' '.join(args)} failed: {result.stderr}{result.stdout}")
    return result.stdout


def create_key(database, user="alice", scopes=None, env=None):
    from auth import SCOPES

    args = ["keys", "create", "--user", user]
    for scope in scopes or SCOPES:
        args += ["--scope", scope]
    return flask_cli(database, *args, env=env).strip().splitlines()[-1]


def wait_for(url, timeout=20.0, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer within {timeout}s")


class Server:
    """A gunicorn process serving wsgi:app with gunicorn.conf.py."""

    def __init__(self, database, workers=4, env=None, port=None, log=None, extra_args=()):
        self.database = Path(database)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            **(env or {}),
            "FLASK_DATABASE": str(database),
            "BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": str(workers),
        }
        self.log = log
        self.extra_args = list(extra_args)
        self.proc = None

    def start(self, timeout=20.0):
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", *self.extra_args, "wsgi:app"],
            cwd=ROOT,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT if self.log else subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for(self.url + "/health", timeout, self.proc)
        return self

    def stop(self, timeout=15.0):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)

    def kill(self):
        """SIGKILL the master and its workers at once."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(5)

    def worker_pids(self):
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.proc.pid)], capture_output=True, text=True
        ).stdout
        return [int(p) for p in out.split()]

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


@contextlib.contextmanager
def serve(tmp_path, workers=4, env=None, **kwargs):
    """A fresh database with the schema, and gunicorn serving it."""
    database = Path(tmp_path) / "live.sqlite"
    flask_cli(database, "init-db", env=env)
    with Server(database, workers=workers, env=env, **kwargs) as server:
        yield server
