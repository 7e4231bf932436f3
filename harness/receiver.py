"""A webhook receiver on 127.0.0.1 for the tests, the bench and the faults.

It verifies every delivery's signature with the `standardwebhooks` package,
as a user's receiver would, records what arrived, and answers as scripted:
a status (200, 500, 410, 429 with Retry-After, a redirect), a delay or a
body dripped a byte at a time (past the sender's timeout), or no server at
all while it is "down".
"""

import contextlib
import json
import socket
import threading
import time
import uuid

from standardwebhooks import Webhook, WebhookVerificationError

from harness.loopback import LoopbackServer, QuietHandler
from harness.server import free_port


class Arrival:
    """One request as it arrived."""

    def __init__(self, headers, body, secrets):
        self.at = time.time()
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body
        self.secrets = secrets
        self.webhook_id = self.headers.get("webhook-id")
        self._verified_with = self._json = None

    @property
    def verified_with(self):
        """The secrets (of those known when it arrived) whose signature it
        carries, checked on first use so that receiving stays fast."""
        if self._verified_with is None:
            self._verified_with = [s for s in self.secrets if _verifies(s, self.body, self.headers)]
        return self._verified_with

    @property
    def json(self):
        if self._json is None:
            try:
                self._json = json.loads(self.body)
            except ValueError:
                self._json = False
        return self._json or None

    @property
    def type(self):
        return (self.json or {}).get("type")

    @property
    def signatures(self):
        return self.headers.get("webhook-signature", "").split()

    def __repr__(self):
        return f"<Arrival {self.type} {self.webhook_id} verified={len(self.verified_with)}>"


def _verifies(secret, body, headers):
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
        return True
    except WebhookVerificationError:
        return False


class Answer:
    """What the receiver answers: status, headers, body, after `delay` seconds;
    with `drip`, the body goes out a byte at a time, `drip` seconds apart."""

    def __init__(self, status=200, headers=None, body=b"ok", delay=0.0, drip=0.0):
        self.status, self.headers, self.body, self.delay = status, headers or {}, body, delay
        self.drip = drip


class Receiver(LoopbackServer):
    """Start with `with Receiver(secrets) as r:`; `r.url`; `r.arrivals`.

    `script(arrival)` returns the Answer for each request (default: 200 at
    once). `secrets` may grow later (a rotation): every arrival records which
    of them verify it.
    """

    def __init__(self, secrets=(), script=None, port=None):
        self.secrets = list(secrets)
        self.script = script or (lambda arrival: Answer())
        self.port = port or free_port()
        # A path of its own: a port can be reused by a later receiver, and a
        # delivery still meant for the earlier one must not count here.
        self.path = f"/hook/{uuid.uuid4().hex[:12]}"
        self.url = f"http://127.0.0.1:{self.port}{self.path}"
        self.arrivals = []
        self.lock = threading.Lock()

    def start(self):
        receiver = self

        class Handler(QuietHandler):
            def setup(self):
                super().setup()
                # The status line, headers and body go out in separate writes;
                # with Nagle's algorithm each answer would wait ~40 ms for the
                # sender's delayed ACK, as no real web server makes it wait.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8")
                if self.path != receiver.path:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                arrival = Arrival(dict(self.headers), body, list(receiver.secrets))
                with receiver.lock:
                    receiver.arrivals.append(arrival)
                answer = receiver.script(arrival)
                if answer.delay:
                    time.sleep(answer.delay)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    if not answer.drip:
                        self.wfile.write(answer.body)
                    for i in range(len(answer.body) if answer.drip else 0):
                        self.wfile.write(answer.body[i : i + 1])
                        self.wfile.flush()
                        time.sleep(answer.drip)

        return self.serve(Handler)

    def of_type(self, event_type):
        with self.lock:
            return [a for a in self.arrivals if a.type == event_type]

    def wait_for(self, predicate, timeout=15.0, what="arrivals"):
        """Wait until predicate(arrivals) is true; returns the arrivals."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                arrivals = list(self.arrivals)
            if predicate(arrivals):
                return arrivals
            time.sleep(0.02)
        raise TimeoutError(f"{what} did not arrive within {timeout} s: {self.arrivals[-10:]}")
