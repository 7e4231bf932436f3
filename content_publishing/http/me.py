"""The caller's own key.

GET /functions/v1/me   whose key this is, its scopes and expiry (any valid key)

A client (the dashboard, an automation's setup step) learns what its key
may do from this one read, instead of probing with requests it expects to
be refused.
"""

from flask import Blueprint, g

from content_publishing.auth import KEY_PREFIX, any_valid_key
from content_publishing.http.apidoc import doc
from content_publishing.schemas.keys import me_schema
from content_publishing.store import keys as key_store

bp = Blueprint("me", __name__)


@bp.get("/me")
@doc(
    "Who this key belongs to and what it may do",
    response=me_schema,
    description="Its workspace, its member with their role (which bounds what the scopes "
    "allow), its prefix, scopes and expiry; never the key itself. `user` is the workspace's "
    "name, as before workspaces.",
)
@any_valid_key
def get_me():
    key = key_store.get_key(g.key_id)
    return {
        "user": key["user_name"],
        "workspace": {
            "id": key["workspace_id"],
            "name": key["user_name"],
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
