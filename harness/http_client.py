"""The one HTTP client of the tests, the bench and the faults.

It never retries and never raises for a failed request: a request that gets
no answer is returned as a Response with status None and the error, so a
load generator can count it and the ledger can treat the write as sent but
unacknowledged (it may or may not have been applied). Every Response carries
its start and end time (the revoke race orders requests by them).

The connection is kept and reused while the server keeps it open (gunicorn's
sync workers close it after each response; then the next request reconnects).
A Client is not thread-safe: one per thread.
"""

import contextlib
import http.client
import json
import time
from urllib.parse import urlsplit

_NOT_PARSED = object()


class Response:
    """status (None: no answer), headers (lower-case names), body (bytes),
    error (why there was no answer), started/ended (time.monotonic())."""

    __slots__ = ("status", "headers", "body", "error", "started", "ended", "_json")

    def __init__(self, status, headers, body, error, started, ended):
        self.status, self.headers, self.body, self.error = status, headers, body, error
        self.started, self.ended = started, ended
        self._json = _NOT_PARSED

    @property
    def ok(self):
        """A 2xx answer: the service acknowledged the request."""
        return self.status is not None and 200 <= self.status < 300

    @property
    def json(self):
        """The body parsed as JSON, or None (empty, not JSON, or no answer)."""
        if self._json is _NOT_PARSED:
            try:
                self._json = json.loads(self.body) if self.body else None
            except ValueError:
                self._json = None
        return self._json

    @property
    def text(self):
        return self.body.decode("utf8", "replace")

    @property
    def ms(self):
        return (self.ended - self.started) * 1000

    def __repr__(self):
        return f"<Response {self.status or self.error} {self.text[:200]!r}>"


class Client:
    """Requests to one server, with `key` sent as X-API-Key (if given).

    `source`: the local address to connect from (another 127.x.y.z, so that
    a test can tell clients apart by address in a server's log)."""

    def __init__(self, url, key=None, timeout=15.0, source=None):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.key, self.timeout = key, timeout
        self.source = (source, 0) if source else None
        self.conn = None

    def request(self, method, path, body=None, headers=None, key=None, chunks=None):
        """Send one request; `body` is sent as JSON unless it is bytes or str.
        `chunks` (an iterable of bytes) is sent instead with chunked transfer
        encoding and no Content-Length."""
        h = {}
        if key or self.key:
            h["X-API-Key"] = key or self.key
        data = None
        if chunks is not None:
            data = iter(chunks)
            h["Content-Type"] = "application/json"
        elif body is not None:
            if isinstance(body, (bytes, str)):
                data = body
            else:
                data = json.dumps(body)
                h["Content-Type"] = "application/json"
        h.update(headers or {})
        started = time.monotonic()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout, source_address=self.source
                )
            # The server may answer before the whole body is sent (a 413 for
            # a Content-Length over the cap) and close: that answer is read,
            # as curl and urllib3 do, rather than the broken pipe reported.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.conn.request(
                    method, path, body=data, headers=h, encode_chunked=chunks is not None
                )
            resp = self.conn.getresponse()
            raw = resp.read()
            got = {k.lower(): v for k, v in resp.getheaders()}
            if resp.will_close:
                self.close()
            return Response(resp.status, got, raw, None, started, time.monotonic())
        except (OSError, http.client.HTTPException) as e:
            self.close()
            return Response(None, {}, b"", f"{type(e).__name__}: {e}", started, time.monotonic())

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def close(self):
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
            self.conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
