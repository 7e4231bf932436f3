"""Request and response helpers shared by the posts and articles views."""

import json
import re
import uuid

from flask import g, request
from werkzeug.exceptions import BadRequest

from errors import ApiError, bad_request, not_found


def json_body():
    """The request's JSON; marshmallow then rejects anything but an object."""
    if not request.is_json:
        raise ApiError(415, "Send a JSON body with Content-Type: application/json.")
    try:
        body = request.get_json()
    except BadRequest:
        raise bad_request("The request body is not valid JSON.")
    try:  # JSON may escape lone surrogates ("\ud800"), which no text can hold
        json.dumps(body, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise bad_request("The request body holds invalid Unicode (a lone surrogate).")
    return body


def load_query(schema):
    """Query parameters through `schema`; a bad one is a 400 naming it."""
    return schema.load(request.args.to_dict())


def item_id(value, what):
    """The canonical form of a UUID path segment; anything else is a 404,
    the same answer as for an unknown or another user's id."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise not_found(what)


def render(schema, record):
    """`schema.dump(record)` for a record from the store, without its cost.

    The store returns records in wire form already (timestamps as RFC 3339
    text, JSON columns decoded), so dumping is only a projection onto the
    schema's fields; on the hot path marshmallow's per-field machinery cost
    as much as the database. tests/test_openapi.py checks the two agree.
    """
    return {name: record[name] for name in schema.dump_fields}


def page_body(item_schema, rows, total, query):
    """The list envelope: {"data", "total", "limit", "offset"}."""
    return {
        "data": [render(item_schema, row) for row in rows],
        "total": total,
        "limit": query["limit"],
        "offset": query["offset"],
    }


def get_owned(fetch, value, what, db=None):
    """The caller's record through `fetch(user_id, id, db)`, or a 404."""
    record = fetch(g.user_id, item_id(value, what), db)
    if record is None:
        raise not_found(what)
    return record


def etag(record):
    """The record's version is its entity tag: "3"."""
    return f'"{record["version"]}"'


def with_etag(body, record, status=200, headers=None):
    return body, status, {"ETag": etag(record), **(headers or {})}


def check_if_match(record):
    """Honour If-Match: a stale or unknown version is a 412 and nothing changes."""
    if "If-Match" not in request.headers:
        return
    tags = request.if_match
    if tags.star_tag or tags.contains_weak(str(record["version"])):
        return
    raise ApiError(
        412,
        f"The record has changed: its current version is {record['version']}.",
        details={"current_version": record["version"]},
        headers={"ETag": etag(record)},
    )


IDEMPOTENCY_KEY_PATTERN = r"^[!-~]{1,255}$"  # visible ASCII, as in the OpenAPI document


def idempotency_key():
    """The Idempotency-Key header, or None."""
    value = request.headers.get("Idempotency-Key")
    if value is None:
        return None
    if not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, value):
        raise bad_request("Idempotency-Key must be 1 to 255 visible ASCII characters.")
    return value
