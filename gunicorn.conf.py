"""gunicorn settings: `gunicorn -c gunicorn.conf.py wsgi:app` (what `make run` does).

Every value can be overridden with gunicorn's own flags or GUNICORN_CMD_ARGS.
The app is not preloaded, so each worker opens its own SQLite connection
after the fork.
"""

import errno
import os
import shutil
import socket
import sys
import tempfile

# The package is importable here because `make install` installs it (editable)
# into the virtualenv; gunicorn puts the working directory on sys.path only later.
from content_publishing.serving.accesslog import FORMAT, RedactingLogger
from content_publishing.serving.worker import serving

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 4))
worker_class = (
    "content_publishing.serving.worker.EnvelopeWorker"  # sync, with gunicorn's own errors as JSON
)
limit_request_line = 4094  # a longer request line is a 414 (uri_too_long)
preload_app = False
accesslog = "-"
access_log_format = FORMAT  # no user name: it would be the key of `curl -u KEY:`
# key-shaped values in logged URLs become svc_live_[redacted]; request ids;
# FLASK_LOG_FORMAT=json (serving/accesslog.py, logs.py)
logger_class = RedactingLogger
errorlog = "-"
timeout = 30
# X-Forwarded-* headers are believed only from these addresses: the proxy's
# (deploy/env.example sets 127.0.0.1 for nginx on the same host). Unset, from
# nobody: gunicorn's own default, 127.0.0.1, would let any local client of a
# loopback `make run` choose the address logged (accesslog.py) and the scheme.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "")
graceful_timeout = 10
control_socket_disable = True  # several servers (tests, bench) may run side by side


def on_starting(server):
    """Refuse to start, with one clear line, on a setting or database path that cannot work.

    Runs in the master; the only connection it opens is a short read-only
    probe of an existing file, closed before the workers are forked.
    """
    problem = _taken_address(server) or _metrics_directory(server)  # before the app is imported
    if not problem:
        from content_publishing.app import create_app
        from content_publishing.store.db import check_database

        try:
            app = create_app()
        except ValueError as e:  # settings.SettingError
            problem = str(e)
        else:
            problem = check_database(app.config) or _secrets_key(app)
    if problem:
        print(f"error: cannot start: {problem}", file=sys.stderr, flush=True)
        on_exit(server)
        sys.exit(1)


def _secrets_key(app):
    """sealing.check_key: a start without the key file that sealed what the
    database holds is refused (a short read, closed before the fork)."""
    from content_publishing import sealing
    from content_publishing.store import sealed
    from content_publishing.store.db import dispose_db

    with app.app_context():
        try:
            return sealing.check_key(
                app.config, app.instance_path, lambda: sealed.any_stored(app.config)
            )
        finally:
            dispose_db()


def when_ready(server):
    """Say where to go, once the service answers there; and, unless the
    operator set FLASK_PUBLIC_URL, hand the workers (forked after this) the
    address they actually answer at as its default (settings.py)."""
    _public_url_default(server)
    for host, port in _tcp_addresses(server):
        base = f"http://{host}:{port}"
        server.log.info(
            "serving the API at %s/functions/v1, the dashboard at %s/functions/v1/dashboard "
            "and the API docs at %s/functions/v1/docs",
            base,
            base,
            base,
        )


_SET_BY_US = []  # the FLASK_PUBLIC_URL this file set, if any (it is set again after a reload)


def _public_url_default(server):
    """FLASK_PUBLIC_URL, when not set, is the first TCP socket gunicorn
    bound, as its real port (port 0 included) reaches it from this host.
    Media URLs and the callback_url of a handoff are built from it, so that
    a service run with BIND=127.0.0.1:8001 does not send automations to
    port 8000."""
    if "FLASK_PUBLIC_URL" in os.environ and os.environ["FLASK_PUBLIC_URL"] not in _SET_BY_US:
        return
    from content_publishing.settings import bound_url

    for listener in server.LISTENERS:
        address = listener.sock.getsockname()
        if isinstance(address, tuple):
            host = f"[{address[0]}]" if listener.sock.family == socket.AF_INET6 else address[0]
            url = bound_url(f"{host}:{address[1]}")
            os.environ["FLASK_PUBLIC_URL"] = url
            _SET_BY_US.append(url)
            server.log.info("FLASK_PUBLIC_URL is not set: media and callback URLs use %s", url)
            return


def _tcp_addresses(server):
    return [a for a in server.cfg.address if isinstance(a, tuple)]


def _taken_address(server):
    """One line instead of gunicorn's five retries of 'Connection in use',
    when another program (a second `make run`) already listens there.
    Skipped when the sockets are handed over (systemd, a re-exec)."""
    if os.environ.get("LISTEN_FDS") or os.environ.get("GUNICORN_FD"):
        return None
    for host, port in _tcp_addresses(server):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, port))
            except OSError as e:
                if e.errno != errno.EADDRINUSE:
                    return None  # gunicorn will say what is wrong
                return (
                    f"{host}:{port} is already in use (another `make run`?); choose another "
                    f"address, for example: BIND={host}:{port + 1} make run"
                )
    return None


def child_exit(server, worker):
    """A worker ended (a restart, a crash): its in-progress gauge goes; its
    counters stay, or the totals would fall. One stopped for its timeout
    that did not log the request it was serving itself (killed while
    waiting in C code) has it logged here: its id, key id, user and path."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if _METRICS_ON and directory:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, directory)
    request = serving(worker)
    if getattr(worker, "aborted", False) and request is not None:
        server.log.error(
            "worker %s timed out serving %s %s",
            worker.pid,
            request["method"],
            request["path"],
            extra={k: request[k] for k in ("request_id", "key_id", "user")},
        )
    if getattr(worker, "serving", None) is not None:
        worker.serving.close()


def on_exit(server):
    if _MADE_DIRECTORY:
        shutil.rmtree(_MADE_DIRECTORY[0], ignore_errors=True)


_METRICS_ON = os.environ.get("FLASK_METRICS", "").strip().lower() in ("1", "true")
_MADE_DIRECTORY = []


def _metrics_directory(server):
    """With FLASK_METRICS=1 the workers keep their metrics in files, in
    PROMETHEUS_MULTIPROC_DIR (metrics.py): a new temporary directory unless
    it is set, removed on exit; a set one is emptied of the last run's files
    first, or their counts would be added to this run's. prometheus_client
    reads the variable once, when it is imported, so this comes first.
    (A FLASK_METRICS value other than 0/1 is refused by the settings check.)"""
    if not _METRICS_ON:
        return None
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        directory = tempfile.mkdtemp(prefix="cps-metrics-")
        _MADE_DIRECTORY.append(directory)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    elif not os.path.isdir(directory) or not os.access(directory, os.W_OK | os.X_OK):
        return f"PROMETHEUS_MULTIPROC_DIR {directory} is not a writable directory"
    else:
        for name in os.listdir(directory):
            if name.endswith(".db"):
                os.remove(os.path.join(directory, name))
    server.log.info("metrics: workers write them to %s", directory)
    return None
