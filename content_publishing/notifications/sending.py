"""Sending notifications, in the dispatcher process: email over SMTP
(FLASK_SMTP_URL) and the workspace's chat webhook.

Each of NOTIFY_WORKERS threads leases the oldest ready message (one
transaction), sends it, and records the attempt (another): one at a time
per recipient whichever dispatcher holds it (store/notifications.py). A
lease lasts FLASK_DISPATCH_LEASE_SECONDS, longer than an attempt may take
(each is cut at FLASK_WEBHOOK_TIMEOUT_SECONDS), so nothing is sent twice
while no process dies; after a SIGKILL, what the dead one held is sent
again once its lease runs out: at least once, never lost. A failed attempt
is tried again on FLASK_WEBHOOK_RETRY_SCHEDULE, then given up. Without
FLASK_SMTP_URL an email is cancelled, never sent (the dispatcher says so
when it starts); members keep their addresses for when it is set. The SMTP
password is never in a log line or a message's last_error.
"""

import contextlib
import json
import logging
import random
import smtplib
import socket
import ssl
import threading
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from content_publishing import notifications, timestamps
from content_publishing.store import notifications as store
from content_publishing.store.db import transaction

log = logging.getLogger("dispatcher")
NOTIFY_WORKERS = 2
NO_SMTP = "not sent: email is off (FLASK_SMTP_URL is not set)"
PURGE_BATCH = 2000


class Notifier:
    """Its threads; `stopping` is the dispatcher's, `sender` its
    webhooks.sender.Sender (the SSRF guard at connect, for chat URLs)."""

    def __init__(self, app, name, stopping, sender):
        self.app = app
        self.config = app.config
        self.name = name
        self.stopping = stopping
        self.sender = sender
        self.smtp = self.config["SMTP"]
        self.schedule = self.config["WEBHOOK_RETRY_SCHEDULE"]
        self.idle = [threading.Event() for _ in range(NOTIFY_WORKERS)]
        self.sent = 0

    def start(self):
        for i, idle in enumerate(self.idle):
            threading.Thread(
                target=self._loop, args=(idle,), daemon=True, name=f"notify-{i}"
            ).start()
        if self.smtp is None:
            log.info("email notifications are off: FLASK_SMTP_URL is not set")
        else:
            log.info("email notifications go through %s", self.config["SMTP_URL"])

    def wait(self, seconds):
        """After `stopping`: let the messages in flight finish, for at most
        `seconds` all together; then give back every lease."""
        deadline = time.monotonic() + seconds
        for idle in self.idle:
            idle.wait(max(deadline - time.monotonic(), 0))
        with self.app.app_context(), transaction():
            store.release(self.name)

    def _loop(self, idle):
        while not self.stopping.is_set():
            try:
                with self.app.app_context():
                    busy = self.round()
            except Exception:
                log.exception("sending a notification failed; trying again")
                busy = False
            if not busy:
                self.stopping.wait(self.config["DISPATCH_POLL_SECONDS"])
        idle.set()

    def round(self):
        """Lease one ready message, send it and record the attempt; whether
        there was one."""
        now = timestamps.now_text()
        if not store.any_ready(now):
            return False
        lease = self.config["DISPATCH_LEASE_SECONDS"]
        with transaction():
            message = store.lease_one(self.name, now, timestamps.later(now, lease))
        if message is None:
            return False
        error = self.send(message)
        now = timestamps.now_text()
        with transaction():
            store.record(message["id"], self.name, *self._next_step(message, error, now), now)
        if error is None:
            self.sent += 1
        return True

    def send(self, message):
        """Send one message; None, or what went wrong (NO_SMTP: not to be tried)."""
        subject, text = notifications.render(message["body"], self.config["PUBLIC_URL"])
        if message["kind"] == "chat":
            attempt = self.sender.post_json(
                message["recipient"], json.dumps({"text": text}, ensure_ascii=False)
            )
            return attempt["error"]
        if self.smtp is None:
            return NO_SMTP
        return self._email(message["recipient"], subject, text)

    def _email(self, to, subject, text):
        mail = EmailMessage()
        mail["From"] = self.smtp["sender"]
        mail["To"] = to
        mail["Subject"] = subject
        mail["Date"] = formatdate(localtime=False)
        mail["Message-ID"] = make_msgid(domain=self.smtp["host"])
        mail.set_content(text)
        timeout = self.config["WEBHOOK_TIMEOUT_SECONDS"]
        started = time.monotonic()
        try:
            client = self._connect(timeout)
            # smtplib's timeout is per read: a server that drips its answers
            # could outlast the lease, so the whole attempt is cut at `timeout`.
            cut = threading.Timer(max(timeout - (time.monotonic() - started), 0), _cut, (client,))
            cut.start()
            try:
                with client:
                    if self.smtp["tls"] == "starttls":
                        client.starttls(context=ssl.create_default_context())
                    if self.smtp["user"]:
                        client.login(self.smtp["user"], self.smtp["password"] or "")
                    client.send_message(mail)
            finally:
                cut.cancel()
        except smtplib.SMTPAuthenticationError as e:
            return f"SMTP login refused: {e.smtp_code}"  # never the password, nor what it said
        except smtplib.SMTPResponseException as e:
            return f"SMTP {e.smtp_code}: {_said(e.smtp_error)}"
        except smtplib.SMTPRecipientsRefused as e:
            code, said = next(iter(e.recipients.values()))
            return f"SMTP {code}: {_said(said)}"
        except (smtplib.SMTPException, OSError, ssl.SSLError) as e:
            if isinstance(e, TimeoutError) or time.monotonic() - started >= timeout:
                return f"no answer within {timeout:g} s"
            return f"SMTP failed: {type(e).__name__}: {e}"[:300]
        return None

    def _connect(self, timeout):
        host, port = self.smtp["host"], self.smtp["port"]
        if self.smtp["tls"] == "implicit":
            context = ssl.create_default_context()
            return smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
        return smtplib.SMTP(host, port, timeout=timeout)

    def _next_step(self, message, error, now):
        """(outcome, next_attempt_at, last_error) after this attempt."""
        if error is None:
            return "sent", None, None
        if error == NO_SMTP:
            return "cancelled", None, error
        made = message["attempt_count"] + 1
        if made >= len(self.schedule):
            return "failed", None, f"{error}; gave up after {made} attempts"
        delay = self.schedule[made] * (1 + random.uniform(0, 0.1))
        return "pending", timestamps.later(now, delay), error

    def purge(self, before):
        """Forget a batch of finished messages older than `before`; how many."""
        with transaction():
            return store.purge(before, PURGE_BATCH)


def _cut(client):
    """End an attempt that ran out of time: its blocked read fails at once."""
    sock = client.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _said(reply):
    if isinstance(reply, bytes):
        reply = reply.decode("utf-8", "replace")
    return str(reply)[:300]
