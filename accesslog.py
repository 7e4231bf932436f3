"""gunicorn's logs without secrets (gunicorn.conf.py installs this logger).

gunicorn's default access line names the Basic-auth user, which is the whole
API key for a client that sends `curl -u KEY:`, and the raw request line,
which carries a key sent as `?apikey=...` (the service ignores it, but the
log would keep it). So the user name is never logged, and anything
key-shaped (`svc_live_...`, webhook secrets `whsec_...`) in any logged value
is replaced by its prefix and `[redacted]`.

Behind nginx (deploy/nginx.conf) every request comes from the proxy, so the
line names the client the proxy reports in X-Forwarded-For instead, but
only for a request whose peer is in gunicorn's `forwarded_allow_ips` (the
proxy's address; nobody by default, see gunicorn.conf.py): gunicorn itself
never reads X-Forwarded-For, and anyone else could write any address there.
"""

import ipaddress
import logging
import re

from gunicorn.glogging import Logger, SafeAtoms

SECRET = re.compile(r"(svc_live_|whsec_)[A-Za-z0-9+/=_%-]*")
# gunicorn's default format with the user field (%(u)s) left out.
FORMAT = '%(h)s - - %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'


def redact(text):
    return SECRET.sub(r"\1[redacted]", text)


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
        if SECRET.search(message):
            record.msg, record.args = redact(message), ()
        return True


class RedactingLogger(Logger):
    atoms_wrapper_class = RedactedAtoms

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["h"] = client_address(environ, self.cfg)
        return atoms

    def setup(self, cfg):
        super().setup(cfg)
        self.error_log.addFilter(RedactFilter())

    def _get_user(self, environ):
        return None
