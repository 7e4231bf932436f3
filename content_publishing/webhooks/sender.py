"""Sending webhooks: where they may go, and one signed POST.

SSRF guard: a webhook URL is typed by a user but fetched by the server, so a
URL whose host is or resolves to a loopback, private, link-local or
otherwise non-public address is refused when the endpoint is saved, and the
address actually connected to is checked again at every delivery (DNS can
change between the two). FLASK_WEBHOOK_ALLOW_PRIVATE=1 lifts the guard, for
local development and the tests.

A delivery is one POST with the Standard Webhooks headers, signed with the
`standardwebhooks` package: no redirect is followed (a 3xx is a failed
attempt), the whole attempt is bounded by a timeout, and only the first KB
of the answer is kept.
"""

import codecs
import contextlib
import heapq
import ipaddress
import itertools
import socket
import threading
import time
from datetime import UTC, datetime

import urllib3
from standardwebhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from content_publishing.schemas import urls

USER_AGENT = "content-publishing-service-webhooks/1.0"
RESPONSE_KEPT = 1024


class Refused(ValueError):
    """A destination the guard does not allow; the message says why."""


def check_address(address, allow_private):
    """Refused unless `address` (an IP text) is a public unicast address."""
    if allow_private:
        return
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if not ip.is_global or ip.is_multicast:
        kind = (
            "loopback"
            if ip.is_loopback
            else "private"
            if ip.is_private
            else "link-local"
            if ip.is_link_local
            else "non-public"
        )
        raise Refused(f"{address} is a {kind} address; webhooks go to public addresses only")


def check_destination(url, allow_private):
    """Refused unless every address the URL's host resolves to is public."""
    parts = urls.parse(url)
    if allow_private:
        return
    host = parts["hostname"].strip("[]")
    port = int(parts["port"] or (443 if parts["protocol"] == "https:" else 80))
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise Refused(f"the host {host} does not resolve ({e})") from None
    for info in infos:
        try:
            check_address(info[4][0], allow_private)
        except Refused as e:
            raise Refused(f"the host {host} resolves to {e}") from None


class Deadline:
    """The end of one attempt. urllib3's timeouts bound each read, not the
    whole answer, so a receiver that answers a byte at a time could hold an
    attempt (and the dispatcher's lease under it) for ever: when the deadline
    passes, the socket of every connection the attempt used is shut down
    (by the one _Watchdog thread), unless the attempt was settled first."""

    _current = threading.local()

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds
        self.passed = False
        self.settled = False
        self.lock = threading.Lock()

    @classmethod
    def current(cls):
        return getattr(cls._current, "deadline", None)

    def check(self):
        if self.passed or time.monotonic() >= self.end:
            self.passed = True
            raise urllib3.exceptions.TimeoutError("the attempt's deadline passed")

    def watch(self, conn):
        """Cut `conn` when the deadline passes (called as it sends a request)."""
        self.check()
        _WATCHDOG.watch(self, conn)

    def cut(self, conn):
        with self.lock:
            if self.settled:
                return  # the attempt ended in time; its connection may be in use again
            self.passed = True
        sock = getattr(conn, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def settle(self):
        """The attempt is over (before its connection goes back to the pool):
        no cut from now on. Whether the deadline had passed."""
        with self.lock:
            self.settled = True
            return self.passed

    def __enter__(self):
        Deadline._current.deadline = self
        return self

    def __exit__(self, *exc):
        self.settle()
        Deadline._current.deadline = None


class _Watchdog:
    """One thread that cuts the connections of attempts whose deadline passed.
    A timer thread per attempt cost more than the rest of sending at a few
    hundred deliveries a second."""

    def __init__(self):
        self.wakeup = threading.Condition()
        self.due = []  # heap of (end, n, deadline, connection)
        self.count = itertools.count()
        self.thread = None

    def watch(self, deadline, conn):
        with self.wakeup:
            heapq.heappush(self.due, (deadline.end, next(self.count), deadline, conn))
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._run, name="webhook-deadlines", daemon=True
                )
                self.thread.start()
            self.wakeup.notify()

    def _run(self):
        while True:
            with self.wakeup:
                while not self.due or self.due[0][0] > time.monotonic():
                    self.wakeup.wait(self.due[0][0] - time.monotonic() if self.due else None)
                _, _, deadline, conn = heapq.heappop(self.due)
            deadline.cut(conn)


_WATCHDOG = _Watchdog()


def _guarded(base):
    class Guarded(base):
        """Checks the address it actually connected to, after DNS, and keeps
        to the deadline of the attempt in progress."""

        allow_private = False

        def request(self, *args, **kwargs):
            deadline = Deadline.current()
            if deadline is not None:
                deadline.watch(self)
            return super().request(*args, **kwargs)

        def _new_conn(self):
            deadline = Deadline.current()
            if deadline is not None:
                deadline.check()
            sock = super()._new_conn()
            try:
                check_address(sock.getpeername()[0], self.allow_private)
            except Refused:
                sock.close()
                raise
            return sock

    return Guarded


_CONNECTIONS = {False: (_guarded(HTTPConnection), _guarded(HTTPSConnection))}
_CONNECTIONS[True] = tuple(
    type(c.__name__, (c,), {"allow_private": True}) for c in _CONNECTIONS[False]
)


class Sender:
    """A pool of keep-alive connections for one dispatcher process."""

    def __init__(self, timeout, allow_private, pool_size=16):
        self.timeout = timeout
        self.allow_private = allow_private
        self.pools = urllib3.PoolManager(
            num_pools=256,
            maxsize=pool_size,
            block=False,
            retries=False,
            timeout=urllib3.Timeout(total=timeout),
        )
        http, https = _CONNECTIONS[bool(allow_private)]
        self.pools.pool_classes_by_scheme = {
            "http": type("Pool", (HTTPConnectionPool,), {"ConnectionCls": http}),
            "https": type("Pool", (HTTPSConnectionPool,), {"ConnectionCls": https}),
        }

    def send(self, url, event_id, body, secrets):
        """POST `body` signed with every secret in `secrets`; returns the attempt:
        {attempted_at, outcome, status_code, duration_ms, error, response, retry_after}."""
        moment = datetime.now(UTC)
        signatures = " ".join(Webhook(s).sign(event_id, moment, body) for s in secrets)
        headers = {
            "webhook-id": event_id,
            "webhook-timestamp": str(int(moment.timestamp())),
            "webhook-signature": signatures,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
        }
        started = time.monotonic()
        attempt = {
            "attempted_at": moment,
            "status_code": None,
            "error": None,
            "response": None,
            "retry_after": None,
        }
        deadline = Deadline(self.timeout)
        try:
            with deadline:
                answer = self.pools.request(
                    "POST",
                    url,
                    body=body.encode("utf-8"),
                    headers=headers,
                    redirect=False,
                    preload_content=False,
                )
                try:
                    attempt["response"] = _text(answer.read(RESPONSE_KEPT, decode_content=True))
                finally:
                    _finish(answer, deadline.settle())
            attempt["status_code"] = answer.status
            attempt["retry_after"] = answer.headers.get("Retry-After")
            if deadline.passed or time.monotonic() - started > self.timeout:
                attempt["error"] = f"no answer within {self.timeout:g} s"
            elif not 200 <= answer.status < 300:
                attempt["error"] = f"HTTP {answer.status}" + (
                    " (redirects are not followed)" if 300 <= answer.status < 400 else ""
                )
        except Refused as e:
            attempt["error"] = f"refused by the SSRF guard: {e}"
        except urllib3.exceptions.HTTPError as e:
            attempt["error"] = (
                f"no answer within {self.timeout:g} s"
                if deadline.passed
                else _reason(e, self.timeout)
            )
        attempt["duration_ms"] = int((time.monotonic() - started) * 1000)
        attempt["outcome"] = "delivered" if attempt["error"] is None else "failed"
        return attempt

    def close(self):
        self.pools.clear()


def _text(data):
    """What a receiver answered, as text any backend can store: invalid UTF-8
    and NUL (which PostgreSQL's text cannot hold) become U+FFFD. A character
    cut at the end of the kept KB is left out, not garbled: the incremental
    decoder keeps back an incomplete sequence it was not told is the last."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    return decoder.decode(data, final=len(data) < RESPONSE_KEPT).replace("\x00", "\ufffd")


def _finish(answer, cut):
    """Keep the connection only if the rest of the answer is short and the
    deadline did not cut it; a long or endless body is not read, and its
    connection is closed instead."""
    remaining = answer.length_remaining
    if not cut and remaining is not None and remaining <= 64 * 1024:
        answer.drain_conn()
    else:
        answer.close()
    answer.release_conn()


def _reason(error, timeout):
    inner = getattr(error, "reason", None) or error
    if isinstance(inner, Refused):
        return f"refused by the SSRF guard: {inner}"
    if isinstance(inner, (urllib3.exceptions.TimeoutError, TimeoutError)):
        return f"no answer within {timeout:g} s"
    text = str(inner)
    return f"connection failed: {text[:300]}"
