"""The request body cap (MAX_CONTENT_LENGTH), checked before anything else runs.

A body whose Content-Length is over the cap is refused at once, before the
key is even looked up. A chunked body has no length, and werkzeug would read
at most MAX_CONTENT_LENGTH bytes of it and stop, so the first MiB of a longer
JSON document could be stored as if it were the whole request. Here such a
body is read up to one byte past the cap; one byte too many is a 413 and
nothing happens. A body within the cap is handed on with its length known.

A body with a Content-Length is read here too, and one that ends before
that length (a client that sent half and closed) is a 400 bad_request:
gunicorn would hand the app the half as if it were the whole body.

Reading it here is also where gunicorn's parser meets a malformed chunked
body (a chunk size that is not hex, a chunk line with no end, a bad
extension): that is the client's error, a 400 bad_request, not a 500. A
client that goes away partway through its body is logged at INFO as a
disconnect. A transfer coding other than `chunked` (`gzip, chunked`) would be
read as plain chunked and stored compressed or garbled, so it is refused.

Only a body of at most MAX_CONTENT_LENGTH (1 MiB) is read before its key is
checked. A media upload may be larger (20 MiB, a PDF 100 MiB), so its body is
read only when the view reads it, after the key and its scope were checked
(`Deferred`): a request without a valid key costs a worker nothing of its
body, however long it says it is. The same checks apply when it is read.
"""

import io
import logging

from flask import current_app, request
from gunicorn.http.errors import NoMoreData, ParseException

from content_publishing.errors import ApiError, bad_request

log = logging.getLogger("limits")  # a short name: the `logger` field operators filter on


MEDIA_UPLOAD = "/functions/v1/media"


def body_limit():
    """MAX_CONTENT_LENGTH (1 MiB): JSON never needs more; an image uploaded
    to the media library may take up to MEDIA_MAX_BYTES (20 MiB), a PDF up to
    MEDIA_MAX_DOCUMENT_BYTES (100 MiB)."""
    config = current_app.config
    if request.method == "POST" and request.path == MEDIA_UPLOAD:
        if request.mimetype == "application/pdf":
            return config["MEDIA_MAX_DOCUMENT_BYTES"]
        return config["MEDIA_MAX_BYTES"]
    return config["MAX_CONTENT_LENGTH"]


def check_body_size():
    """before_request hook of the app."""
    environ = request.environ
    if not environ.get("CONTENT_LENGTH") and "HTTP_TRANSFER_ENCODING" not in environ:
        return None  # no body to bound (most requests: GETs)
    limit = body_limit()
    request.max_content_length = limit  # what werkzeug then reads at most
    length = request.content_length
    if length is not None and length > limit:
        raise too_large(limit)
    if length is None:
        codings = transfer_codings(environ.get("HTTP_TRANSFER_ENCODING", ""))
        if not codings:
            return None
        if codings != ["chunked"]:
            raise bad_request(
                "Transfer-Encoding must be chunked alone; other transfer codings are not supported."
            )
    if limit > current_app.config["MAX_CONTENT_LENGTH"]:
        environ["wsgi.input"] = Deferred(environ, length, limit)  # read after the key's check
        return None
    return read_body(environ, length, limit)


def read_body(environ, length, limit):
    """The body read whole into wsgi.input: `length` bytes, or a chunked one
    of at most `limit`; else the 400 or 413 saying why."""
    if length is not None:
        return read_whole(environ, length)
    try:
        data = environ["wsgi.input"].read(limit + 1)
    except (NoMoreData, ConnectionError, TimeoutError) as e:
        log.info("client disconnected before the end of its chunked body (%s)", type(e).__name__)
        raise bad_request("The request body ended before its last chunk.") from None
    except ParseException as e:  # its text may hold kilobytes of the client's bytes: not echoed
        raise bad_request(f"The chunked request body is malformed ({type(e).__name__}).") from None
    if len(data) > limit:
        raise too_large(limit)
    environ["wsgi.input"] = io.BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    return None


def read_whole(environ, length):
    """The body read here, all `length` bytes, or a 400 if it ends sooner.

    gunicorn hands the app a body that ends before its Content-Length as if
    it were whole (it marks its input as terminated, so werkzeug trusts it):
    half a JSON document that happens to parse, or half a CSV import, would
    be stored. Read here, a short body is refused before anything runs."""
    try:
        data = environ["wsgi.input"].read(length)
    except (NoMoreData, ConnectionError, TimeoutError) as e:
        data, reason = b"", type(e).__name__
    else:
        reason = "end of stream"
    if len(data) < length:
        log.info(
            "client sent %d of the %d bytes of its Content-Length (%s)", len(data), length, reason
        )
        raise bad_request(
            f"The request body ended after {len(data)} of the {length} bytes its "
            "Content-Length announced."
        )
    environ["wsgi.input"] = io.BytesIO(data)


class Deferred(io.RawIOBase):
    """wsgi.input of a body that may be larger than MAX_CONTENT_LENGTH: read
    whole, with read_body's checks, at its first read, which is the view's
    (after authentication); never read if the request is refused first."""

    def __init__(self, environ, length, limit):
        super().__init__()
        self.environ, self.length, self.limit = environ, length, limit
        self.source, self.body = environ["wsgi.input"], None

    def readable(self):
        return True

    def readinto(self, buffer):
        if self.body is None:
            self.environ["wsgi.input"] = self.source
            try:
                read_body(self.environ, self.length, self.limit)
                self.body = self.environ["wsgi.input"]
            finally:
                self.environ["wsgi.input"] = self
        return self.body.readinto(buffer)


def transfer_codings(value):
    """The codings of a Transfer-Encoding header, lower-cased: `gzip, chunked`
    is ["gzip", "chunked"]."""
    return [c.strip().lower() for c in value.split(",") if c.strip()]


def too_large(limit):
    return ApiError(413, f"The request body is larger than {limit} bytes.")


def init_app(app):
    app.before_request(check_body_size)
