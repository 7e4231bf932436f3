"""A workspace's members and their invitations.

GET    /functions/v1/members              the members (posts:read: every member sees who is in)
POST   /functions/v1/members              invite one: the member and a single-use invite_url
PATCH  /functions/v1/members-item/{id}    change a member's role, email or notifications (their own
                                          email and notifications: any member)
DELETE /functions/v1/members-item/{id}    remove a member: every key of theirs revoked at once
POST   /functions/v1/invites-accept       (no key) take up an invitation: the member's first key

Changing members needs members:manage, a scope only an owner's or an
admin's role allows (roles.py), except a member's own email and
notifications, which any member changes (members.may_change); the rules of owners and the last owner are
the domain's (members.py). The invitation's token and the first key are
made here, and only their hashes go to the store.
"""

import hashlib
import secrets

from flask import Blueprint, current_app, g, request

from content_publishing import timestamps
from content_publishing.accounts import signin
from content_publishing.accounts.sessions import csrf_token
from content_publishing.auth import SCOPES, display_prefix, generate_key, hash_key, require_scope
from content_publishing.errors import not_found
from content_publishing.http import cookies
from content_publishing.http.apidoc import doc
from content_publishing.http.common import lead_seconds
from content_publishing.http.connect import DASHBOARD_PATH, revoke_quietly
from content_publishing.http.session import client_address
from content_publishing.schemas.common import render
from content_publishing.schemas.members import (
    accepted_schema,
    invite_accept_schema,
    invited_member_schema,
    member_schema,
    member_update_schema,
    members_schema,
)
from content_publishing.store import members as member_store
from content_publishing.store.db import snapshot, transaction
from content_publishing.workspaces import members

bp = Blueprint("members", __name__)
invites = Blueprint("invites", __name__, url_prefix="/functions/v1")
MANAGE = "members:manage"
MAX_ID = 2**63 - 1


def token_hash(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def invite_url(token):
    """The dashboard's page that takes the invitation up."""
    return f"{current_app.config['PUBLIC_URL'].rstrip('/')}{DASHBOARD_PATH}#/invite/{token}"


def _member(member_id, lock=False):
    """The caller's workspace's member of this id, or a 404."""
    if not member_id.isascii() or not member_id.isdigit() or int(member_id) > MAX_ID:
        raise not_found("member")
    if lock:
        member_store.lock_workspace(g.workspace_id)
    found = member_store.get_member(g.workspace_id, int(member_id))
    if found is None:
        raise not_found("member")
    return found


@bp.get("/members")
@doc(
    "List the workspace's members",
    response=members_schema,
    description="Every member, removed ones too (`removed_at`), oldest first.",
)
@require_scope("posts:read")
def list_members():
    with snapshot():
        found = member_store.list_members(g.workspace_id)
    return {"data": [render(member_schema, m) for m in found]}


@bp.post("/members")
@doc(
    "Invite a member",
    body=member_schema,
    response=invited_member_schema,
    status=201,
    errors=[409],
    description="Owners and admins (members:manage); only an owner invites an owner (403 "
    "forbidden). The answer's `invite_url` opens the dashboard's page that takes the "
    "invitation up: it works once, for 7 days, and makes the member's first key (and, with a "
    "password, their account). With FLASK_SMTP_URL set the invitation is mailed to `email` "
    "too. A name of a member still in is a 409; a removed member's name may be taken again.",
)
@require_scope(MANAGE)
def invite_member(body):
    token = secrets.token_urlsafe(32)
    mail_url = invite_url(token) if current_app.config.get("SMTP") else None
    with transaction():
        now = timestamps.now_text()
        member, expires_at = members.add(
            g.workspace_id, g.scopes, body, token_hash(token), now, mail_url
        )
    shown = {**render(member_schema, member), "invite_url": invite_url(token)}
    return {**shown, "invite_expires_at": expires_at}, 201


@bp.patch("/members-item/<member_id>")
@doc(
    "Change a member's role, email or notifications",
    body=member_update_schema,
    response=member_schema,
    errors=[409],
    description="Every member changes their own `email` and `notify` (the notification "
    "events they want by email), whatever their role; anything else, and anyone else's, "
    "needs members:manage (owners and admins; 403 otherwise). Only an owner makes an owner "
    "or changes an owner's role (403 forbidden). Demoting the last owner is a 409 "
    "`last_owner`. A new role takes effect on the member's next request, on every worker.",
)
@require_scope("posts:read")
def update_member_item(member_id, body):
    with transaction():
        member = _member(member_id, lock=True)
        member = members.change(g.workspace_id, g.scopes, member, body, timestamps.now_text())
    return render(member_schema, member)


@bp.delete("/members-item/<member_id>")
@doc(
    "Remove a member",
    status=204,
    errors=[409],
    description="Owners and admins (members:manage); only an owner removes an owner. Every "
    "key of the member is revoked at once (on every worker: the next request with one is a "
    "401), their invitation ends and so does every invitation they made; they stay on the "
    "list with `removed_at`, so posts and history keep their name. Their personal channel "
    "stays, with its posts and history, disconnected from LinkedIn; each of its Scheduled "
    "posts becomes Failed, its last_error naming them. Removing the last owner is a 409 "
    "`last_owner`.",
)
@require_scope(MANAGE)
def delete_member_item(member_id):
    with transaction():
        member = _member(member_id, lock=True)
        _, token = members.remove(
            g.workspace_id, g.scopes, member, timestamps.now_text(), lead_seconds(), g.actor
        )
    if token:
        revoke_quietly(current_app.config, token)
    return "", 204


@invites.post("/invites-accept")
@doc("Take up an invitation", body=invite_accept_schema, response=accepted_schema, status=201)
def accept_invite(body):
    """No key: the token is the capability (apidoc.ACCEPT_OPERATION says so
    in the document). Answers the workspace, the member with their role,
    and their first key, shown only here; with a password, or signed in,
    the member's account too, and a session (the cookie, its CSRF token)."""
    key = generate_key()
    session = cookies.signed_in_session() if body.get("password") is None else None
    with transaction():
        now = timestamps.now_text()
        invite, key_id, scopes = members.accept(
            token_hash(body["token"]), hash_key(key), display_prefix(key), SCOPES, now
        )
        joined = signin.join(
            invite,
            body.get("password"),
            session and session["account_id"],
            request.headers.get("User-Agent"),
            client_address(),
            now,
        )
    answer = {
        "workspace": {"id": invite["workspace_id"], "name": invite["workspace_name"]},
        "member": {
            "id": invite["member_id"],
            "name": invite["name"],
            "email": invite["email"],
            "role": invite["role"],
        },
        "key_id": key_id,
        "key": key,
        "scopes": scopes,
        "csrf_token": None,
    }
    if joined is None:
        return answer, 201, {"Cache-Control": "no-store"}
    answer["csrf_token"] = csrf_token(joined[0])
    return cookies.set_cookie(current_app.make_response((answer, 201)), joined[0])
