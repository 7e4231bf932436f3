"""Docker on this machine, for `make test-docker` (tests/test_docker.py).

`python -m harness.docker install` (what `make test-docker` runs first)
makes sure of three things, and prints what it did and the time it took:

- the engine and compose: Debian's `docker.io` (and `docker-compose`, when
  the docker CLI has no `compose` plugin) installed with apt-get when
  missing, which needs root;
- the base images the Dockerfile and compose.yaml name. A registry is tried
  first. Where none answers (this machine kind reaches none), each is built
  once as a stand-in from Debian packages, tagged with the same name:
  `python:3.11-slim-bookworm` as a Debian bookworm root (debootstrap) with
  Debian's Python 3.11, `postgres:15` as the same root with Debian's
  `postgresql-15` and an entrypoint that does what the official image's does
  with the settings compose.yaml gives it. The stand-ins are saved in the
  cache folder (CACHE) and loaded from there when the engine lacks them.
  They exist only for machines without a registry: a user's `docker compose
  up` pulls the official images.

`Engine` is a dockerd for the tests: the one running, or one started with
`--bridge=none --iptables=false --ip-forward=false` (no network of its own:
every container runs with host networking, on 127.0.0.1) and stopped at the
end. `Compose` is one compose project; `docker()` runs the docker CLI.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CACHE = Path(
    os.environ.get(
        "CPS_DOCKER_CACHE",
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        / "content-publishing"
        / "docker",
    )
)
PYTHON_IMAGE = "python:3.11-slim-bookworm"  # the Dockerfile's FROM
POSTGRES_IMAGE = "postgres:15"  # compose.yaml's
STANDIN_LABEL = "content-publishing.stand-in"  # set on the stand-ins only
BOOKWORM_ROOT = "content-publishing-stand-in/bookworm:minbase"
LOCAL_CA = Path(
    "/usr/local/share/ca-certificates"
)  # certificates this host trusts besides Debian's


class DockerError(RuntimeError):
    """A docker command failed; the message holds what it printed."""


def docker(*args, check=True, timeout=600, input=None, capture=True):
    """Run `docker ARGS`; the CompletedProcess (text)."""
    done = subprocess.run(
        ["docker", *map(str, args)],
        capture_output=capture,
        text=True,
        timeout=timeout,
        input=input,
    )
    if check and done.returncode != 0:
        output = (done.stdout or "") + (done.stderr or "")
        raise DockerError(f"docker {' '.join(map(str, args))} exited {done.returncode}:\n{output}")
    return done


def compose_command():
    """The compose CLI this machine has: `docker compose` (v2), else
    Debian's `docker-compose` (v1.29, which reads the same compose.yaml)."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def _dockerd():
    return shutil.which("dockerd") or (
        "/usr/sbin/dockerd" if Path("/usr/sbin/dockerd").exists() else None
    )


def _apt_install(packages, out):
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RuntimeError(
            f"{', '.join(packages)} missing, and installing them needs root and apt-get: "
            f"apt-get install -y {' '.join(packages)}"
        )
    print(f"apt-get install {' '.join(packages)}", file=out, flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", *packages],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def install_tools(out=sys.stdout):
    """docker.io, a compose, and (for the stand-ins) debootstrap."""
    missing = []
    if not _dockerd() or not shutil.which("docker"):
        missing.append("docker.io")
    if compose_command() is None:
        missing.append("docker-compose")
    if missing:
        _apt_install(missing, out)


# ------------------------------------------------------------------ the engine


def engine_answers():
    return (
        shutil.which("docker") is not None
        and docker("info", check=False, timeout=30).returncode == 0
    )


class Engine:
    """The running dockerd, or one started here and stopped by stop().

    `started` is true when this object started it: only then does stop()
    end it (SIGTERM, which stops its containers and its containerd)."""

    def __init__(self, log=None):
        self.log = Path(log) if log else CACHE / "dockerd.log"
        self.process = None

    @property
    def started(self):
        return self.process is not None

    def start(self, timeout=60):
        if engine_answers():
            return self
        dockerd = _dockerd()
        if dockerd is None:
            raise RuntimeError("dockerd is not installed: python -m harness.docker install")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [dockerd, "--bridge=none", "--iptables=false", "--ip-forward=false"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not engine_answers():
            if self.process.poll() is not None:
                raise RuntimeError(f"dockerd exited {self.process.returncode}; see {self.log}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"dockerd did not answer within {timeout} s; see {self.log}")
            time.sleep(0.25)
        return self

    def stop(self, timeout=60):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


# ------------------------------------------------------------------ images


def image(name):
    """`docker image inspect` of `name`, or None when the engine lacks it."""
    done = docker("image", "inspect", name, check=False)
    return json.loads(done.stdout)[0] if done.returncode == 0 else None


def is_stand_in(name):
    found = image(name)
    return bool(found and (found["Config"].get("Labels") or {}).get(STANDIN_LABEL))


def _saved(name):
    return CACHE / (name.replace(":", "_").replace("/", "_") + ".tar")


PYTHON_STANDIN = f"""\
FROM {BOOKWORM_ROOT}
RUN apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
      python3 python3-venv python-is-python3 ca-certificates netbase tzdata >/dev/null \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
ENV LANG=C.UTF-8
LABEL {STANDIN_LABEL}="{PYTHON_IMAGE} from Debian bookworm's python3 (harness/docker.py)"
CMD ["python3"]
"""

# The official image's entrypoint, for what compose.yaml uses of it: run as
# root, it makes PGDATA the postgres user's and runs again as that user; on
# an empty PGDATA it creates the cluster with POSTGRES_USER, the password of
# POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE (scram-sha-256 from any host)
# and the database POSTGRES_DB; then it runs postgres, listening on every
# address (PGPORT, as the official image, moves the port).
POSTGRES_ENTRYPOINT = r"""#!/bin/sh
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password="${POSTGRES_PASSWORD:-}"
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then password="$(cat "$POSTGRES_PASSWORD_FILE")"; fi
  if [ -z "$password" ]; then
    echo "error: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$password" > "$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 -q --username="$user" --dbname=postgres -c "CREATE DATABASE \"$db\""
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "PostgreSQL init process complete; ready for start up."
fi
exec "$@"
"""

POSTGRES_STANDIN = f"""\
FROM {BOOKWORM_ROOT}
RUN mkdir -p /etc/postgresql-common \\
 && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf \\
 && apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
      postgresql-15 >/dev/null \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 755 /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
LABEL {STANDIN_LABEL}="{POSTGRES_IMAGE} from Debian bookworm's postgresql-15 (harness/docker.py)"
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
"""


def _bookworm_root(out):
    """A Debian bookworm root (debootstrap's minbase) as an image, once."""
    if image(BOOKWORM_ROOT):
        return
    tarball = CACHE / "bookworm-minbase.tar"
    if not tarball.exists():
        if not shutil.which("debootstrap"):
            _apt_install(["debootstrap"], out)
        print("debootstrap: a Debian bookworm root (about 2 minutes)", file=out, flush=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
            root = Path(tmp) / "root"
            subprocess.run(
                ["debootstrap", "--variant=minbase", "bookworm", str(root)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            _slim(root)
            partial = tarball.with_suffix(".partial")
            subprocess.run(["tar", "-C", str(root), "-cf", str(partial), "."], check=True)
            partial.rename(tarball)
    with open(tarball, "rb") as data:
        subprocess.run(
            ["docker", "import", "-", BOOKWORM_ROOT],
            stdin=data,
            check=True,
            stdout=subprocess.DEVNULL,
        )


# What Debian's own slim images leave out (debuerreotype's --slimify):
# documentation, manual pages and translations, now and in every later
# apt-get install.
SLIM = """\
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
"""


def _slim(root):
    (root / "etc/dpkg/dpkg.cfg.d/docker-slim").write_text(SLIM)
    for folder in ("usr/share/man", "usr/share/groff", "usr/share/info", "usr/share/lintian"):
        shutil.rmtree(root / folder, ignore_errors=True)
    for path in (root / "usr/share/doc").glob("*/*"):
        if path.name != "copyright":
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for path in (root / "usr/share/locale").glob("*"):
        if path.name != "locale.alias":
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    for folder in ("var/cache/apt", "var/lib/apt/lists", "var/log"):
        for path in (root / folder).rglob("*"):
            if path.is_file():
                path.unlink()


def _build_stand_in(name, dockerfile, files, out):
    _bookworm_root(out)
    print(f"{name}: building a stand-in from Debian packages", file=out, flush=True)
    with tempfile.TemporaryDirectory() as context:
        context = Path(context)
        (context / "Dockerfile").write_text(dockerfile)
        (context / "ca").mkdir()
        for target, content in files.items():
            path = context / target
            if isinstance(content, Path):
                shutil.copy(content, path)
            else:
                path.write_text(content)
        docker("build", "--network", "host", "-q", "-t", name, str(context), timeout=1800)


def _local_certificates():
    """The CA certificates this host added to Debian's (a proxy's, say), so
    that pip in the stand-in trusts what the host's pip trusts."""
    if not LOCAL_CA.is_dir():
        return {}
    return {f"ca/{path.name}": path for path in LOCAL_CA.glob("*.crt")}


STAND_INS = {
    PYTHON_IMAGE: (PYTHON_STANDIN, _local_certificates),
    POSTGRES_IMAGE: (POSTGRES_STANDIN, lambda: {"docker-entrypoint.sh": POSTGRES_ENTRYPOINT}),
}


def base_images(out=sys.stdout):
    """Each base image present: as it was, loaded from the cache, pulled, or
    built as a stand-in (then saved to the cache)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    for name, (dockerfile, files) in STAND_INS.items():
        if image(name):
            continue
        saved = _saved(name)
        if saved.exists():
            docker("load", "-q", "-i", saved, timeout=600)
            print(f"{name}: loaded the stand-in saved in {saved}", file=out, flush=True)
            continue
        if docker("pull", "-q", name, check=False, timeout=600).returncode == 0:
            print(f"{name}: pulled", file=out, flush=True)
            continue
        _build_stand_in(name, dockerfile, files(), out)
        docker("save", "-o", saved, name, timeout=600)
        print(f"{name}: stand-in built and saved in {saved}", file=out, flush=True)


def install(out=sys.stdout):
    """The tools, then the base images (with a dockerd for as long as it takes)."""
    started = time.monotonic()
    install_tools(out)
    with Engine():
        base_images(out)
    print(f"docker: ready in {time.monotonic() - started:.0f} s", file=out, flush=True)


# ------------------------------------------------------------------ compose


class Compose:
    """One compose project: `files` in order, `project` its name, run from
    `directory` (where its relative paths point)."""

    def __init__(self, project, files, directory, env=None):
        self.project = project
        self.files = [Path(f) for f in files]
        self.directory = Path(directory)
        self.env = {**os.environ, **(env or {})}
        self.command = compose_command()
        if self.command is None:
            raise RuntimeError("no docker compose here: python -m harness.docker install")

    def run(self, *args, check=True, timeout=300, stdin=None):
        """`compose ARGS`; `stdin` (bytes) is piped in, and the output is
        then bytes too (`exec -T postgres pg_restore` of a dump)."""
        argv = [*self.command, "-p", self.project]
        for file in self.files:
            argv += ["-f", str(file)]
        done = subprocess.run(
            [*argv, *map(str, args)],
            cwd=self.directory,
            env=self.env,
            capture_output=True,
            text=stdin is None,
            input=stdin,
            timeout=timeout,
        )
        if check and done.returncode != 0:
            output = done.stdout + done.stderr
            if isinstance(output, bytes):
                output = output.decode(errors="replace")
            raise DockerError(
                f"compose {' '.join(map(str, args))} exited {done.returncode}:\n{output}"
            )
        return done

    def container(self, service):
        """The id of `service`'s container ("" when it has none)."""
        return self.run("ps", "-q", service).stdout.strip()

    def state(self, service):
        """`docker inspect`'s State of the service's container, or None."""
        container = self.container(service)
        if not container:
            return None
        return json.loads(docker("inspect", container).stdout)[0]["State"]

    def logs(self, service):
        container = self.container(service)
        if not container:
            return ""
        done = docker("logs", container, check=False)
        return done.stdout + done.stderr

    def wait_healthy(self, service, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            state = self.state(service)
            if state and state.get("Health", {}).get("Status") == "healthy":
                return state
            if state and state["Status"] == "exited":
                raise DockerError(f"{service} exited {state['ExitCode']}:\n{self.logs(service)}")
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{service} not healthy within {timeout} s:\n{self.logs(service)}"
                )
            time.sleep(0.5)

    def wait_exited(self, service, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            state = self.state(service)
            if state and state["Status"] == "exited":
                return state
            if time.monotonic() > deadline:
                raise TimeoutError(f"{service} still running after {timeout} s")
            time.sleep(0.25)

    def down(self):
        """Containers, networks and volumes of the project, removed."""
        with contextlib.suppress(DockerError, subprocess.TimeoutExpired):
            self.run("down", "-v", "--remove-orphans", "-t", "10", timeout=180)


if __name__ == "__main__":
    if sys.argv[1:] == ["install"]:
        install()
    elif sys.argv[1:] == ["where"]:
        print(CACHE)
    else:
        sys.exit("usage: python -m harness.docker install|where")
