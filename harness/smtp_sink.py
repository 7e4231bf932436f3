"""An SMTP server on 127.0.0.1 built on aiosmtpd, for the notification
tests: it keeps every message it accepts (email.message.Message objects
with their envelope), may ask for a login (AUTH PLAIN or LOGIN, without
TLS on loopback), and may answer the next messages with a temporary
failure (451), as a busy mail server does."""

import asyncio
import email
import email.policy
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from harness.server import free_port


class SmtpSink:
    """`with SmtpSink() as sink:`; `sink.url` (for FLASK_SMTP_URL),
    `sink.messages`, `sink.wait_for(check)`; `sink.refuse(n)`: the next n
    messages get a 451; `delay`: each message is accepted that much later."""

    def __init__(self, user=None, password=None, delay=0.0):
        self.port = free_port()
        self.delay = delay  # seconds before each message is accepted (a slow server)
        self.user, self.password = user, password
        self.messages = []
        self.refused = 0
        self.logins = []  # (user, accepted)
        self._refuse = 0
        self.lock = threading.Lock()
        self.controller = None
        credentials = f"{user}:{password}@" if user else ""
        self.url = f"smtp://{credentials}127.0.0.1:{self.port}"

    def refuse(self, count):
        with self.lock:
            self._refuse = count

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        ok = auth_data.login.decode() == self.user and auth_data.password.decode() == self.password
        with self.lock:
            self.logins.append((auth_data.login.decode(), ok))
        return AuthResult(success=ok, handled=False)  # aiosmtpd answers 235 or 535 itself

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        with self.lock:
            if self._refuse > 0:
                self._refuse -= 1
                self.refused += 1
                return "451 4.3.0 try again later"
            message = email.message_from_bytes(envelope.content, policy=email.policy.default)
            message.envelope_to = list(envelope.rcpt_tos)
            self.messages.append(message)
        return "250 kept"

    def to(self, address):
        """The messages whose envelope went to `address`."""
        with self.lock:
            return [m for m in self.messages if address in m.envelope_to]

    def wait_for(self, check, timeout=15.0, what="mail"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                found = check(list(self.messages))
            if found:
                return found
            time.sleep(0.05)
        raise TimeoutError(f"{what} not received within {timeout} s: {self.messages}")

    def __enter__(self):
        options = {}
        if self.user:
            options = {
                "authenticator": self._authenticate,
                "auth_require_tls": False,
            }
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port, **options)
        self.controller.start()
        return self

    def __exit__(self, *exc):
        self.controller.stop()
