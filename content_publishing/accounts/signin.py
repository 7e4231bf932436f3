"""Signing in with an email and a password, and the limit of failed
sign-ins (docs/accounts.md, "Signing in").

Failed sign-ins count against the address typed (`email:<address>`,
whether it has an account or not) and the client's address
(`address:<ip>`): LIMIT of either within WINDOW_SECONDS, and the next
attempt is a 429 with Retry-After until the oldest of them is out of the
window. They are rows of the store, so the limit holds across workers and
restarts. A refusal is returned, not raised, so that the view raises it
after the transaction that recorded the failure has committed.
"""

import math

from content_publishing import timestamps
from content_publishing.accounts import passwords, second_factor, sessions
from content_publishing.errors import (
    conflict,
    rate_limited,
    second_factor_required,
    sign_in_failed,
    validation_error,
)
from content_publishing.store import accounts as account_store

LIMIT = 10
WINDOW_SECONDS = 15 * 60


def subjects(email, address):
    return [f"email:{email}", f"address:{address or '-'}"]


def over_limit(names, now):
    """The 429 when any of `names` failed LIMIT times within the window; None."""
    since = timestamps.later(now, -WINDOW_SECONDS)
    account_store.forget_failures(since)
    waits = []
    for name in names:
        count, oldest = account_store.failures_since(name, since)
        if count >= LIMIT:
            left = (timestamps.parse(oldest) - timestamps.parse(since)).total_seconds()
            waits.append(max(1, math.ceil(left)))
    if not waits:
        return None
    wait = max(waits)
    return rate_limited(
        f"Too many failed sign-ins: try again in {wait} seconds, or sign in with a link "
        "sent by mail.",
        wait,
    )


def choose_member(account_id, workspace_id=None):
    """The member an account signs in as: the one of `workspace_id`, else
    the oldest; None when it is no member of it (of any)."""
    found = account_store.memberships(account_id)
    if workspace_id is not None:
        found = [m for m in found if m["workspace_id"] == workspace_id]
    return found[0] if found else None


def with_password(fields, device, address, now):
    """Sign in: (token, session, account, member), or the refusal to raise
    once the failure it recorded has committed."""
    email = passwords.normal_email(fields["email"])
    names = subjects(email, address)
    refusal = over_limit(names, now)
    if refusal is not None:
        return refusal
    account = account_store.find_by_email(email)
    right = passwords.verify(account and account["password_hash"], fields["password"])
    if not right:
        account_store.add_failures(names, now)
        return sign_in_failed()
    member = choose_member(account["id"], fields.get("workspace_id"))
    if member is None:
        return sign_in_failed("The account is no member of that workspace (of any, if none named).")
    needs = second_factor.needed(account, member)
    if needs and not fields.get("code"):
        return second_factor_required(
            "Send the 6-digit code of the authenticator app (or a recovery code) as `code`."
            if account["totp_enabled_at"]
            else "The workspace requires a second factor: sign in with a link, then set one up."
        )
    if needs and not second_factor.check(account, fields["code"], now):
        account_store.add_failures(names, now)
        return sign_in_failed("The code is wrong.")
    token, session = sessions.open_session(account["id"], member["member_id"], device, address, now)
    return token, session, account, member


def join(member, password, account_id, device, address, now):
    """An invitation taken up (workspaces/members.accept: `member` is the
    invitation with its member) by a person: with `password`, the account
    of the invitation's email is made with it (or, when one exists, the
    password must be its own); else the signed-in `account_id`'s. The
    member becomes the account's, and a session opens in its workspace:
    (token, session, account); None when neither was given (only the key).
    The refusal is raised: nothing of the accept then stays."""
    if password is None and account_id is None:
        return None
    if password is not None:
        if not member["email"]:
            raise validation_error(
                {"password": ["The invitation has no email address: accept it signed in."]}
            )
        email = passwords.normal_email(member["email"])
        account = account_store.find_by_email(email)
        if account is None:
            if problem := passwords.problem(password):
                raise validation_error({"password": [problem]})
            account = account_store.insert_account(
                email, member["name"], passwords.hashed(password), now
            )
        elif not passwords.verify(account["password_hash"], password):
            raise sign_in_failed(
                "An account has this email: give its password, or sign in and accept."
            )
    else:
        account = account_store.get_account(account_id)
    if not account_store.link_member(member["member_id"], account["id"]):
        raise conflict(
            "The account is a member of this workspace already.", {"workspace": member["name"]}
        )
    token, session = sessions.open_session(account["id"], member["member_id"], device, address, now)
    return token, session, account
