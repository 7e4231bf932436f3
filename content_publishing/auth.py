"""API-key authentication and scope checks (docs/api.md, "API keys").

Keys look like ``svc_live_`` + 40 characters of [A-Za-z0-9]. Only the SHA-256
of the whole key is stored, so a leaked database does not leak usable keys.
"""

import functools
import hashlib
import logging
import re
import secrets
import string
from datetime import timedelta

from flask import current_app, g, request
from werkzeug.exceptions import HTTPException

from content_publishing import logs, roles, timestamps
from content_publishing.errors import insufficient_scope, unauthorized
from content_publishing.serving import metrics
from content_publishing.store import keys as key_store
from content_publishing.store.db import check_key_generation, key_cache, transaction
from content_publishing.store.db import settle_key_check as settle_pending_key_check

log = logging.getLogger("auth")  # a short name: the `logger` field operators filter on

SCOPES = roles.SCOPES
KEY_PREFIX = "svc_live_"
KEY_RANDOM_LENGTH = 40
KEY_PATTERN = re.compile(r"svc_live_[A-Za-z0-9]{32,128}")
_ALPHABET = string.ascii_letters + string.digits


def generate_key():
    return KEY_PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(KEY_RANDOM_LENGTH))


def hash_key(key):
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def display_prefix(key):
    """The first 4 random characters: enough to recognise a key in `keys list`,
    far too little to use it. `svc_live_` itself is not stored, so the
    database never holds anything that looks like a key."""
    return key[len(KEY_PREFIX) : len(KEY_PREFIX) + 4]


def is_well_formed(key):
    return KEY_PATTERN.fullmatch(key) is not None


def key_from_headers(headers):
    """X-API-Key first; only when it is absent, Authorization: Bearer.

    A present X-API-Key wins even when it is bad, so a bad key can never be
    rescued by a second header. Header names are case-insensitive already.
    """
    if "X-API-Key" in headers:
        return headers["X-API-Key"].strip()
    scheme, _, value = headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def authenticate():
    """before_request hook of the API blueprint: 401 unless a usable key.

    A key this worker has seen is taken from its cache (store/key_cache.py)
    and checked against the key generation with the request's first
    statement; any other is looked up. Preflight requests carry no key by
    design and are answered by flask-cors.
    """
    if request.method == "OPTIONS":
        return None
    key = key_from_headers(request.headers)
    if key is None:
        raise _refused("missing", "An API key is required: send it in the X-API-Key header.")
    if not is_well_formed(key):
        raise _refused("malformed", "The API key is malformed.")
    key_hash = hash_key(key)
    moment = timestamps.now()
    now = timestamps.to_text(moment)
    cache = key_cache()
    record = cache.get(key_hash)
    if record is None:
        record = _usable(key_store.find_key(key_hash), now)
        cache.remember(key_hash, record)
    else:
        _usable(record, now)  # expiry is the clock's, cached or not
        check_key_generation(
            record["generation"], functools.partial(_looked_up_again, key_hash, now)
        )
    _identify(record)
    _touch_later(record, moment, now)
    return None


def _usable(record, now):
    """The record of a key that may be used at `now`; else the 401 saying why."""
    if record is None:
        raise _refused("unknown", "The API key is not known.")
    if record["revoked_at"] is not None:
        raise _refused("revoked", "The API key has been revoked.")
    if record["expires_at"] is not None and record["expires_at"] <= now:
        raise _refused("expired", "The API key has expired.")
    if record["member_removed_at"] is not None:
        raise _refused("revoked", "The API key has been revoked: its member was removed.")
    return record


def _identify(record):
    """The request's workspace, member and permissions (roles.Grant: the
    key's scopes as its member's role allows them)."""
    g.workspace_id = record["workspace_id"]
    g.workspace_name = record["workspace_name"]
    g.member_id = record["member_id"]
    g.key_id = record["id"]
    g.actor = roles.Actor(record["id"], record["member_id"])
    g.scopes = _grant(record)
    logs.identify(record["id"], record["workspace_name"])


def identify_session(record):
    """The request's workspace, member and permissions by a session
    (http/cookies.py): no key, and the member's role's every scope."""
    g.workspace_id = record["workspace_id"]
    g.workspace_name = record["workspace_name"]
    g.member_id = record["member_id"]
    g.key_id = None
    g.session = record
    g.actor = roles.Actor(None, record["member_id"])
    g.scopes = roles.Grant(roles.ROLE_SCOPES[record["role"]], record["role"], record["member_id"])
    logs.identify(None, record["workspace_name"])


def _grant(record):
    return roles.Grant(frozenset(record["scopes"].split()), record["role"], record["member_id"])


def _looked_up_again(key_hash, now):
    """The key generation moved since this key was cached: judge the key
    afresh, before the request's first statement's result is used; if its
    scopes changed, the view's scope is checked again too."""
    g.pop("touch_key", None)  # a refused key is not recorded as used
    cache = key_cache()
    cache.forget(key_hash)
    record = _usable(key_store.find_key(key_hash), now)
    cache.remember(key_hash, record)
    if record["workspace_id"] != g.workspace_id or _grant(record) != g.scopes:
        _identify(record)
        authorize()


def settle_key_check(response):
    """after_request hook: a request that ran no statement has its cached
    key checked now, so that no answer goes out on a key revoked before the
    request came."""
    try:
        settle_pending_key_check()
    except HTTPException as refusal:
        g.pop("touch_key", None)
        return current_app.make_response(current_app.handle_user_exception(refusal))
    return response


def _refused(reason, message):
    """The 401, its reason counted in the metrics (`cps_auth_failures_total`)."""
    metrics.auth_failure(reason)
    return unauthorized(message)


def _touch_later(record, moment, now):
    """Update last_used_at after the response has gone out, and only when the
    stored value is older than KEY_TOUCH_INTERVAL, so that a busy key does not
    turn every read into a write."""
    interval = timedelta(seconds=current_app.config["KEY_TOUCH_INTERVAL"])
    stale_before = timestamps.to_text(moment - interval)
    last = record["last_used_at"]
    if last is not None and last >= stale_before:
        return
    record["last_used_at"] = now  # a cached record: the next requests need not write again
    g.touch_key = (record["id"], now, stale_before)


def touch_after_response(response):
    """after_request hook: schedule the write for when the response closes."""
    touch = g.pop("touch_key", None)
    if touch is not None:
        write_after_response(response, key_store.touch_key, touch, "last_used_at for key")
    return response


def write_after_response(response, store_write, args, what):
    """Run store_write(*args) in its own transaction once `response` has gone
    (a key's or a session's last use): the request already succeeded, so a
    failure is logged with `what` and args[0], never answered."""
    app = current_app._get_current_object()

    def write():
        with app.app_context():
            try:
                with transaction():
                    store_write(*args)
            except Exception:  # the request already succeeded; never fail it late
                log.warning("could not record %s %s", what, args[0], exc_info=True)

    response.call_on_close(write)


def authorize():
    """before_request hook after `authenticate`: 403 unless the key carries
    the scope the view declares, before the view's body is even read."""
    if request.method == "OPTIONS":
        return None
    view = current_app.view_functions.get(request.endpoint)
    scope = getattr(view, "required_scope", None)
    if scope:
        ensure_scope(scope, getattr(view, "required_role", None))
    return None


def ensure_scope(scope, role=None):
    """403 unless the key has `scope` (insufficient_scope) and its member's
    role allows it and is at least `role` (forbidden, naming the role)."""
    grant = g.get("scopes")
    if grant is None:
        raise insufficient_scope(scope)
    grant.require(scope)
    if role:
        grant.require_role(role, f"{request.method} {request.path}")


ANY_VALID_KEY = ""  # the declared scope of a view that any valid key may call


def keyless(view):
    """View decorator of a view outside the API blueprint that needs no key
    nor session (signing in; its password or token is the capability): the
    API document says so."""
    view.required_scope = ANY_VALID_KEY
    view.keyless = True
    return view


def any_valid_key(view):
    """View decorator: declares that any valid key may call the view, whatever
    its scopes (GET /me); the key itself is still checked by `authenticate`."""
    view.required_scope = ANY_VALID_KEY
    return view


def require_scope(scope, role=None):
    """View decorator: declares the scope the view needs, and the least role
    of the key's member when it needs one beyond what the scope allows
    (roles.py); the API document shows both, `authorize` checks them first
    and the view checks them again itself."""

    def decorator(view):
        @functools.wraps(view)
        def wrapped(*args, **kwargs):
            ensure_scope(scope, role)
            return view(*args, **kwargs)

        wrapped.required_scope = scope
        wrapped.required_role = role
        return wrapped

    return decorator
