"""Request and response helpers shared by the API views."""

import json
import re
import uuid
from urllib.parse import urlencode

from flask import current_app, g, request

from content_publishing.errors import ApiError, bad_request, not_found, validation_error
from content_publishing.schemas.common import encode_cursor, render

# Our bodies nest three levels at most; the parser's own limit is Python's
# recursion limit, far deeper, and is reached as a crash, not an answer.
MAX_JSON_DEPTH = 32


def json_body():
    """The request's JSON; marshmallow then rejects anything but an object.

    Read here rather than by Flask's get_json, which would take UTF-16 and
    UTF-32 bodies and let a repeated key silently win over the first: the
    body must be UTF-8 (a byte-order mark is allowed, as spreadsheet-made
    files carry one), and a key given twice in one object is a 400 naming it.

    A text/plain body is read as JSON too, as the hosted functions this
    service mirrors do (Supabase's clients send a string body that way); one
    that is not JSON is a 400. This opens nothing to other sites: a browser
    sends text/plain across origins without a preflight, but cannot add the
    key header without one.
    """
    plain = request.mimetype == "text/plain"
    if not (request.is_json or plain):
        raise ApiError(415, "Send a JSON body with Content-Type: application/json.")
    try:
        text = request.get_data(cache=True).decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise bad_request(
            f"The request body is not UTF-8 (an invalid byte at position {e.start})."
        ) from None
    try:
        body = json.loads(text, object_pairs_hook=_object_without_repeats)
    except RepeatedKey as e:
        raise bad_request(
            f'The request body gives the key "{e.key}" more than once in one object.',
            {"repeated_key": e.key},
        ) from None
    except ValueError:
        if plain:
            raise bad_request(
                "A text/plain body is read as JSON, and this one is not JSON."
            ) from None
        raise bad_request("The request body is not valid JSON.") from None
    except RecursionError:
        body = None
        too_deep = True
    else:
        too_deep = _deeper_than(body, MAX_JSON_DEPTH)
    if too_deep:
        raise bad_request(f"The request body nests deeper than {MAX_JSON_DEPTH} levels.")
    try:  # JSON may escape lone surrogates ("\ud800"), which no text can hold
        json.dumps(body, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise bad_request("The request body holds invalid Unicode (a lone surrogate).") from None
    return body


class RepeatedKey(ValueError):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _object_without_repeats(pairs):
    found = dict(pairs)
    if len(found) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return found


def _deeper_than(value, limit):
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def load_query(schema):
    """Query parameters through `schema`; a bad, unknown or repeated one is a
    400 naming it (a repeated one would otherwise silently lose a value)."""
    args = request.args
    repeated = {name: ["Given more than once."] for name in args if len(args.getlist(name)) > 1}
    if repeated:
        raise validation_error(repeated)
    return schema.load(args.to_dict())


def refuse_query():
    """For routes that take no query parameters: a typo is a 400, not ignored."""
    if request.query_string and request.args:
        raise validation_error({name: ["Unknown field."] for name in request.args})


def item_id(value, what):
    """The canonical form of a UUID path segment; anything else is a 404,
    the same answer as for an unknown or another workspace's id."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise not_found(what) from None


def lead_seconds():
    """How far ahead a post must be scheduled (FLASK_SCHEDULE_MIN_LEAD_SECONDS)."""
    return current_app.config["SCHEDULE_MIN_LEAD_SECONDS"]


def page_body(item_schema, page, query, rows=None):
    """The list envelope: {"data", "total", "limit", "offset", "next"}, and
    "total_is_estimate" for a list whose total can be one (posts).
    `rows`: the page's rows as they are shown, when not as stored."""
    body = {
        "data": [render(item_schema, row) for row in (page.rows if rows is None else rows)],
        "total": page.total,
        "limit": query["limit"],
        "offset": query["offset"],
        "next": next_link(page, query),
    }
    if page.estimate is not None:
        body["total_is_estimate"] = page.estimate
    return body


def next_link(page, query):
    """The absolute URL of the page after `page`, with the same filters, or
    None after the last. It names the last row (a cursor) where the order is
    by creation, so that following it never repeats or misses a record that
    is added meanwhile; by offset otherwise (posts by scheduled_at or by
    their stats)."""
    if not page.more:
        return None
    args = {k: v for k, v in request.args.items() if k not in ("offset", "cursor")}
    if query.get("order", "-created_at") != "-created_at":
        args["offset"] = query["offset"] + query["limit"]
    else:
        last = page.rows[-1]
        args["cursor"] = encode_cursor(last["created_at"], last["id"])
    return f"{request.base_url}?{urlencode(args)}"


def get_owned(fetch, value, what):
    """The caller's record through `fetch(workspace_id, id)`, or a 404."""
    record = fetch(g.workspace_id, item_id(value, what))
    if record is None:
        raise not_found(what)
    return record


def etag(record):
    """The record's version is its entity tag: "3"."""
    return f'"{record["version"]}"'


def with_etag(body, record, status=200, headers=None):
    return body, status, {"ETag": etag(record), **(headers or {})}


# RFC 9110: If-Match = "*" / #entity-tag; entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE.
# A list of them (empty elements allowed by the list rule), at least one tag.
_ENTITY_TAG = r'(W/)?"([\x21\x23-\x7e\x80-\xff]*)"'
_ELEMENT = r'[ \t]*(?:(?:W/)?"[\x21\x23-\x7e\x80-\xff]*")?[ \t]*'
IF_MATCH_PATTERN = rf'^[ \t]*\*[ \t]*$|^(?=[^"]*")(?:{_ELEMENT},)*{_ELEMENT}$'
_IF_MATCH = re.compile(IF_MATCH_PATTERN)


def check_if_match(record):
    """Honour If-Match with the strong comparison RFC 9110 asks for: only
    "*" or the record's exact version applies; a weak tag (W/"3") never
    matches. A stale tag is a 412 and nothing changes; a value that is not
    an entity-tag list is a 400."""
    if "If-Match" not in request.headers:
        return
    value = request.headers["If-Match"]
    if value.strip() == "*":
        return
    current = str(record["version"])
    if any(not weak and opaque == current for weak, opaque in _entity_tags(value)):
        return
    raise ApiError(
        412,
        f"The record has changed: its current version is {record['version']}.",
        details={"current_version": record["version"]},
        headers={"ETag": etag(record)},
    )


def _entity_tags(value):
    """[(weak, opaque), ...] of an If-Match list; 400 unless well-formed."""
    if not _IF_MATCH.fullmatch(value):
        raise bad_request('If-Match must be "*" or entity tags in double quotes, such as "3".')
    return [(bool(weak), opaque) for weak, opaque in re.findall(_ENTITY_TAG, value)]


IDEMPOTENCY_KEY_PATTERN = r"^[!-~]{1,255}$"  # visible ASCII, as in the OpenAPI document


def idempotency_key():
    """The Idempotency-Key header, or None."""
    value = request.headers.get("Idempotency-Key")
    if value is None:
        return None
    if not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, value):
        raise bad_request("Idempotency-Key must be 1 to 255 visible ASCII characters.")
    return value
