"""A person's account page, and the keys a member makes for themselves.

GET    /functions/v1/account                  the caller's account
PATCH  /functions/v1/account                  its name, its password (with the current one)
POST   /functions/v1/account-second-factor    begin, confirm or turn off TOTP
POST   /functions/v1/workspace-second-factor  an owner requires a second factor (or not)
GET    /functions/v1/keys                     the caller's member's own keys
POST   /functions/v1/keys                     make one, scopes at most the role's: shown once
DELETE /functions/v1/keys-item/{key_id}       revoke one of them

The account is the session's, or a key's member's (404 when it has none).
This is where automations get keys now: a member makes them here, within
what their role (and, with a key, that key) allows.
"""

from flask import Blueprint, g

from content_publishing import roles, timestamps
from content_publishing.accounts import profile
from content_publishing.auth import (
    KEY_PREFIX,
    display_prefix,
    generate_key,
    hash_key,
    require_scope,
)
from content_publishing.errors import not_found, validation_error
from content_publishing.http.apidoc import doc
from content_publishing.http.session import account_facts, account_id
from content_publishing.schemas.accounts import (
    account_schema,
    account_update_schema,
    own_key_schema,
    own_keys_schema,
    require_schema,
    second_factor_answer_schema,
    second_factor_schema,
)
from content_publishing.store import accounts as account_store
from content_publishing.store import keys as key_store
from content_publishing.store.db import transaction

bp = Blueprint("account", __name__)
MAX_ID = 2**63 - 1


def _account(lock=False):
    found = account_id()
    account = found and account_store.get_account(found, lock=lock)
    if not account:
        raise not_found("account (the key's member has none)")
    return account


@bp.get("/account")
@doc("The caller's account", response=account_schema, errors=[404])
@require_scope("posts:read")
def get_account():
    return account_facts(_account())


@bp.patch("/account")
@doc(
    "Change the account's name or password",
    body=account_update_schema,
    response=account_schema,
    errors=[404],
    description="A new password needs `current_password` when the account has one (401 "
    "`sign_in_failed` when wrong) and ends the account's unused links.",
)
@require_scope("posts:read")
def update_account(body):
    with transaction():
        account = profile.change(_account(lock=True), body, timestamps.now_text())
    return account_facts(account)


@bp.post("/account-second-factor")
@doc(
    "Set up or turn off the second factor",
    body=second_factor_schema,
    response=second_factor_answer_schema,
    errors=[404, 409],
    description="`begin`: a new TOTP secret, its otpauth URI and QR code, shown once, not "
    "in force yet; `confirm` with `code`: in force, and 10 recovery codes shown once; `off` "
    "with `current_password`: removed.",
)
@require_scope("posts:read")
def set_second_factor(body):
    with transaction():
        answer = profile.set_second_factor(_account(lock=True), body, timestamps.now_text())
    return answer


@bp.post("/workspace-second-factor")
@doc(
    "Require a second factor of the workspace's members",
    body=require_schema,
    response=require_schema,
    description="Owners only: a member then signs in with a password only with a second "
    "factor (members without one sign in by a mailed link and set it up).",
)
@require_scope("members:manage", role="owner")
def require_second_factor(body):
    with transaction():
        return profile.require_second_factor(g.scopes, g.workspace_id, body["required"])


def _shown(key):
    return {
        "id": key["id"],
        "prefix": KEY_PREFIX + key["prefix"],
        "scopes": key["scopes"].split(),
        "expires_at": key["expires_at"],
        "revoked_at": key["revoked_at"],
        "last_used_at": key["last_used_at"],
        "created_at": key["created_at"],
    }


@bp.get("/keys")
@doc("The caller's own keys", response=own_keys_schema)
@require_scope("posts:read")
def list_own_keys():
    return {"data": [_shown(k) for k in key_store.member_keys(g.member_id)]}


@bp.post("/keys")
@doc(
    "Make a key of one's own",
    body=own_key_schema,
    response=own_key_schema,
    status=201,
    description="For an automation: the key (in `key`) is shown only in this answer. Its "
    "`scopes` are at most what the caller's role allows (403 `forbidden`), and with a key, "
    "what that key has (403 `insufficient_scope`).",
)
@require_scope("posts:read")
def create_own_key(body):
    roles.check_own_scopes(g.scopes, body["scopes"])
    key = generate_key()
    expires = body["expires_at"]
    now = timestamps.now_text()
    if expires is not None and expires <= now:
        raise validation_error({"expires_at": ["Give a time in the future."]})
    with transaction():
        key_id = key_store.insert_key(
            g.member_id, hash_key(key), display_prefix(key), body["scopes"], expires, now
        )
        made = next(k for k in key_store.member_keys(g.member_id) if k["id"] == key_id)
    return {**_shown(made), "key": key}, 201, {"Cache-Control": "no-store"}


@bp.delete("/keys-item/<key_id>")
@doc("Revoke a key of one's own", status=204, errors=[404])
@require_scope("posts:read")
def revoke_own_key(key_id):
    if not key_id.isascii() or not key_id.isdigit() or int(key_id) > MAX_ID:
        raise not_found("key")
    with transaction():
        revoked = key_store.revoke_member_key(g.member_id, int(key_id), timestamps.now_text())
    if revoked is None:
        raise not_found("key")
    return "", 204
