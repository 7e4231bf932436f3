"""Signing in and out, links by mail, and a person's sessions.

POST   /functions/v1/session             (no key) sign in with email and password: the cookie
POST   /functions/v1/session-link        (no key) mail a single-use sign-in link
POST   /functions/v1/password-reset      (no key) mail a link that sets a new password
POST   /functions/v1/session-link-use    (no key) take a link up: the cookie (and a password)
DELETE /functions/v1/session             sign out: this session ends
PATCH  /functions/v1/session             switch the session to another of the account's workspaces
GET    /functions/v1/invites/{token}     (no key) what an invitation is, leaving it unused
GET    /functions/v1/sessions            the account's sessions (device, address, last seen)
DELETE /functions/v1/sessions            sign out everywhere: every session of the account ends
DELETE /functions/v1/sessions-item/{id}  end one of them

The answers that open a session set the `cps_session` cookie (cookies.py)
and carry the CSRF token; the session's token itself is only in the
cookie. The link routes answer the same for any address.
"""

import hashlib

from flask import Blueprint, current_app, g, request

from content_publishing import timestamps
from content_publishing.accounts import links, passwords, sessions, signin
from content_publishing.auth import keyless, require_scope
from content_publishing.errors import ApiError, conflict, not_found
from content_publishing.http import cookies
from content_publishing.http.apidoc import doc
from content_publishing.schemas.accounts import (
    link_request_schema,
    link_sent_schema,
    link_use_schema,
    sessions_schema,
    sign_in_schema,
    signed_in_schema,
    switch_schema,
)
from content_publishing.schemas.members import invite_schema
from content_publishing.store import accounts as account_store
from content_publishing.store import members as member_store
from content_publishing.store import sessions as session_store
from content_publishing.store.db import snapshot, transaction
from content_publishing.workspaces import members


def token_hash(token):
    """An invitation's token as the store keeps it (as http/members.py's)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


bp = Blueprint("session", __name__)
public = Blueprint("signin", __name__, url_prefix="/functions/v1")  # no key: app.py registers it


@public.after_request
def no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


MAX_ID = 2**63 - 1
TRUSTED_PROXIES = ("127.0.0.1", "::1")


def client_address():
    """The peer, or behind a proxy on this host (deploy/nginx.conf) the
    address it forwarded last: what failed sign-ins count against."""
    peer = request.remote_addr or "-"
    forwarded = request.headers.get("X-Forwarded-For")
    if forwarded and peer in TRUSTED_PROXIES:
        return forwarded.rsplit(",", 1)[-1].strip()[:64] or peer
    return peer


def device():
    return request.headers.get("User-Agent")


def link_url(token):
    return links.link_url(current_app.config["PUBLIC_URL"], token)


def signed_in(token, session, account, member, status=200):
    """The answer that opens a session: its facts, its CSRF token, the cookie."""
    body = {
        "account": account_facts(account),
        "workspace": membership(member),
        "csrf_token": sessions.csrf_token(token),
        "session": session_facts(session),
    }
    response = current_app.make_response((body, status))
    return cookies.set_cookie(response, token)


def account_facts(account):
    return {
        "id": account["id"],
        "email": account["email"],
        "name": account["name"],
        "has_password": account["password_hash"] is not None,
        "second_factor": account["totp_enabled_at"] is not None,
    }


def membership(member):
    return {
        "workspace_id": member["workspace_id"],
        "workspace_name": member["workspace_name"],
        "member_id": member["member_id"],
        "role": member["role"],
    }


def session_facts(session, current_id=None):
    return {
        "id": session["id"],
        "device": session["device"],
        "address": session["address"],
        "workspace_name": session.get("workspace_name"),
        "created_at": session["created_at"],
        "last_seen_at": session["last_seen_at"],
        "expires_at": sessions.expires_at(session),
        "current": session["id"] == current_id,
    }


def account_id():
    """The caller's account: its session's, or its key's member's (None
    when that member has none: no sessions to show or end)."""
    session = g.get("session")
    if session is not None:
        return session["account_id"]
    found = account_store.get_membership(g.member_id)
    return found and found["account_id"]


@public.post("/session")
@doc(
    "Sign in with email and password",
    body=sign_in_schema,
    response=signed_in_schema,
    errors=[429],
    description="Needs no key. Opens a session: the `cps_session` cookie (HttpOnly, "
    "SameSite=Lax) and, in the answer, the CSRF token to send as X-CSRF-Token with every "
    "change. A wrong password and an unknown address get the same 401 `sign_in_failed`; an "
    "account with a second factor needs `code` (401 `second_factor_required`). Ten failed "
    "sign-ins of an address, or from a client, within 15 minutes: 429 `rate_limited` with "
    "Retry-After.",
)
@keyless
def sign_in(body):
    with transaction():
        outcome = signin.with_password(body, device(), client_address(), timestamps.now_text())
    if isinstance(outcome, ApiError):
        raise outcome  # after the commit: the failure it recorded stays
    return signed_in(*outcome)


def _mail_link(body, purpose):
    mail = current_app.config.get("SMTP") is not None
    with transaction():
        if mail:
            links.request_link(body["email"], purpose, link_url, timestamps.now_text())
    message = (
        "If the address is an account's or a member's, a link is on its way; it works once, "
        f"for {links.LINK_MINUTES} minutes."
        if mail
        else "This service sends no mail (FLASK_SMTP_URL is not set): its operator prints a "
        "link with `flask accounts link EMAIL`."
    )
    return {"mail": mail, "message": message}, 202


@public.post("/session-link")
@doc(
    "Mail a sign-in link",
    body=link_request_schema,
    response=link_sent_schema,
    status=202,
    description="Needs no key. Mails a link that signs in once, within 15 minutes, to the "
    "address when it is an account's, or a member's (whose account the link then makes). The "
    "answer is the same for any address: it tells no one whether the address has an account.",
)
@keyless
def request_link(body):
    return _mail_link(body, "sign_in")


@public.post("/password-reset")
@doc(
    "Mail a link that sets a new password",
    body=link_request_schema,
    response=link_sent_schema,
    status=202,
    description="Needs no key. As POST /session-link, with a link whose use must set `password`.",
)
@keyless
def reset_password(body):
    return _mail_link(body, "reset")


@public.post("/session-link-use")
@doc(
    "Take up a sign-in link",
    body=link_use_schema,
    response=signed_in_schema,
    status=201,
    errors=[404, 409, 410],
    description="Needs no key: the link's token is the capability. Opens a session as POST "
    "/session does. With `password`, sets the account's password (a reset link, and the first "
    "owner's, must; the owner's takes `email` too). A link works once (410 `link_used`, also "
    "when its member was removed) and for its minutes (410 `link_expired`); an unknown one "
    "is a 404. Of any number of requests with one link, one gets a session.",
)
@keyless
def use_link(body):
    with transaction():
        outcome = links.use(body, device(), client_address(), timestamps.now_text())
    return signed_in(*outcome, status=201)


@public.get("/invites/<path:token>")
@doc(
    "Read an invitation without taking it up",
    response=invite_schema,
    errors=[404, 410],
    description="Needs no key: the invitation's token is the capability. The workspace, the "
    "member it makes with their role and email, who invited them, until when; the token "
    "stays unused. A used or withdrawn one is 410 `invite_used`, an expired one 410 "
    "`invite_expired`, an unknown one 404.",
)
@keyless
def read_invite(token):
    with snapshot():
        invite = member_store.find_invite(token_hash(token))
        if invite is None:
            raise not_found("invitation")
        members.check_invite(invite, timestamps.now_text())
        has_account = bool(invite["email"]) and (
            account_store.find_by_email(passwords.normal_email(invite["email"])) is not None
        )
    return {
        "workspace": {"id": invite["workspace_id"], "name": invite["workspace_name"]},
        "member": {
            "id": invite["member_id"],
            "name": invite["name"],
            "email": invite["email"],
            "role": invite["role"],
        },
        "invited_by": invite["invited_by_name"],
        "expires_at": invite["expires_at"],
        "has_account": has_account,
    }


@bp.delete("/session")
@doc(
    "Sign out",
    status=204,
    errors=[409],
    description="Ends the calling session and clears its cookie. A key has no session: 409.",
)
@require_scope("posts:read")
def sign_out():
    session = g.get("session")
    if session is None:
        raise conflict("A key has no session to end: revoke the key instead.")
    with transaction():
        session_store.end_session(session["account_id"], session["id"], timestamps.now_text())
    return cookies.clear_cookie(current_app.make_response(("", 204)))


@bp.patch("/session")
@doc(
    "Switch to another workspace",
    body=switch_schema,
    response=signed_in_schema,
    errors=[404, 409],
    description="The session goes on as the account's member of `workspace_id`, with that "
    "member's role; another workspace of the account only (404 otherwise).",
)
@require_scope("posts:read")
def switch_workspace(body):
    session = g.get("session")
    if session is None:
        raise conflict("A key belongs to one workspace: only a session switches.")
    with transaction():
        member = signin.choose_member(session["account_id"], body["workspace_id"])
        if member is None:
            raise not_found("workspace of the account")
        session_store.switch_member(session["id"], member["member_id"])
        account = account_store.get_account(session["account_id"])
    token = cookies.session_token()
    return {
        "account": account_facts(account),
        "workspace": membership(member),
        "csrf_token": sessions.csrf_token(token),
        "session": session_facts({**session, "workspace_name": member["workspace_name"]}),
    }


@bp.get("/sessions")
@doc(
    "List the account's sessions",
    response=sessions_schema,
    description="Every session of the caller's account that still holds, the last seen "
    "first: its device (User-Agent), address, workspace, when it began and was last seen, "
    "and when it ends unless used. A key whose member has no account: none.",
)
@require_scope("posts:read")
def list_sessions():
    now = timestamps.now_text()
    with snapshot():
        found = session_store.list_sessions(
            account_id(), sessions.idle_since(now), sessions.started_since(now)
        )
    current = g.get("session", {}).get("id")
    return {"data": [session_facts(s, current) for s in found]}


@bp.delete("/sessions")
@doc(
    "Sign out everywhere",
    status=204,
    description="Every session of the caller's account ends, this one too: the next request "
    "of each, on any worker, is a 401.",
)
@require_scope("posts:read")
def sign_out_everywhere():
    with transaction():
        session_store.end_all(account_id(), timestamps.now_text())
    response = current_app.make_response(("", 204))
    return cookies.clear_cookie(response) if g.get("session") else response


@bp.delete("/sessions-item/<session_id>")
@doc("End one session", status=204, description="One of the caller's account's sessions.")
@require_scope("posts:read")
def end_session(session_id):
    if not session_id.isascii() or not session_id.isdigit() or int(session_id) > MAX_ID:
        raise not_found("session")
    with transaction():
        ended = session_store.end_session(account_id(), int(session_id), timestamps.now_text())
    if ended is None:
        raise not_found("session")
    return "", 204
