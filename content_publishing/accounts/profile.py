"""The account page's changes: the name, the password, the second factor,
and the workspace's requirement of one (docs/accounts.md).

A new password needs the current one when the account has one, and ends
every other link of the account; a second factor is turned off only with
the password too, so that a session left open on a shared computer cannot
take the factor away."""

from content_publishing.accounts import passwords, second_factor
from content_publishing.errors import conflict, sign_in_failed, validation_error
from content_publishing.store import accounts as account_store


def _check_password(account, given, field="current_password"):
    if account["password_hash"] is None:
        return
    if not given:
        raise validation_error({field: ["Give the current password."]})
    if not passwords.verify(account["password_hash"], given):
        raise sign_in_failed("The current password is wrong.")


def change(account, fields, now):
    """The account with its new name and password."""
    changes = {}
    if "name" in fields:
        changes["name"] = fields["name"]
    if "password" in fields:
        if problem := passwords.problem(fields["password"]):
            raise validation_error({"password": [problem]})
        _check_password(account, fields.get("current_password"))
        changes["password_hash"] = passwords.hashed(fields["password"])
        account_store.end_links(account["id"], now)
    if not changes:
        return account
    return account_store.update_account(account["id"], changes, now)


def set_second_factor(account, fields, now):
    """begin, confirm or off: the answer (what is shown once)."""
    action = fields["action"]
    if action == "begin":
        secret, uri, svg = second_factor.begin(account, now)
        return {"second_factor": False, "secret": secret, "otpauth_uri": uri, "qr_svg": svg}
    if action == "confirm":
        if not fields.get("code"):
            raise validation_error({"code": ["Give a code of the authenticator app."]})
        if account["totp_enabled_at"] is not None:
            raise conflict("The second factor is in force already: turn it off first.")
        codes = second_factor.confirm(account, fields["code"], now)
        if codes is None:
            raise validation_error({"code": ["The code is wrong, or no setup was begun."]})
        return {"second_factor": True, "recovery_codes": codes}
    _check_password(account, fields.get("current_password"))
    second_factor.turn_off(account, now)
    return {"second_factor": False}


def require_second_factor(grant, workspace_id, required):
    grant.require_role("owner", "require a second factor of the workspace")
    account_store.set_required_second_factor(workspace_id, required)
    return {"required": required}
