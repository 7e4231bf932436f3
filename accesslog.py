"""gunicorn's logs without secrets (gunicorn.conf.py installs this logger).

gunicorn's default access line names the Basic-auth user, which is the whole
API key for a client that sends `curl -u KEY:`, and the raw request line,
which carries a key sent as `?apikey=...` (the service ignores it, but the
log would keep it). So the user name is never logged, and anything
key-shaped (`svc_live_...`, webhook secrets `whsec_...`) in any logged value
is replaced by its prefix and `[redacted]`.
"""

import logging
import re

from gunicorn.glogging import Logger, SafeAtoms

SECRET = re.compile(r"(svc_live_|whsec_)[A-Za-z0-9+/=_%-]*")
# gunicorn's default format with the user field (%(u)s) left out.
FORMAT = '%(h)s - - %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'


def redact(text):
    return SECRET.sub(r"\1[redacted]", text)


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

    def setup(self, cfg):
        super().setup(cfg)
        self.error_log.addFilter(RedactFilter())

    def _get_user(self, environ):
        return None
