"""The request body cap, for bodies sent without a Content-Length.

werkzeug refuses a body whose Content-Length is over MAX_CONTENT_LENGTH, but
a chunked body has no length: it reads at most MAX_CONTENT_LENGTH bytes of it
and stops, so the first MiB of a longer JSON document could be stored as if
it were the whole request. Here such a body is read up to one byte past the
cap before anything else runs; one byte too many is a 413 and nothing
happens. A body within the cap is handed on with its length known.
"""

import io

from flask import current_app, request

from errors import ApiError


def read_unsized_body():
    """before_request hook of the app."""
    environ = request.environ
    if environ.get("CONTENT_LENGTH") or "chunked" not in environ.get(
        "HTTP_TRANSFER_ENCODING", ""
    ).lower():
        return None
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    data = environ["wsgi.input"].read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, f"The request body is larger than {limit} bytes.")
    environ["wsgi.input"] = io.BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    return None


def init_app(app):
    app.before_request(read_unsized_body)
