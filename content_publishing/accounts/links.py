"""Single-use links: sign in by mail, reset a password, and the first
owner's link (docs/accounts.md, "Links").

A link's token is 256 random bits; the store keeps its SHA-256 only. A
sign-in or reset link holds for LINK_MINUTES, the first owner's for
OWNER_HOURS. Taking one up is one conditional update (used_at set only if
it was not), so of any number of requests with the same link exactly one
gets a session. A link to an address that has no account but is a
member's email makes that member's account when it is used: today's
members sign in the first time that way.

`request_link` answers nothing about the address: the view says the same
for an unknown address as for a known one, and the work is alike (a few
statements; the mail goes later, through the notifier's outbox).
"""

import hashlib
import secrets

from content_publishing import notifications, timestamps
from content_publishing.accounts import passwords, second_factor, sessions
from content_publishing.errors import (
    conflict,
    link_gone,
    not_found,
    second_factor_required,
    sign_in_failed,
    validation_error,
)
from content_publishing.store import accounts as account_store
from content_publishing.store import members as member_store

LINK_MINUTES = 15
OWNER_HOURS = 24
PURPOSES = ("sign_in", "reset", "owner")
NEEDS_PASSWORD = ("reset", "owner")


DASHBOARD_PATH = "/functions/v1/dashboard"  # as http/connect.py's


def link_url(public_url, token):
    """The dashboard's page that takes a link up (the token is in the
    fragment, so no server's log ever holds it)."""
    return f"{public_url.rstrip('/')}{DASHBOARD_PATH}#/link/{token}"


def new_token():
    return secrets.token_urlsafe(32)


def token_hash(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _make(purpose, account_id, member_id, now):
    token = new_token()
    seconds = OWNER_HOURS * 3600 if purpose == "owner" else LINK_MINUTES * 60
    account_store.insert_link(
        token_hash(token), purpose, account_id, member_id, timestamps.later(now, seconds), now
    )
    return token


def for_email(email, purpose, now):
    """A link for the account of `email`, or for the member of that email
    who has none yet: (token, the member to mail it through, the address);
    None when the address is nobody's."""
    email = passwords.normal_email(email)
    account = account_store.find_by_email(email)
    if account is not None:
        found = account_store.memberships(account["id"])
        member = found[0] if found else None
        return _make(purpose, account["id"], None, now), member, account["email"]
    member = account_store.member_by_email(email)
    if member is None:
        return None
    return _make(purpose, None, member["member_id"], now), member, email


def request_link(email, purpose, url_of, now):
    """Queue the mail of a new link to `email` when it is someone's; `url_of`
    makes the link's address of its token. Returns whether a mail was queued
    (for the CLI and the tests; the view does not tell)."""
    made = for_email(email, purpose, now)
    if made is None or made[1] is None:
        return False
    token, member, address = made
    notifications.mail_link(
        member["workspace_id"], member["member_id"], address, purpose, url_of(token), now
    )
    return True


def owner_link(member_id, now):
    """The first owner's link, to set their email and password (`make run`)."""
    return _make("owner", None, member_id, now)


def use(fields, device, address, now):
    """Take a link up: (token, session, account, member). With `password`,
    sets it (a reset or the owner's link must); the owner's link takes the
    `email` of the new account too. 404 unknown, 410 used or expired, and
    nothing changes."""
    link = _taken_up(fields["token"], now)
    password = fields.get("password")
    if link["purpose"] in NEEDS_PASSWORD and not password:
        raise validation_error({"password": ["Set a password: this link is for setting one."]})
    if password is not None and (problem := passwords.problem(password)):
        raise validation_error({"password": [problem]})
    member = account_store.get_membership(link["member_id"]) if link["member_id"] else None
    if member is not None and member["removed_at"] is not None:
        raise link_gone("link_used", "This link was withdrawn: its member was removed.")
    account = _account_of(link, member, fields, now)
    if member is not None:
        member = account_store.get_membership(member["member_id"])  # linked now
    _check_second_factor(account, fields.get("code"), now)
    if password is not None:
        account = account_store.update_account(
            account["id"], {"password_hash": passwords.hashed(password)}, now
        )
        account_store.end_links(account["id"], now)
    if member is None or member["account_id"] != account["id"]:
        found = account_store.memberships(account["id"])
        if not found:
            raise link_gone("link_used", "This link was withdrawn: the account is no member.")
        member = found[0]
    token, session = sessions.open_session(account["id"], member["member_id"], device, address, now)
    return token, session, account, member


def _taken_up(token, now):
    """The link of `token`, now used; 404 unknown, 410 used or expired."""
    link = account_store.use_link(token_hash(token), now)
    if link is None:
        if account_store.find_link(token_hash(token)) is None:
            raise not_found("sign-in link")
        raise link_gone("link_used", "This link was used already: ask for a new one.")
    if link["expires_at"] <= now:
        raise link_gone(
            "link_expired", f"This link expired at {link['expires_at']}: ask for a new one."
        )
    return link


def _check_second_factor(account, code, now):
    """A mailbox alone is one factor: an account with TOTP needs its code."""
    if account["totp_enabled_at"] is None:
        return
    if not code:
        raise second_factor_required("Send the code of the authenticator app as `code`.")
    if not second_factor.check(account, code, now):
        raise sign_in_failed("The code is wrong.")


def _account_of(link, member, fields, now):
    """The link's account; for a member's link, the account it makes (or
    the one of the member's email, if made since), linked to the member."""
    if link["account_id"] is not None:
        return account_store.get_account(link["account_id"])
    if link["purpose"] == "owner":
        if not fields.get("email"):
            raise validation_error({"email": ["Give the email address to sign in with."]})
        email = passwords.normal_email(fields["email"])
    else:
        email = passwords.normal_email(member["member_email"])
    account = account_store.find_by_email(email)
    if account is None:
        account = account_store.insert_account(email, member["member_name"], None, now)
    elif link["purpose"] == "owner":
        raise conflict(
            "An account has this address already: sign in with it, or give another address.",
            {"email": email},
        )
    if not account_store.link_member(member["member_id"], account["id"]):
        raise conflict("The account is a member of this workspace already.", {"email": email})
    if link["purpose"] == "owner":
        member_store.update_member(member["member_id"], {"email": email})
    account_store.link_members_by_email(account["id"], email)
    return account
