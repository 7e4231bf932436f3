"""One JSON error envelope for every error the service returns.

    {"error": {"code": "...", "message": "...", "details": {...}}}

Flask's own errors (404, 405, 413, 415, 500, ...) go through the same
handlers as ours, so a client never has to parse two shapes.
"""

import logging

from flask import jsonify
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from content_publishing.store.db import is_busy, is_storage_full

log = logging.getLogger("errors")  # a short name: the `logger` field operators filter on

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "insufficient_scope",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    412: "precondition_failed",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    416: "range_not_satisfiable",
    417: "expectation_failed",
    422: "validation_error",
    429: "rate_limited",  # answered by nginx (deploy/nginx.conf), in the same envelope
    431: "headers_too_large",
    500: "internal_error",
    501: "not_implemented",
    503: "busy",
    507: "storage_full",
}
# Codes beside each status's own, each raised by its helper below:
# validation_error (400), forbidden (403), schedule_conflict, no_free_slot,
# not_published, too_soon, last_owner, approval_required,
# owner_approval_required and linkedin_not_configured (409), invite_used and invite_expired (410),
# search_too_broad (503); of accounts (docs/accounts.md): sign_in_failed and
# second_factor_required (401), csrf_failed (403), link_used and link_expired (410). The OpenAPI text (content_publishing/http/apidoc.py,
# ERROR_TEXT) and docs/api.md's table name every code.

# The codes of items refused one by one inside a 200 answer (a batch of
# stats snapshots keeps the good items and says of each bad one why), in
# the same {"code", "message", "details"} shape as the envelope's.
ITEM_CODES = {
    "validation_error": "A field of the item is invalid; details names it.",
    "not_found": "No such post of the caller (unknown, or another workspace's).",
    "not_published": "The post is not Published, so it has no figures yet.",
}


class ApiError(Exception):
    """Raised by views and helpers; turned into the envelope by the handler."""

    def __init__(self, status, message, code=None, details=None, headers=None):
        super().__init__(message)
        self.status = status
        self.code = code or CODES.get(status, "error")
        self.message = message
        self.details = details or {}
        self.headers = headers or {}


def error_response(status, code, message, details=None, headers=None):
    # One line per refused request, with its id (logs.py): what a person who
    # quotes the id was told, and why. The details can echo what was sent,
    # so they stay out of the log; so does a validation error's message,
    # which quotes them (an unknown field's name is the client's text too).
    if code == "validation_error":
        found = (details or {}).get("rows", details or {})
        log.info("answered %s %s: %d invalid", status, code, len(found))
    else:
        log.info("answered %s %s: %s", status, code, message)
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    response = jsonify(body)
    response.status_code = status
    response.headers.update(headers or {})
    return response


def bad_request(message, details=None):
    return ApiError(400, message, details=details)


def validation_error(messages):
    """400 naming each bad field: {field: [message, ...]}. The message names
    them too, with the first message of each: clients that show only the
    message (n8n's "The request has invalid fields") then say what to fix."""
    details = _listify(messages)
    return ApiError(400, summary(details), "validation_error", details)


def summary(details, shown=4):
    """`content: Shorter than minimum length 1. type: Must be one of: ...`"""
    parts = [f"{field}: {found[0]}" for field, found in list(details.items())[:shown]]
    if len(details) > shown:
        parts.append(f"(and {len(details) - shown} more fields)")
    return " ".join(parts) or "The request has invalid fields."


def not_found(what="resource"):
    return ApiError(404, f"No such {what}.")


def conflict(message, details=None):
    return ApiError(409, message, details=details)


def schedule_conflict(channel_id, rule, conflicting, message):
    """409: scheduling there breaks one of the channel's guards (planning/plan.py)."""
    return ApiError(
        409,
        message,
        "schedule_conflict",
        {"channel": channel_id, "rule": rule, "conflicting_post_ids": conflicting},
    )


def no_free_slot(channel_id, message):
    """409: the queue found no slot for the post (planning/queue.py)."""
    return ApiError(409, message, "no_free_slot", {"channel": channel_id})


def not_published(status, message):
    """409: only a Published post can be recycled (posts/recycle.py)."""
    return ApiError(409, message, "not_published", {"status": status})


def too_soon(message, details):
    """409: a recycled copy would go out before its channel's
    recycle_after_days have passed since the original went out;
    details.earliest_at says from when it may."""
    return ApiError(409, message, "too_soon", details)


LINKEDIN_SETTINGS = ("FLASK_LINKEDIN_CLIENT_ID", "FLASK_LINKEDIN_CLIENT_SECRET")


def linkedin_not_configured():
    """409: connecting to LinkedIn, or letting the service publish, needs the
    operator's LinkedIn app (its client id and secret)."""
    return ApiError(
        409,
        "The service is not set up to sign in to LinkedIn: its operator must set "
        f'{" and ".join(LINKEDIN_SETTINGS)} (docs/linkedin-connect.md, "Setting it up: a '
        'LinkedIn app").',
        "linkedin_not_configured",
        {"settings": list(LINKEDIN_SETTINGS)},
    )


def search_too_broad(limit_ms):
    """503: a search (posts' `q`) stopped at its time limit
    (FLASK_SEARCH_TIMEOUT_MS), rather than holding a worker. No Retry-After:
    the same search would be stopped again; a narrower one is the cure."""
    return ApiError(
        503,
        f"The search was stopped after {limit_ms} ms: too many posts to go through. "
        "Add words or filters (status, type, brand_id, a time range) to narrow it.",
        "search_too_broad",
        {"q": ["Too broad to answer in time."], "timeout_ms": limit_ms},
    )


def row_errors(rows):
    """400 of a bulk import: {"rows": {"<1-based row>": {field: [messages]}}},
    every bad row at once."""
    named = {str(n): _listify(messages) for n, messages in sorted(rows.items())}
    first, fields = next(iter(named.items()))
    return ApiError(
        400,
        f"{len(rows)} rows are invalid and nothing was imported; row {first}: {summary(fields, 2)}",
        "validation_error",
        {"rows": named},
    )


def item_error(code, message, details=None):
    """One refused item of a batch answered 200 (ITEM_CODES)."""
    if code not in ITEM_CODES:
        raise ValueError(f"not an item code: {code}")
    return {"code": code, "message": message, "details": details or {}}


def item_validation_error(messages):
    """An item's invalid fields, named as validation_error names them."""
    details = _listify(messages)
    return item_error("validation_error", summary(details), details)


def unauthorized(message):
    return ApiError(401, message, headers={"WWW-Authenticate": 'Bearer realm="api"'})


def forbidden(message, details=None):
    """403 forbidden: the key has the scope, its member's role does not
    allow the act (roles.py); the message names the role."""
    return ApiError(403, message, "forbidden", details)


def last_owner(message):
    """409 last_owner: a workspace keeps at least one owner."""
    return ApiError(409, message, "last_owner")


def approval_required(message, details=None):
    """409 approval_required: the workspace requires approvals and the post
    has none that holds (it was never approved, or changed since)."""
    return ApiError(409, message, "approval_required", details)


def owner_approval_required(message, details=None):
    """409 owner_approval_required: the post goes out on a colleague's
    personal profile and has not their approval (posts/approvals.py)."""
    return ApiError(409, message, "owner_approval_required", details)


def invite_gone(code, message):
    """410 invite_used or invite_expired: an invitation works once, for 7 days."""
    return ApiError(410, message, code)


def sign_in_failed(message="The email or the password is wrong."):
    """401 sign_in_failed: the same answer for an unknown address as for a
    wrong password (accounts/signin.py)."""
    return ApiError(401, message, "sign_in_failed")


def second_factor_required(message):
    """401 second_factor_required: the password was right; send `code` too."""
    return ApiError(401, message, "second_factor_required", {"code": ["Required."]})


def csrf_failed(message):
    """403 csrf_failed: a write by cookie without the session's X-CSRF-Token
    or from another site's Origin (cookies.py)."""
    return ApiError(403, message, "csrf_failed")


def link_gone(code, message):
    """410 link_used or link_expired: a sign-in link works once, for its minutes."""
    return ApiError(410, message, code)


def rate_limited(message, retry_after):
    """429 rate_limited with Retry-After (seconds): too many failed sign-ins."""
    return ApiError(429, message, "rate_limited", headers={"Retry-After": str(retry_after)})


def insufficient_scope(scope):
    return ApiError(
        403,
        f"This API key lacks the scope {scope}.",
        details={"required_scope": scope},
    )


def _listify(messages):
    """marshmallow gives str, list or nested dict; the envelope promises
    field -> list of messages (nested fields joined with dots)."""
    out = {}

    def walk(prefix, value):
        if isinstance(value, dict):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), sub)
        elif isinstance(value, (list, tuple)):
            if all(isinstance(v, str) for v in value):
                out.setdefault(prefix or "_schema", []).extend(value)
            else:
                for v in value:
                    walk(prefix, v)
        else:
            out.setdefault(prefix or "_schema", []).append(str(value))

    walk("", messages)
    return out


def init_app(app):
    @app.errorhandler(ApiError)
    def api_error(e):
        return error_response(e.status, e.code, e.message, e.details, e.headers)

    @app.errorhandler(ValidationError)
    def marshmallow_error(e):
        err = validation_error(e.messages)
        return error_response(err.status, err.code, err.message, err.details)

    @app.errorhandler(HTTPException)
    def http_error(e):
        code = CODES.get(e.code, "error")
        headers = {}
        if e.code == 405 and e.valid_methods:
            headers["Allow"] = ", ".join(e.valid_methods)
        if e.code == 416 and getattr(e, "length", None) is not None:  # RFC 9110, 15.5.17
            headers["Content-Range"] = f"{e.units} */{e.length}"
        return error_response(e.code, code, e.description or e.name, headers=headers)

    @app.errorhandler(Exception)
    def unexpected_error(e):
        if is_storage_full(e):
            log.error("storage full: %s", e)
            return error_response(
                507, "storage_full", "The server's storage is full; the change was not saved."
            )
        if is_busy(e):
            log.error("database busy beyond the timeout: %s", e)
            return error_response(
                503, "busy", "The database is busy; retry shortly.", headers={"Retry-After": "1"}
            )
        log.exception("unhandled error")
        return error_response(500, "internal_error", "The server failed to handle the request.")
