"""gunicorn's sync worker, answering its own errors in the service's envelope.

Some requests never reach the app: a request line over gunicorn's limit
(414), too many or too large headers (431), a line that is not HTTP (400).
gunicorn answers those itself with an HTML page; this worker sends the same
status with the JSON error envelope every other answer uses, so a client
parses one shape. gunicorn.conf.py selects it.

Such an answer carries an X-Request-ID too: a new one, since the request's
own headers could not be read. gunicorn's log lines about it (the warning
naming the error, the access line) carry the same id.
"""

import json

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


class EnvelopeWorker(SyncWorker):
    def init_process(self):
        util.write_error = write_json_error  # this worker process only
        super().init_process()

    def handle_error(self, req, client, addr, exc):
        logs.begin(logs.RequestContext(logs.request_id(None)))
        try:
            super().handle_error(req, client, addr, exc)
        finally:
            logs.end()
