"""gunicorn's sync worker, answering its own errors in the service's envelope.

Some requests never reach the app: a request line over gunicorn's limit
(414), too many or too large headers (431), a line that is not HTTP (400).
gunicorn answers those itself with an HTML page; this worker sends the same
status with the JSON error envelope every other answer uses, so a client
parses one shape. gunicorn.conf.py selects it.

Such an answer carries an X-Request-ID too: a new one, since the request's
own headers could not be read. gunicorn's log lines about it (the warning
naming the error, the access line) carry the same id.

A worker that takes longer than gunicorn's timeout is stopped by its
master: SIGABRT, which gunicorn raises as SystemExit inside the request,
then SIGKILL if that did not end it (a worker waiting in C code, on an
SQLite lock, never runs Python again). In the first case its own lines
("Error handling request", the access line) name the request it was
serving: its id, key id, user and path (logs.RequestIds leaves that context
current for them). For the second, the worker keeps what it is serving in
memory it shares with its master (`serving`, made before the fork); the
master logs it when it reaps the worker (gunicorn.conf.py, child_exit).
"""

import json
import mmap

from gunicorn import util
from gunicorn.workers.sync import SyncWorker

from content_publishing import errors, logs


def write_json_error(sock, status, reason, message):
    body = json.dumps(
        {
            "error": {
                "code": errors.CODES.get(status, "error"),
                "message": f"{reason}: {message}" if message else reason,
                "details": {},
            }
        }
    ).encode("utf-8")
    context = logs.current()
    request_id = context.request_id if context is not None else logs.request_id(None)
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        f"X-Content-Type-Options: nosniff\r\nX-Request-ID: {request_id}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


SERVING_BYTES = 4096
SERVING_FIELDS = ("request_id", "key_id", "user", "method", "path")


class EnvelopeWorker(SyncWorker):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Made in the master before the fork, so both processes see it.
        self.serving = mmap.mmap(-1, SERVING_BYTES)

    def init_process(self):
        util.write_error = write_json_error  # this worker process only
        logs.watch(self.show_serving)
        super().init_process()

    def handle_error(self, req, client, addr, exc):
        """gunicorn's answer to an error: a request it could not parse gets a
        new id; one the app was serving when it failed (a timeout) keeps its own."""
        logs.begin(logs.current() or logs.RequestContext(logs.request_id(None)))
        try:
            super().handle_error(req, client, addr, exc)
        finally:
            logs.end()

    def show_serving(self, context):
        """What this worker serves now, where its master can read it (the
        length last, so that a worker killed mid-write leaves the last one)."""
        if context is None:
            self.serving[:2] = b"\0\0"
            return
        c = context
        key_id, user = ("" if c.key_id is None else c.key_id), (c.user or "")
        text = f"{c.request_id}\t{key_id}\t{user}\t{c.method}\t{c.path}".encode()
        text = text[: SERVING_BYTES - 2]
        self.serving[2 : 2 + len(text)] = text
        self.serving[:2] = len(text).to_bytes(2, "big")


def serving(worker):
    """{request_id, key_id, user, method, path} of what `worker` was serving
    when it stopped, or None (in the master)."""
    memory = getattr(worker, "serving", None)
    if memory is None or memory.closed:
        return None
    length = int.from_bytes(memory[:2], "big")
    if not length:
        return None
    values = memory[2 : 2 + length].decode("utf-8", "replace").split("\t")
    return {name: value or None for name, value in zip(SERVING_FIELDS, values, strict=False)}
