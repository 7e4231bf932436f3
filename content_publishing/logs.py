"""Request ids and the service's log lines (docs/operations.md, "Metrics and logs").

Every request gets an id: the client's `X-Request-ID` when it is 1 to 128
characters of `A-Z a-z 0-9 . _ : / + = @ -` (what tracing tools send: UUIDs,
W3C trace ids, base64), else a new UUID. Brackets, quotes, spaces and the
like are refused so that an id can never close or fake a field of a log line. The answer carries it back, the
access line names it (accesslog.py), and so does every log record made while
the request runs, with the key's id and workspace (`user`, as GET /me names
it) once auth.py knows them (never
the key). A person who quotes the id of a failed request leads straight to its
lines.

The id is taken in a WSGI wrapper rather than in a Flask hook, so that every
answer carries it, including those made before any hook runs or after one
failed; it lives in a context variable, which the logging filter reads, so
no log call has to pass it on.

`FLASK_LOG_FORMAT=json` writes each line as one JSON object; `text` (the
default) keeps gunicorn's layout with the request's fields at the end of the
first line. Both pass through `redact`, so a key or webhook secret that finds
its way into a message is written as `svc_live_[redacted]`.
"""

import contextvars
import json
import logging
import os
import re
import sys
import time


def _spelled(prefix):
    """`prefix` however a client or a log may have written it: each
    character as itself in either case, percent-encoded once or more
    (`%5F`, `%5f`, `%255F`), as `%u005F`, or backslash-escaped (`\\x5f`,
    `\\u005f`, the backslash itself perhaps escaped again, as in JSON)."""
    return "".join(
        rf"(?:{re.escape(c)}|%(?:25)*(?:u00)?{ord(c):02x}|\\+(?:x|u00){ord(c):02x})" for c in prefix
    )


# Keys (auth.py), webhook secrets and header tokens (webhooks/secrets.py), spelled as above,
# and whatever follows them that could belong to them, URL-encoded, base64
# or backslash-escaped; not once more what is already redacted (gunicorn's
# error log redacts twice). A backslash is taken only as part of an escape,
# so that the `\"` ending a quoted value in a log line is left whole. (The
# lookahead first: it lets most positions of a line be passed over at once.)
SECRET = re.compile(
    r"(?=[%\\sw])"
    rf"(?:(?P<key>{_spelled('svc_live_')})|(?P<whsec>{_spelled('whsec_')})"
    rf"|(?P<whtok>{_spelled('whtok_')}))"
    r"(?!\[redacted\])(?:[A-Za-z0-9+/=_%-]|\\+(?:x[0-9a-f]{2}|u[0-9a-f]{4}))*",
    re.IGNORECASE,
)
REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")
FORMATS = ("text", "json")
ENVIRON_KEY = "cps.request"  # the request's RequestContext, for the access line
TEXT_FORMAT = "%(asctime)s [%(process)d] [%(levelname)s] %(origin)s%(message)s%(request_fields)s"
TEXT_DATE = "[%Y-%m-%d %H:%M:%S %z]"  # gunicorn's own


# The code and state LinkedIn sends the browser back with (the sign-in's
# callback, http/connect.py): short-lived and single use, but a sign-in's
# all the same, so they stay out of every log too.
SIGN_IN = re.compile(r"(linkedin/callback\?[^\s\"]*)")
SIGN_IN_VALUE = re.compile(r"(?<=[?&])(code|state)=[^&\s\"]*", re.IGNORECASE)
INVITE_PATH = re.compile(r"(?<=/invites/)[^/?\s\"]+")  # GET /functions/v1/invites/{token}


def redact(text):
    """`text` with every key, webhook secret and header token in it written
    as `svc_live_[redacted]`, `whsec_[redacted]` or `whtok_[redacted]`,
    however it was spelled, a sign-in's code and state, and an invitation's
    token in its path, as `[redacted]`."""
    text = SECRET.sub(_redacted, text)
    if "linkedin/callback?" in text:
        text = SIGN_IN.sub(lambda m: SIGN_IN_VALUE.sub(r"\1=[redacted]", m[0]), text)
    if "/invites/" in text:
        text = INVITE_PATH.sub("[redacted]", text)
    return text


def _redacted(match):
    if match["key"] is not None:
        return "svc_live_[redacted]"
    return "whsec_[redacted]" if match["whsec"] is not None else "whtok_[redacted]"


class RequestContext:
    """What the log lines of one request share, and what it asks for."""

    __slots__ = ("request_id", "key_id", "user", "method", "path")

    def __init__(self, request_id, method=None, path=None):
        self.request_id = request_id
        self.key_id = None
        self.user = None
        self.method = method
        self.path = path


_current = contextvars.ContextVar("cps_request", default=None)
_watcher = None


def watch(callback):
    """Have callback(context, or None) called whenever the request being
    served, or what is known of it, changes: the gunicorn worker shows it to
    its master, which logs it if the worker is killed (serving/worker.py)."""
    global _watcher
    _watcher = callback


def _changed(context):
    if _watcher is not None:
        _watcher(context)


def request_id(sent):
    """The client's id when it is 1 to 128 characters of REQUEST_ID, else a new one."""
    if sent is not None and REQUEST_ID.fullmatch(sent):
        return sent
    return new_uuid()


def new_uuid():
    """str(uuid.uuid4()) in a third of its time (it runs on every request)."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # RFC 4122 variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def current():
    """The RequestContext of the request being served, or None."""
    return _current.get()


def begin(context):
    """Make `context` the current request's (serving/worker.py, for the
    answers gunicorn makes itself)."""
    _current.set(context)
    _changed(context)


def end():
    _current.set(None)
    _changed(None)


def identify(key_id, user):
    """The key's id and its workspace's name (`user` in a log line, as GET
    /me names it), once authentication knows them (auth.py)."""
    context = _current.get()
    if context is not None:
        context.key_id, context.user = key_id, user
        _changed(context)


class RequestIds:
    """WSGI wrapper of the app: the id in, X-Request-ID out, the context
    around the whole answer (work done when the answer closes, such as
    last_used_at, is still logged with it).

    An exception that leaves the app (a worker's timeout, which gunicorn
    raises as SystemExit inside it) leaves the context current: the server's
    lines about it name the request, its key and its path, and the server
    ends it (serving/worker.py)."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        context = RequestContext(
            request_id(environ.get("HTTP_X_REQUEST_ID")),
            environ.get("REQUEST_METHOD"),
            environ.get("PATH_INFO"),
        )
        environ[ENVIRON_KEY] = context
        begin(context)

        def start(status, headers, exc_info=None):
            headers.append(("X-Request-ID", context.request_id))
            return start_response(status, headers, exc_info)

        return _Body(self.app(environ, start))


class _Body:
    """The app's answer, ending the request's context when the server
    closes it (werkzeug's ClosingIterator costs as much again)."""

    __slots__ = ("body",)

    def __init__(self, body):
        self.body = body

    def __iter__(self):
        return iter(self.body)

    def close(self):
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            end()


# --- log records ---------------------------------------------------------------------------


def fields(record):
    """The request's fields of a record: from the record (`extra=`) or the context."""
    request_id = getattr(record, "request_id", None)
    if request_id is not None:
        return request_id, getattr(record, "key_id", None), getattr(record, "user", None)
    context = _current.get()
    if context is None:
        return None, None, None
    return context.request_id, context.key_id, context.user


class TextFormatter(logging.Formatter):
    def __init__(self):
        super().__init__(TEXT_FORMAT, TEXT_DATE)

    def format(self, record):
        """gunicorn's layout; the logger's name for the app's records, the
        request's fields when there is a request."""
        record.origin = "" if record.name == "gunicorn.error" else f"{record.name}: "
        request_id, key_id, user = fields(record)
        record.request_fields = (
            f" [request_id={request_id} key_id={_dash(key_id)} user={_dash(user)}]"
            if request_id
            else ""
        )
        return redact(super().format(record))


class JsonFormatter(logging.Formatter):
    """One JSON object per line; the request's fields when there is a request."""

    def format(self, record):
        entry = {
            "time": timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "message": record.getMessage(),
        }
        request_id, key_id, user = fields(record)
        if request_id:
            entry.update(request_id=request_id, key_id=key_id, user=user)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return redact(json.dumps(entry))


def timestamp(seconds):
    """RFC 3339 in UTC with milliseconds: 2026-01-31T12:00:00.123Z."""
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return f"{whole}.{int(seconds % 1 * 1000):03d}Z"


def _dash(value):
    return "-" if value is None else value


def formatter(log_format):
    return JsonFormatter() if log_format == "json" else TextFormatter()


def format_from_environ(environ):
    """FLASK_LOG_FORMAT as the app reads it (JSON first, as from_prefixed_env),
    for code that runs before the app exists (gunicorn's logger). A value
    that is neither format counts as text here; settings.py refuses it."""
    raw = environ.get("FLASK_LOG_FORMAT", "text")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return value if value in FORMATS else "text"


def configure(log_format, level=logging.INFO, handler=None):
    """Write the records of every logger without handlers of its own (the
    app's) through `handler` (default: stderr) in `log_format`: the
    dispatcher's lines, and in gunicorn those of the workers, through its
    error log's handler."""
    handler = handler or logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    root = logging.getLogger()
    for old in list(root.handlers):
        if getattr(old, "_cps", False):
            root.removeHandler(old)
    handler._cps = True
    root.addHandler(handler)
    root.setLevel(level)
