"""The OpenAPI document, built from the routes and schemas the views use.

Each API view carries a `@doc(...)` naming the module-level schema instances
of its query, body and response. The same declaration loads the query and
the body and hands them to the view as `query=` and `body=`, so the document
cannot describe a body other than the one the view reads. The scope comes
from `@require_scope`, the path and methods from Flask's URL map. Nothing
here is a hand-kept copy of the API: a route without `@doc` or without a
scope makes the app refuse to start, and the tests check responses against
the document with schemathesis.
"""

import functools
import re

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import request
from werkzeug.routing import PathConverter

from content_publishing.http.common import (
    IDEMPOTENCY_KEY_PATTERN,
    IF_MATCH_PATTERN,
    json_body,
    load_query,
    refuse_query,
)
from content_publishing.schemas.common import ErrorSchema, health_schema
from content_publishing.schemas.members import accepted_schema, invite_accept_schema

TITLE = "Content Publishing Service"
VERSION = "1.0.0"
SECURITY = [{"ApiKeyHeader": []}, {"BearerAuth": []}]
ERROR_TEXT = {
    400: "Malformed JSON, a key given twice, a body that is not UTF-8 or a malformed header "
    "(`bad_request`), or invalid, unknown, repeated or read-only fields or parameters "
    "(`validation_error`: `details` maps each field to its messages, and `message` names the "
    "fields with the first message of each).",
    401: "API key missing, malformed, unknown, revoked or expired (or the session cookie "
    "unknown or ended); signing in: `sign_in_failed` (a wrong password or an unknown address, "
    "alike) or `second_factor_required` (send `code`).",
    403: "The key lacks the required scope (`insufficient_scope`: `details.required_scope`), "
    "or its member's role does not allow the act (`forbidden`: the message names the role, "
    "`details.role`), or a change by session cookie lacks its X-CSRF-Token or comes from "
    "another site's Origin (`csrf_failed`).",
    404: "Unknown id, not a UUID, or another workspace's.",
    409: "The change conflicts with the record's state (`conflict`); for scheduling, "
    "`schedule_conflict` (a channel's guard: `details.rule`, `details.conflicting_post_ids`) or "
    "`no_free_slot` (the queue found no slot); for a recycled copy, `not_published` (the "
    "original is not Published) or `too_soon` (sooner than its channel's recycle_after_days "
    "after the original went out: `details.earliest_at`); for LinkedIn connections, "
    "`linkedin_not_configured` (the operator has not set the LinkedIn app's client id and "
    "secret: `details.settings` names them); for members, `last_owner` (a workspace keeps at "
    "least one owner); with approvals required, `approval_required` (the post has no approval "
    "that holds, so it may not be scheduled or queued); `owner_approval_required` (the post "
    "goes out on a colleague's personal profile and has not their approval: `details.member_id`, "
    "`details.channel_id`).",
    410: "The invitation was used already (`invite_used`) or is past its 7 days "
    "(`invite_expired`); a sign-in link was used already (`link_used`) or is past its "
    "minutes (`link_expired`).",
    412: "If-Match names a stale version; the ETag header carries the current one.",
    413: "The request body is larger than MAX_CONTENT_LENGTH.",
    414: "The request line is longer than 4094 bytes (answered by gunicorn, same envelope).",
    415: "The body is neither application/json nor JSON sent as text/plain.",
    429: "Over the rate limit of the key or the address (answered by the deployment's nginx, "
    "same envelope, with Retry-After); or 10 failed sign-ins of an address, or from a "
    "client, within 15 minutes (`rate_limited`, with Retry-After).",
    431: "Too many or too large request headers (answered by gunicorn, same envelope).",
    503: "Another writer held the database past the busy timeout (`busy`); retry (Retry-After). "
    "On the posts list, `search_too_broad`: a search (`q`) stopped at its time limit "
    "(FLASK_SEARCH_TIMEOUT_MS); narrow it rather than retry.",
    507: "The server's storage is full; nothing was written.",
}


def doc(
    summary,
    *,
    query=None,
    body=None,
    body_required=True,
    response=None,
    status=200,
    errors=(),
    description=None,
    headers=(),
    request_headers=(),
    links=None,
    body_reader=None,
):
    """Declare what a view accepts and returns; load what it accepts.

    The view gets the loaded query as `query=` and the loaded body as
    `body=`. Without a `query` schema any query parameter is a 400. With
    `body_required=False` a request without a body loads as `{}`.
    `body_reader`: for a body that may come in another media type than JSON
    (the CSV of an import): its `load(body)` reads and loads the body, and
    its `described` says in the operation's description what else it takes
    (a requestBody content type such as text/csv is something generated
    clients such as openapi-python-client refuse to build).
    """

    def decorator(view):
        @functools.wraps(view)
        def loading(*args, **kwargs):
            if query is None:
                refuse_query()
            else:
                kwargs["query"] = load_query(query)
            if body_reader is not None:
                kwargs["body"] = body_reader.load(body)
            elif body is not None:
                sent = body_required or request.content_length or request.is_json
                kwargs["body"] = body.load(json_body() if sent else {})
            return view(*args, **kwargs)

        loading.apidoc = {
            "summary": summary,
            "description": description,
            "query": query,
            "body": body,
            "body_required": body_required,
            "response": response,
            "status": status,
            "errors": tuple(errors),
            "headers": tuple(headers),
            "request_headers": tuple(request_headers),
            "links": links or {},
            "body_reader": body_reader,
        }
        return loading

    return decorator


def check_declarations(app):
    """Every API route names its scope and its documentation; called when
    the app is created, so a forgotten declaration never reaches a client."""
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("api."):
            continue
        view = app.view_functions[rule.endpoint]
        if getattr(view, "apidoc", None) is None:
            raise RuntimeError(f"{rule.endpoint} has no @doc: the API document would miss it")
        if getattr(view, "required_scope", None) is None:
            raise RuntimeError(
                f"{rule.endpoint} has no @require_scope (or @any_valid_key): undeclared, any key "
                "could call it"
            )


def item_links(name, param, views=None, **extra):
    """OpenAPI links from a created record to reading and updating it: the
    views `get_<views>_item` and `update_<views>_item` (operation ids are
    view names), `views` being the name in lower case unless given."""
    by_id = {"parameters": {param: "$response.body#/id"}}
    views = views or name.lower()
    return {
        f"Get{name}": {"operationId": f"get_{views}_item", **by_id},
        f"Update{name}": {"operationId": f"update_{views}_item", **by_id},
        **extra,
    }


RESPONSE_HEADERS = {
    "ETag": {"description": 'The record\'s version, quoted: "3".', "schema": {"type": "string"}},
    "Location": {"description": "Path of the created record.", "schema": {"type": "string"}},
}
REQUEST_HEADERS = {
    "If-Match": {
        "description": 'Apply the change only if the record\'s version still is this ETag ("3"), '
        'or "*". Strong comparison: a weak W/"3" never matches.',
        "schema": {"type": "string", "pattern": IF_MATCH_PATTERN},
    },
    "Idempotency-Key": {
        "description": "A retry with the same key and body returns the first result.",
        "schema": {"type": "string", "pattern": IDEMPOTENCY_KEY_PATTERN},
    },
}


def _schema_name(schema):
    name = type(schema).__name__
    name = name[: -len("Schema")] if name.endswith("Schema") else name
    return name + ("Update" if schema.partial is True else "")


def build_spec(app):
    """The OpenAPI document of every API route; refuses (as create_app does)
    a route without its @doc or its @require_scope."""
    check_declarations(app)
    plugin = MarshmallowPlugin(schema_name_resolver=_schema_name)
    spec = APISpec(
        title=TITLE,
        version=VERSION,
        openapi_version="3.0.3",
        plugins=[plugin],
        info={
            "description": (
                "Posts, articles and the publish callback. Authenticate with an API key in "
                "`X-API-Key` (preferred) or `Authorization: Bearer`. Each operation names the "
                "scope it needs in `x-required-scope`. Every answer carries `X-Request-ID`: "
                "the client's own when it sent 1 to 128 characters of `A-Za-z0-9._:/+=@-`, "
                "else a new UUID; quote it when reporting a problem."
            )
        },
        servers=[{"url": "/"}],
    )
    spec.components.security_scheme(
        "ApiKeyHeader", {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    )
    spec.components.security_scheme("BearerAuth", {"type": "http", "scheme": "bearer"})
    spec.components.schema("Error", schema=ErrorSchema)

    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.endpoint.startswith(DOCUMENTED):
            continue
        view = app.view_functions[rule.endpoint]
        info = view.apidoc
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        operations = {
            method.lower(): _operation(view, info, rule)
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"})
        }
        spec.path(path=path, operations=operations)
    spec.path(path="/health", operations={"get": HEALTH_OPERATION})
    spec.path(path="/functions/v1/linkedin/callback", operations={"get": CALLBACK_OPERATION})
    spec.path(path="/media/{media_id}.{ext}", operations={"get": MEDIA_FILE_OPERATION})
    spec.path(path="/functions/v1/invites-accept", operations={"post": ACCEPT_OPERATION})
    document = spec.to_dict()
    _schema_rules(document, plugin)
    return document


# The endpoints the document is built from: the API's, and those of signing
# in (http/session.py: `public`), which need no key.
DOCUMENTED = ("api.", "signin.")


def _schema_rules(document, plugin):
    """A rule over several fields that a schema states in JSON Schema
    (`Meta.openapi`, such as `not: {required: [a, b]}` for "not both"), added
    to its component: apispec takes only a Meta's title and description."""
    components = document["components"]["schemas"]
    for key, name in plugin.converter.refs.items():
        rules = getattr(getattr(key[0], "Meta", None), "openapi", None)  # key: (class, ...)
        if rules and name in components:
            components[name].update(rules)


INTEGER_IDS = {"member_id", "session_id", "key_id"}  # numbers, as `flask members list` shows them


def _path_schema(rule, arg):
    """A record's id is a UUID (a member's, digits); a `<path:...>` argument (a channel's id, which
    is `personal` or a brand_id) is any text."""
    if isinstance(rule._converters.get(arg), PathConverter):
        return {"type": "string", "minLength": 1, "maxLength": 100}
    if arg in INTEGER_IDS:
        return {"type": "string", "pattern": "^[0-9]{1,19}$"}
    return {"type": "string", "format": "uuid"}


def _operation(view, info, rule):
    scope = getattr(view, "required_scope", None)
    description = info["description"] or ""
    role = getattr(view, "required_role", None)
    if scope and role:
        description = (
            f"Requires the scope `{scope}` and a member of role `{role}` or above. {description}"
        ).strip()
    elif scope:
        description = f"Requires the scope `{scope}`. {description}".strip()
    elif getattr(view, "keyless", False):
        description = description.strip()
    else:
        description = f"Any valid key, whatever its scopes. {description}".strip()
    if info["body"] is not None and info["body_reader"] is not None:
        description = f"{description} {info['body_reader'].described}".strip()
    op = {
        "operationId": rule.endpoint.rsplit(".", 1)[-1],
        "summary": info["summary"],
        "description": description,
        "tags": [rule.endpoint.split(".")[-2]],
        "security": [] if getattr(view, "keyless", False) else SECURITY,
        "x-required-scope": scope or None,  # declared: build_spec checked; "" is any key
        **({"x-required-role": role} if role else {}),
        "parameters": _parameters(info, rule),
        "responses": {str(info["status"]): _success(info)},
    }
    if info["body"] is not None:
        op["requestBody"] = {
            "required": info["body_required"],
            "content": {"application/json": {"schema": info["body"]}},
        }
    errors = _error_statuses(info, rule, scope)
    for status in sorted(errors):
        op["responses"][str(status)] = {
            "description": ERROR_TEXT[status],
            "content": {"application/json": {"schema": "Error"}},
        }
    if 412 in errors:
        op["responses"]["412"]["headers"] = {"ETag": RESPONSE_HEADERS["ETag"]}
    return op


def _parameters(info, rule):
    """Path arguments, the query schema, then the request headers it reads."""
    parameters = [
        {"in": "path", "name": arg, "required": True, "schema": _path_schema(rule, arg)}
        for arg in sorted(rule.arguments)
    ]
    if info["query"] is not None:
        parameters.append({"in": "query", "schema": info["query"]})
    parameters += [
        {"in": "header", "name": name, "required": False, **REQUEST_HEADERS[name]}
        for name in info["request_headers"]
    ]
    return parameters


def _success(info):
    ok = {"description": "Success."}
    if info["response"] is not None:
        ok["content"] = {"application/json": {"schema": info["response"]}}
    if info["headers"]:
        ok["headers"] = {name: RESPONSE_HEADERS[name] for name in info["headers"]}
    if info["links"]:
        ok["links"] = info["links"]
    return ok


def _error_statuses(info, rule, scope):
    """Every error status an operation may answer, declared or implied."""
    # 400: also any unknown query parameter; 414, 429, 431: answered before the app
    errors = {400, 401, 414, 429, 431, *info["errors"]}
    if scope:
        errors.add(403)
    if info["body"] is not None:
        errors |= {413, 415}
    if rule.methods & {"POST", "PATCH", "DELETE"}:
        errors |= {503, 507}  # a write may find the database busy or full
    if rule.arguments:
        errors.add(404)
    return errors


ACCEPT_OPERATION = {
    "operationId": "accept_invite",
    "summary": "Take up an invitation",
    "description": "Needs no key: the invitation's token (from the `invite_url` that POST "
    "/functions/v1/members answered) is the capability. Makes the member's first key, with "
    "every scope their role allows, shown only in this answer, and names the workspace and "
    "the role. A token works once (410 `invite_used`, also after the member, or whoever "
    "invited them, was removed) and "
    "for 7 days (410 `invite_expired`); an unknown one is a 404.",
    "tags": ["members"],
    "security": [],
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": invite_accept_schema}},
    },
    "responses": {
        "201": {
            "description": "Success.",
            "content": {"application/json": {"schema": accepted_schema}},
        },
        **{
            str(status): {
                "description": ERROR_TEXT[status],
                "content": {"application/json": {"schema": "Error"}},
            }
            for status in (400, 404, 410, 413, 415, 503, 507)
        },
    },
}


HEALTH_OPERATION = {
    "operationId": "health",
    "summary": "Liveness and database check",
    "description": "Needs no key. 200 whenever the service runs; `status` is `degraded` and "
    "`database` false when the database does not answer.",
    "tags": ["health"],
    "security": [],
    "responses": {
        "200": {
            "description": "Success.",
            "content": {"application/json": {"schema": health_schema}},
        }
    },
}


CALLBACK_OPERATION = {
    "operationId": "linkedin_callback",
    "summary": "Where LinkedIn sends the browser back after a sign-in",
    "description": "Needs no key: a browser arrives here from LinkedIn's consent page, with the "
    "`state` that POST /functions/v1/channels-connect/{id} put in the authorize URL. Trades "
    "the `code` for tokens (kept encrypted), finds the author (the member, or the pages they "
    "administer), then 303 to the dashboard's channels page. A missing, expired, reused or "
    "foreign state is a 400 page and nothing is stored; `error` (the person cancelled) "
    "redirects to the dashboard with the message shown. Register "
    "`<FLASK_PUBLIC_URL>/functions/v1/linkedin/callback` as the app's redirect URL at LinkedIn.",
    "tags": ["linkedin"],
    "security": [],
    "parameters": [
        {"in": "query", "name": name, "required": False, "schema": {"type": "string"}}
        for name in ("code", "state", "error", "error_description")
    ],
    "responses": {
        "303": {"description": "To the dashboard's channels page, which says what happened."},
        "400": {
            "description": "A page: the state is missing, unknown, used, expired or "
            "another browser's, or LinkedIn refused the code. Nothing is stored."
        },
        "409": {
            "description": "A page: the service is not set up for LinkedIn "
            "(`linkedin_not_configured`)."
        },
        "502": {"description": "A page: LinkedIn did not answer as it should."},
    },
}


MEDIA_FILE_OPERATION = {
    "operationId": "media_file",
    "summary": "An image of the media library",
    "description": "Needs no key: the id is 128 random bits, the address a capability, so that "
    "the automation fetches a post's media without the workspace's key (FLASK_MEDIA_PUBLIC=0: the "
    "owner's key with posts:read instead). Cached for a year (immutable); If-None-Match and "
    "a Range of one byte range are honoured (a suffix longer than the file: all of it, 206); "
    "several ranges, another unit or a range that cannot be read are ignored (200, the whole "
    "file). An extension other than the media's own is a 404.",
    "tags": ["media"],
    "security": [],
    "parameters": [
        {
            "in": "path",
            "name": "media_id",
            "required": True,
            "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
        },
        {
            "in": "path",
            "name": "ext",
            "required": True,
            "schema": {"type": "string", "enum": ["jpg", "png", "gif", "webp"]},
        },
    ],
    "responses": {
        # No `content`: generated clients build no reader for an image/* one.
        "200": {"description": "The image, as image/jpeg, image/png, image/gif or image/webp."},
        "206": {"description": "The part a Range asked for."},
        "304": {"description": "Not modified since the If-None-Match ETag."},
        "404": {
            "description": "No such media, or another extension than its own.",
            "content": {"application/json": {"schema": "Error"}},
        },
        "416": {
            "description": "The Range starts past the end of the file "
            "(`range_not_satisfiable`, with Content-Range: bytes */length).",
            "content": {"application/json": {"schema": "Error"}},
        },
    },
}
