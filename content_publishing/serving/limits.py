"""The request body cap (MAX_CONTENT_LENGTH), checked before anything else runs.

A body whose Content-Length is over the cap is refused at once, before the
key is even looked up. A chunked body has no length, and werkzeug would read
at most MAX_CONTENT_LENGTH bytes of it and stop, so the first MiB of a longer
JSON document could be stored as if it were the whole request. Here such a
body is read up to one byte past the cap; one byte too many is a 413 and
nothing happens. A body within the cap is handed on with its length known.
"""

import io

from flask import current_app, request

from content_publishing.errors import ApiError


def check_body_size():
    """before_request hook of the app."""
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    length = request.content_length
    if length is not None:
        if length > limit:
            raise too_large(limit)
        return None
    environ = request.environ
    if "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return None
    data = environ["wsgi.input"].read(limit + 1)
    if len(data) > limit:
        raise too_large(limit)
    environ["wsgi.input"] = io.BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    return None


def too_large(limit):
    return ApiError(413, f"The request body is larger than {limit} bytes.")


def init_app(app):
    app.before_request(check_body_size)
