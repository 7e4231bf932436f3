"""Requests by session cookie (docs/accounts.md, "Sessions"): the check of
the session on every request, CSRF, and the cookie itself.

A request without a key but with the `cps_session` cookie is its
session's: the session is read afresh with its member (one statement), so
that an ended session, a removed member or a new role holds from the next
request on every worker; its permissions are its member's role. A request
that may change anything (not GET, HEAD or OPTIONS) must also carry the
session's CSRF token in X-CSRF-Token (GET /me answers it) and an Origin of
this service (FLASK_PUBLIC_URL's, or the Host it was sent to); else 403
csrf_failed, before the view runs. A key always wins: a request with a key
is the key's, whatever cookie it carries, and needs no CSRF token.
"""

import hmac
import logging
from datetime import timedelta
from urllib.parse import urlsplit

from flask import current_app, g, request

from content_publishing import auth, timestamps
from content_publishing.accounts import sessions
from content_publishing.errors import ApiError, csrf_failed, unauthorized
from content_publishing.serving import metrics
from content_publishing.store import sessions as session_store

log = logging.getLogger("auth")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def session_token():
    return request.cookies.get(sessions.COOKIE)


def authenticate():
    """before_request hook of the API blueprint: a request with a key, or
    with neither key nor cookie, is judged as keys are (auth.py); one with
    the session cookie alone, by its session."""
    token = session_token()
    if request.method == "OPTIONS" or not token or auth.key_from_headers(request.headers):
        return auth.authenticate()
    _by_session(token)
    return None


def _by_session(token):
    """Identify the request by its session, or the 401/403 saying why not."""
    moment = timestamps.now()
    now = timestamps.to_text(moment)
    record = session_store.find_session(sessions.token_hash(token))
    reason = sessions.why_not(record, now)
    if reason is not None:
        metrics.auth_failure("session")
        raise unauthorized(reason)
    if request.method not in SAFE_METHODS:
        check_csrf(token)
    auth.identify_session(record)
    interval = timedelta(seconds=current_app.config["KEY_TOUCH_INTERVAL"])
    stale_before = timestamps.to_text(moment - interval)
    if record["last_seen_at"] < stale_before:
        g.touch_session = (record["id"], now, stale_before)


def signed_in_session():
    """The valid session of a request outside the API blueprint (taking an
    invitation up while signed in), when it carries the session's CSRF token
    and this site's Origin; None otherwise (the request is then taken as
    one without a session: a page of another site cannot make a person's
    account join a workspace)."""
    token = session_token()
    if not token:
        return None
    record = session_store.find_session(sessions.token_hash(token))
    if sessions.why_not(record, timestamps.now_text()) is not None:
        return None
    try:
        check_csrf(token)
    except ApiError:
        return None
    return record


def touch_after_response(response):
    """after_request hook: last_seen_at written once the response has gone,
    and only when older than KEY_TOUCH_INTERVAL (as a key's last use)."""
    seen = g.pop("touch_session", None)
    if seen is not None:
        auth.write_after_response(response, session_store.touch_session, seen, "the use of session")
    return response


def check_csrf(token):
    sent = request.headers.get("X-CSRF-Token", "")
    if not hmac.compare_digest(sent.encode(), sessions.csrf_token(token).encode()):
        raise csrf_failed(
            "A change by session needs the X-CSRF-Token header that GET /functions/v1/me answers."
        )
    if request.headers.get("Origin") not in origins():
        raise csrf_failed("A change by session must come from this service's own pages (Origin).")


def origins():
    """The origins a session's writes may come from."""
    found = {_origin(request.host_url)}
    public = current_app.config.get("PUBLIC_URL")
    if public:
        found.add(_origin(public))
    return found


def _origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def set_cookie(response, token):
    response.set_cookie(
        sessions.COOKIE,
        token,
        max_age=sessions.TOTAL_DAYS * 86400,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=str(current_app.config.get("PUBLIC_URL", "")).startswith("https://"),
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def clear_cookie(response):
    response.delete_cookie(
        sessions.COOKIE,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=str(current_app.config.get("PUBLIC_URL", "")).startswith("https://"),
    )
    return response
