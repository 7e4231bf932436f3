"""gunicorn's logs without secrets, with request ids (gunicorn.conf.py installs this logger).

gunicorn's default access line names the Basic-auth user, which is the whole
API key for a client that sends `curl -u KEY:`, and the raw request line,
which carries a key sent as `?apikey=...` (the service ignores it, but the
log would keep it). So the user name is never logged, and anything
key-shaped (`svc_live_...`, webhook secrets `whsec_...`) in any logged value
is replaced by its prefix and `[redacted]`, whatever the case of the prefix
and however it is encoded (`svc%5Flive%5F...`, `SVC_live_...`; logs.SECRET);
so are the code and state of a LinkedIn sign-in's callback (logs.SIGN_IN).

Behind nginx (deploy/nginx.conf) every request comes from the proxy, so the
line names the client the proxy reports in X-Forwarded-For instead, but
only for a request whose peer is in gunicorn's `forwarded_allow_ips` (the
proxy's address; nobody by default, see gunicorn.conf.py): gunicorn itself
never reads X-Forwarded-For, and anyone else could write any address there.

Each line ends with the request's id and the key's id and user (logs.py);
with FLASK_LOG_FORMAT=json it is one JSON object, and so are the error log's
lines and the app's, which go through the error log's handler.
"""

import ipaddress
import json
import logging
import os
import time

from gunicorn.glogging import Logger, SafeAtoms

from content_publishing import logs
from content_publishing.logs import redact

# gunicorn's default format with the user field (%(u)s) left out, and the
# request's fields at the end.
FORMAT = (
    '%(h)s - - %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'
    " request_id=%(request_id)s key_id=%(key_id)s user=%(user)s"
)


def client_address(environ, cfg):
    """The address to log: the peer, or the one a trusted proxy forwarded.

    The last X-Forwarded-For entry is the one the proxy itself added; it
    is taken only when it is an IP address, so nothing else reaches the log.
    """
    peer = environ.get("REMOTE_ADDR", "-")
    forwarded = environ.get("HTTP_X_FORWARDED_FOR")
    if not forwarded or not _trusted(peer, cfg):
        return peer
    try:
        return str(ipaddress.ip_address(forwarded.rsplit(",", 1)[-1].strip()))
    except ValueError:
        return peer


def _trusted(peer, cfg):
    """gunicorn's rule for X-Forwarded-Proto, for a TCP peer (a Unix-socket peer is not trusted)."""
    if "*" in cfg.forwarded_allow_ips:
        return True
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in network for network in cfg.forwarded_allow_networks())


class RedactedAtoms(SafeAtoms):
    def __getitem__(self, name):
        value = super().__getitem__(name)
        return redact(value) if isinstance(value, str) else value


class RedactFilter(logging.Filter):
    """For the error log: a failing request is logged with its URI."""

    def filter(self, record):
        message = record.getMessage()
        if logs.SECRET.search(message) or "linkedin/callback?" in message:
            record.msg, record.args = redact(message), ()
        return True


class RedactingLogger(Logger):
    atoms_wrapper_class = RedactedAtoms

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["h"] = client_address(environ, self.cfg)
        # The app's request, or one gunicorn answers itself (gunicorn_worker.py).
        context = environ.get(logs.ENVIRON_KEY) or logs.current()
        if context is not None:
            atoms.update(
                request_id=context.request_id,
                key_id=_dash(context.key_id),
                user=_dash(context.user),
            )
        return atoms

    def access(self, resp, req, environ, request_time):
        if self.log_format != "json":
            return super().access(resp, req, environ, request_time)
        if not self.access_log_enabled:
            return None
        atoms = self.atoms(resp, req, environ, request_time)  # not SafeAtoms: json.dumps escapes
        entry = {
            "time": logs.timestamp(time.time()),
            "level": "INFO",
            "logger": "gunicorn.access",
            "pid": os.getpid(),
            "remote_addr": atoms["h"],
            "request": atoms["r"],
            "status": int(atoms["s"]),
            "bytes": atoms["B"],
            "duration_ms": round(atoms["D"] / 1000, 3),
            "referer": _none(atoms["f"]),
            "user_agent": _none(atoms["a"]),
        }
        if "request_id" in atoms:
            entry.update(
                request_id=atoms["request_id"],
                key_id=_none(atoms["key_id"]),
                user=_none(atoms["user"]),
            )
        self.access_log.info("%s", redact(json.dumps(entry)))
        return None

    def setup(self, cfg):
        super().setup(cfg)
        self.error_log.addFilter(RedactFilter())
        # Read before the app exists; a value the app refuses stops the start (on_starting).
        self.log_format = logs.format_from_environ(os.environ)
        handler = self._get_gunicorn_handler(self.error_log)
        if handler is not None:
            logs.configure(self.log_format, self.loglevel, handler)

    def _get_user(self, environ):
        return None


def _dash(value):
    return "-" if value is None else value


def _none(value):
    """gunicorn's "-" for a missing header; JSON says null."""
    return None if value == "-" else value
