"""The caller: its key or its session.

GET /functions/v1/me   whose key (or session) this is, its scopes and expiry (any valid key)

A client (the dashboard, an automation's setup step) learns what its key
may do from this one read, instead of probing with requests it expects to
be refused. A session's answer carries its CSRF token, which every change
by that session must send (cookies.py), and the account's workspaces.
"""

from flask import Blueprint, g

from content_publishing.accounts import sessions
from content_publishing.auth import KEY_PREFIX, any_valid_key
from content_publishing.http.apidoc import doc
from content_publishing.http.cookies import session_token
from content_publishing.http.session import account_facts, membership
from content_publishing.schemas.keys import me_schema
from content_publishing.store import accounts as account_store
from content_publishing.store import keys as key_store
from content_publishing.store import members as member_store
from content_publishing.store.db import snapshot

bp = Blueprint("me", __name__)


@bp.get("/me")
@doc(
    "Who this key belongs to and what it may do",
    response=me_schema,
    description="Its workspace, its member with their role (which bounds what the scopes "
    "allow), its prefix, scopes and expiry; never the key itself. `user` is the workspace's "
    "name, as before workspaces. By session: `key` is null, and `session` carries the CSRF "
    "token to send as X-CSRF-Token with every change.",
)
@any_valid_key
def get_me():
    if g.key_id is None:
        return _of_session()
    key = key_store.get_key(g.key_id)
    return {
        "user": key["workspace_name"],
        "workspace": {
            "id": key["workspace_id"],
            "name": key["workspace_name"],
            "created_at": key["workspace_created_at"],
        },
        "member": {
            "id": key["member_id"],
            "name": key["member_name"],
            "email": key["member_email"],
            "role": key["role"],
        },
        "key": {
            "id": key["id"],
            "prefix": KEY_PREFIX + key["prefix"],
            "scopes": key["scopes"].split(),
            "expires_at": key["expires_at"],
            "created_at": key["created_at"],
        },
    }


def _of_session():
    session = g.session
    with snapshot():
        space = member_store.get_workspace(session["workspace_id"])
        account = account_store.get_account(session["account_id"])
        found = account_store.memberships(session["account_id"])
    return {
        "user": space["name"],
        "workspace": space,
        "member": {
            "id": session["member_id"],
            "name": session["member_name"],
            "email": session["member_email"],
            "role": session["role"],
        },
        "key": None,
        "account": account_facts(account),
        "session": {
            "id": session["id"],
            "csrf_token": sessions.csrf_token(session_token()),
            "created_at": session["created_at"],
            "expires_at": sessions.expires_at(session),
        },
        "workspaces": [membership(m) for m in found],
    }
