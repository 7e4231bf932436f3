"""The one outbound HTTP client, and its SSRF guard: every call the service
makes to an address a person typed (webhook deliveries, the workspace's
chat, media a post names by URL) goes through `Sender`; calls to a network
the service publishes on say how they failed with `CallFailed`.

SSRF guard: such a URL is typed by a person but fetched by the server, so a
URL whose host is or resolves to a loopback, private, link-local or
otherwise non-public address is refused when it is saved, and again at
every request (DNS can change between the two). An IPv6 address that
carries an IPv4 one (IPv4-mapped and -translated, IPv4-compatible, NAT64,
6to4, Teredo) is judged by the IPv4 address it carries, since a NAT64 or
6to4 gateway would take the packets there. Port 0 is refused.

At request time the host is resolved once, every address is vetted, and the
connection is opened to a vetted address (the name still goes out as Host
and as the TLS server name): no TCP connection to a forbidden address is
ever opened, so a DNS rebinding cannot tell an open internal port from a
closed one by the error it gets: every refusal is decided before any
connection, and reads the same whether the port is open or closed.

Self-hosters run their automation on the same host, LAN or docker network:
FLASK_WEBHOOK_ALLOWED_PRIVATE lists the host names and CIDR ranges the guard
lets through (at save and at connect), each on the ports its entry names
(80, 443 and 5678 when it names none), and every refusal names it. Whoever
may manage webhooks can then make the service POST to those ports and read
the status it gets back, but never the body: what a private address answers
stays out of the delivery log, since an internal admin page or API would
otherwise be read through it. FLASK_WEBHOOK_ALLOW_PRIVATE=1 lifts the guard
altogether, for local development and the tests.

A request is one attempt: no redirect is followed (a 3xx is a failed
attempt), the whole attempt is bounded by a timeout, and only the first KB
of the answer is kept (none of a private address's). A failed attempt says
what happened: the name did not resolve, the connection was refused, TLS
failed, or no answer in time.
"""

import codecs
import concurrent.futures
import contextlib
import heapq
import ipaddress
import itertools
import socket
import ssl
import threading
import time
from collections import namedtuple
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import NameResolutionError, NewConnectionError

from content_publishing.schemas import urls

USER_AGENT = "content-publishing-service-webhooks/1.0"
RETRY_AFTER_CAP = 86400  # seconds: the longest wait a Retry-After is taken for
RESPONSE_KEPT = 1024
SAVE_DNS_SECONDS = 3  # a name that takes longer to resolve when an endpoint is saved is refused

# IPv6 prefixes whose addresses carry an IPv4 address in their last 32 bits.
_CARRY_LAST_32 = [
    ipaddress.ip_network(n)
    for n in ("::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96", "::/96", "64:ff9b:1::/48")
]
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


class Guard(namedtuple("Guard", "allow_all names networks")):
    """What the SSRF guard lets through besides public addresses: everything
    (FLASK_WEBHOOK_ALLOW_PRIVATE), or the host names and networks of
    FLASK_WEBHOOK_ALLOWED_PRIVATE, each on its own ports: `names` maps a
    name to its port ranges, `networks` holds (network, port ranges)."""

    @classmethod
    def of(cls, config):
        names, networks = {}, []
        for allowed, ports in config["WEBHOOK_ALLOWED_PRIVATE"]:
            if isinstance(allowed, str):
                names[allowed] = names.get(allowed, ()) + tuple(ports)
            else:
                networks.append((allowed, tuple(ports)))
        return cls(bool(config["WEBHOOK_ALLOW_PRIVATE"]), names, tuple(networks))

    @classmethod
    def for_media(cls, config):
        """The guard of the publisher's fetches of media named by URL:
        public addresses only (everything with FLASK_WEBHOOK_ALLOW_PRIVATE).
        FLASK_WEBHOOK_ALLOWED_PRIVATE names webhook receivers, whose answers'
        bodies are never kept; a medium's bytes would be uploaded to
        LinkedIn for anyone to see, so no listed private host serves one."""
        return cls(bool(config["WEBHOOK_ALLOW_PRIVATE"]), {}, ())

    def allows_host(self, host, port):
        if self.allow_all:
            return True
        return _on(port, self.names.get(host.lower().rstrip("."), ()))

    def allows_address(self, ip, port):
        return any(_on(port, ports) for ports in self._ports_of(ip))

    def lists_host(self, host):
        """Whether the name is listed, on whatever port."""
        return host.lower().rstrip(".") in self.names

    def lists_address(self, ip):
        """Whether the address is listed, on whatever port."""
        return any(True for _ in self._ports_of(ip))

    def _ports_of(self, ip):
        return (ports for net, ports in self.networks if ip.version == net.version and ip in net)


def _on(port, ranges):
    return any(first <= port <= last for first, last in ranges)


NO_GUARD = Guard(True, {}, ())
ALLOWLIST_HINT = "list a private receiver in FLASK_WEBHOOK_ALLOWED_PRIVATE"


def _other_ports(port):
    return (
        f" listed in FLASK_WEBHOOK_ALLOWED_PRIVATE for other ports, not {port} (an entry"
        " without a port allows 80, 443 and 5678)"
    )


class Refused(ValueError):
    """A destination the guard does not allow; the message says why."""


class Unreachable(Refused):
    """A destination no delivery could reach (a host with no address, or
    none in time; port 0), whatever the guard allows."""


def carried_ipv4(ip):
    """The IPv4 addresses an IPv6 address carries (RFC 4291, 2765, 6052,
    3056, 4380), for the guard to judge; [] for any other address."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = []
    value = int(ip)
    if any(ip in net for net in _CARRY_LAST_32):
        found.append(ipaddress.IPv4Address(value & 0xFFFFFFFF))
    if ip in _NAT64_LOCAL:  # RFC 6052 with a /48 prefix: bits 48-63 and 72-87
        high, low = (value >> 64) & 0xFFFF, (value >> 40) & 0xFFFF
        found.append(ipaddress.IPv4Address(high << 16 | low))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)  # the server and the (un-obfuscated) client
    return found


def check_address(address, guard, port):
    """Refused unless `address` (an IP text) is a public unicast address,
    and so is every IPv4 address it carries, or the guard allows it on `port`."""
    if guard.allow_all:
        return
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    for candidate in carried_ipv4(ip) or [ip]:  # an IPv6 form of IPv4: judged by what it carries
        if guard.allows_address(candidate, port):
            continue
        if not is_public(candidate):
            kind = (
                "loopback"
                if candidate.is_loopback
                else "private"
                if candidate.is_private
                else "link-local"
                if candidate.is_link_local
                else "non-public"
            )
            carried = f" (it carries {candidate})" if candidate is not ip else ""
            if guard.lists_address(candidate):
                raise Refused(f"{address}{carried} is a {kind} address{_other_ports(port)}")
            raise Refused(
                f"{address}{carried} is a {kind} address; webhooks go to public addresses only"
                f" ({ALLOWLIST_HINT})"
            )


def is_public(ip):
    return ip.is_global and not ip.is_multicast


def reaches_private(address):
    """Whether `address` (an IP text), or an IPv4 address it carries, is not public."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return not all(is_public(candidate) for candidate in carried_ipv4(ip) or [ip])


def destination(url):
    """(host, port) of a webhook URL; Refused for port 0."""
    parts = urls.parse(url)
    host = parts["hostname"].strip("[]")
    port = int(parts["port"] or (443 if parts["protocol"] == "https:" else 80))
    if port == 0:
        raise Unreachable("port 0 is not a port anything listens on")
    return host, port


_SAVE_LOOKUPS = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="dns")


def check_destination(url, guard):
    """Refused unless every address the URL's host resolves to is public (or
    the guard allows the host or the address). The lookup is bounded
    (SAVE_DNS_SECONDS): a request saving an endpoint never waits on a slow
    resolver for long."""
    host, port = destination(url)
    if guard.allows_host(host, port):
        return
    if guard.lists_host(host):
        raise Refused(f"{host} is a host{_other_ports(port)}")
    lookup = _SAVE_LOOKUPS.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=SAVE_DNS_SECONDS)
    except concurrent.futures.TimeoutError:
        raise Unreachable(f"the host {host} did not resolve within {SAVE_DNS_SECONDS} s") from None
    except (socket.gaierror, UnicodeError) as e:
        raise Unreachable(f"the host {host} does not resolve ({e})") from None
    for info in infos:
        try:
            check_address(info[4][0], guard, port)
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


class _Guarded:
    """Mixed in before urllib3's HTTP(S)Connection: resolves the host once, vets every address, and connects to a
    vetted one (the name stays the Host header and the TLS server name);
    keeps to the deadline of the attempt in progress."""

    guard = None  # set per Sender (its subclass of this class)

    def request(self, *args, **kwargs):
        deadline = Deadline.current()
        if deadline is not None:
            deadline.watch(self)
        return super().request(*args, **kwargs)

    def _new_conn(self):
        deadline = Deadline.current()
        if deadline is not None:
            deadline.check()
        if self.port == 0:
            raise Refused("port 0 is not a port anything listens on")
        try:
            infos = socket.getaddrinfo(self._dns_host, self.port, type=socket.SOCK_STREAM)
        except socket.gaierror as e:
            raise NameResolutionError(self.host, self, e) from e
        if not self.guard.allows_host(self.host, self.port):
            if self.guard.lists_host(self.host):
                raise Refused(f"{self.host} is a host{_other_ports(self.port)}")
            for info in infos:  # every address before any connection
                check_address(info[4][0], self.guard, self.port)
        error = None
        for family, kind, proto, _, address in infos:
            try:
                return self._connect(family, kind, proto, address)
            except OSError as e:
                error = e
        if isinstance(error, TimeoutError | socket.timeout):
            raise urllib3.exceptions.ConnectTimeoutError(
                self, f"connecting to {self.host} timed out"
            ) from error
        raise NewConnectionError(self, f"failed to connect: {error}") from error

    def _connect(self, family, kind, proto, address):
        """A socket connected to one vetted address, or OSError."""
        sock = socket.socket(family, kind, proto)
        try:
            for option in self.socket_options or ():
                sock.setsockopt(*option)
            sock.settimeout(self.timeout)
            sock.connect(address)
        except OSError:
            sock.close()
            raise
        # What a private receiver answers stays out of the delivery log
        # (Sender.send): only its status is kept.
        self.private_peer = not self.guard.allow_all and reaches_private(address[0])
        return sock


_CONNECTIONS = (
    type("GuardedHTTPConnection", (_Guarded, HTTPConnection), {}),
    type("GuardedHTTPSConnection", (_Guarded, HTTPSConnection), {}),
)


class Sender:
    """A pool of keep-alive connections for one dispatcher process."""

    def __init__(self, timeout, guard, pool_size=16):
        self.timeout = timeout
        self.guard = guard
        self.pools = urllib3.PoolManager(
            num_pools=256,
            maxsize=pool_size,
            block=False,
            retries=False,
            timeout=urllib3.Timeout(total=timeout),
        )
        http, https = (type(c.__name__, (c,), {"guard": guard}) for c in _CONNECTIONS)
        self.pools.pool_classes_by_scheme = {
            "http": type("Pool", (HTTPConnectionPool,), {"ConnectionCls": http}),
            "https": type("Pool", (HTTPSConnectionPool,), {"ConnectionCls": https}),
        }

    def post_json(self, url, body):
        """POST `body`, a JSON text, unsigned (a chat's incoming webhook: its
        URL is its secret), under the same guard and deadline as a delivery;
        the attempt, as send() returns it."""
        headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
        return self.post(url, body, headers, datetime.now(UTC))

    def post(self, url, body, headers, moment):
        """POST `body` (text) with `headers`; the attempt: {attempted_at,
        outcome, status_code, duration_ms, error, response, retry_after}."""
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
                    if not getattr(answer.connection, "private_peer", True):
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

    def fetch(self, url, limit):
        """GET `url` under the same guard and deadline as a delivery (the
        service's own publisher fetching a post's media named by URL): its
        bytes and Content-Type; Refused (the guard), or ValueError saying why
        it could not be had (no 2xx, larger than `limit` bytes, no answer)."""
        deadline = Deadline(self.timeout)
        try:
            with deadline:
                answer = self.pools.request(
                    "GET",
                    url,
                    headers={"User-Agent": USER_AGENT},
                    redirect=False,
                    preload_content=False,
                )
                try:
                    if not 200 <= answer.status < 300:
                        raise ValueError(f"{url} answered HTTP {answer.status}")
                    data = answer.read(limit + 1, decode_content=True)
                finally:
                    _finish(answer, deadline.settle())
        except urllib3.exceptions.HTTPError as e:
            raise ValueError(
                f"{url}: "
                + (
                    f"no answer within {self.timeout:g} s"
                    if deadline.passed
                    else _reason(e, self.timeout)
                )
            ) from None
        if len(data) > limit:
            raise ValueError(f"{url} is larger than {limit} bytes")
        return data, answer.headers.get("Content-Type")

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
    """What went wrong, in words that tell the cases apart (NewConnectionError
    is a ConnectTimeoutError in urllib3, so timeouts are asked last)."""
    inner = getattr(error, "reason", None) or error
    if isinstance(inner, Refused):
        return f"refused by the SSRF guard: {inner}"
    if isinstance(inner, NameResolutionError):
        return f"the name {inner.conn.host} did not resolve"
    if isinstance(inner, NewConnectionError):
        cause = inner.__cause__
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        return f"connection failed: {cause or inner}"[:300]
    if isinstance(inner, urllib3.exceptions.SSLError | ssl.SSLError):
        return f"TLS failed: {inner}"[:300]
    if isinstance(inner, (urllib3.exceptions.TimeoutError, TimeoutError)):
        return f"no answer within {timeout:g} s"
    return f"connection failed: {str(inner)[:300]}"


def retry_delay(value, default, cap=RETRY_AFTER_CAP):
    """Seconds to wait from a Retry-After header (seconds or an HTTP date),
    capped at `cap`; `default` when there is none or it cannot be read."""
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return default
    return min(max(seconds, 0.0), cap)


class CallFailed(Exception):
    """A call to a network that did not do what it was asked: refused
    (`status`, the network's `code` and words), or never answered (`status`
    None). `sent` is False only when the request provably never left (no
    connection was made), so that nothing can have been done."""

    def __init__(self, status, message, code=None, retry_after=None, sent=True):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code
        self.retry_after, self.sent = retry_after, sent

    @property
    def unknown_outcome(self):
        """A 5xx, a timeout or a connection lost after the request went out:
        the network may have done it."""
        return self.sent and (self.status is None or self.status >= 500)

    @property
    def may_retry(self):
        """Nothing was done, and trying later may work: a 429, or no
        connection made at all."""
        return self.status == 429 or not self.sent


class TokenExpired(Exception):
    """A connection's access token was refused, and a refresh could not
    replace it: the person must connect the channel again."""
