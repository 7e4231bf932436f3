"""gunicorn settings: `gunicorn -c gunicorn.conf.py wsgi:app` (what `make run` does).

Every value can be overridden with gunicorn's own flags or GUNICORN_CMD_ARGS.
The app is not preloaded, so each worker opens its own SQLite connection
after the fork.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # gunicorn adds it only later
from accesslog import FORMAT, RedactingLogger

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 4))
worker_class = "gunicorn_worker.EnvelopeWorker"  # sync, with gunicorn's own errors as JSON
limit_request_line = 4094  # a longer request line is a 414 (uri_too_long)
preload_app = False
accesslog = "-"
access_log_format = FORMAT  # no user name: it would be the key of `curl -u KEY:`
logger_class = RedactingLogger  # key-shaped values in logged URLs become svc_live_[redacted]
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
    from app import create_app
    from store.db import check_database

    try:
        config = create_app().config
    except ValueError as e:  # settings.SettingError
        problem = str(e)
    else:
        problem = check_database(config)
    if problem:
        print(f"error: cannot start: {problem}", file=sys.stderr, flush=True)
        sys.exit(1)
