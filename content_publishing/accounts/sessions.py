"""Sessions: a signed-in browser (docs/accounts.md, "Sessions").

A session's token is 256 random bits, sent once as the `cps_session`
cookie (HttpOnly, SameSite=Lax, Secure when FLASK_PUBLIC_URL is https);
the store keeps its SHA-256 only. Its CSRF token is derived from it (a
SHA-256 of the token with a label), so that it needs no column of its own
and a CSRF token never tells the session's token. A session holds until it
is ended, IDLE_DAYS after it was last seen and TOTAL_DAYS after it began.
"""

import hashlib
import secrets
from datetime import timedelta

from content_publishing import timestamps
from content_publishing.store import sessions as session_store

COOKIE = "cps_session"
IDLE_DAYS = 14
TOTAL_DAYS = 30
DEVICE_MAX = 200


def new_token():
    return secrets.token_urlsafe(32)


def token_hash(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def csrf_token(token):
    return hashlib.sha256(b"csrf\0" + token.encode("utf-8")).hexdigest()


def idle_since(now):
    """Sessions last seen at or before this have ended by being idle."""
    return timestamps.to_text(timestamps.parse(now) - timedelta(days=IDLE_DAYS))


def started_since(now):
    return timestamps.to_text(timestamps.parse(now) - timedelta(days=TOTAL_DAYS))


def expires_at(session):
    """When the session ends if nothing ends it sooner."""
    idle = timestamps.parse(session["last_seen_at"]) + timedelta(days=IDLE_DAYS)
    total = timestamps.parse(session["created_at"]) + timedelta(days=TOTAL_DAYS)
    return timestamps.to_text(min(idle, total))


def why_not(session, now):
    """Why a found session may not be used at `now`, in words; or None."""
    if session is None:
        return "The session is not known: sign in again."
    if session["ended_at"] is not None:
        return "The session was ended: sign in again."
    if session["last_seen_at"] <= idle_since(now):
        return f"The session ended after {IDLE_DAYS} days unused: sign in again."
    if session["created_at"] <= started_since(now):
        return f"The session ended {TOTAL_DAYS} days after it began: sign in again."
    if session["member_removed_at"] is not None:
        return "The session ended: its member was removed from the workspace."
    return None


def open_session(account_id, member_id, device, address, now):
    """A new session of the account in member `member_id`'s workspace:
    (its token, shown only in the cookie; its record)."""
    token = new_token()
    record = session_store.insert_session(
        token_hash(token), account_id, member_id, (device or "")[:DEVICE_MAX] or None, address, now
    )
    return token, record
