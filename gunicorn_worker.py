"""gunicorn's sync worker, answering its own errors in the service's envelope.

Some requests never reach the app: a request line over gunicorn's limit
(414), too many or too large headers (431), a line that is not HTTP (400).
gunicorn answers those itself with an HTML page; this worker sends the same
status with the JSON error envelope every other answer uses, so a client
parses one shape. gunicorn.conf.py selects it.
"""

import json

from gunicorn import util
from gunicorn.workers.sync import SyncWorker

import errors


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
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


class EnvelopeWorker(SyncWorker):
    def init_process(self):
        util.write_error = write_json_error  # this worker process only
        super().init_process()
