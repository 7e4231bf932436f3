"""The optional second factor: TOTP (pyotp, 30-second steps, 6 digits,
one step either side) with RECOVERY_CODES single-use recovery codes shown
once (docs/accounts.md, "Second factor").

The TOTP secret is sealed (sealing.py: the service must read it back);
recovery codes are kept as SHA-256 hashes. Setting up takes two steps:
`begin` stores a new secret not yet in force and answers it once (with its
otpauth:// URI), `confirm` checks a first code of it and puts it in force
with new recovery codes. An owner may require a second factor of every
member of the workspace: their password sign-in then needs it, and one
without it set up signs in by a mailed link and sets it up first.

qrcode is imported by `begin` alone: with the Pillow and XML modules it
brings, it was a tenth of the app's import, paid by every process that
never draws a QR code (gunicorn's master, each dispatcher and CLI call).
"""

import hashlib
import secrets

import pyotp

from content_publishing import sealing
from content_publishing.store import accounts as account_store

RECOVERY_CODES = 10
ISSUER = "Content Publishing"


def needed(account, member):
    return account["totp_enabled_at"] is not None or bool(member["require_second_factor"])


def _code_hash(code):
    return hashlib.sha256(code.strip().lower().replace("-", "").encode()).hexdigest()


def check(account, code, now):
    """Whether `code` is a current TOTP code of the account, or one of its
    unused recovery codes (which is then used)."""
    code = code.strip()
    if account["totp_enabled_at"] is None or account["totp_secret"] is None:
        return False
    if code.isdigit() and len(code) == 6:
        return pyotp.TOTP(sealing.unseal(account["totp_secret"])).verify(code, valid_window=1)
    return account_store.use_recovery_code(account["id"], _code_hash(code), now)


def begin(account, now):
    """A new secret, stored sealed and not in force until confirmed:
    (secret, otpauth URI, the URI as an SVG QR code for the app to scan),
    shown once."""
    import qrcode.image.svg

    secret = pyotp.random_base32()
    account_store.update_account(
        account["id"], {"totp_secret": sealing.seal(secret), "totp_enabled_at": None}, now
    )
    uri = pyotp.TOTP(secret).provisioning_uri(name=account["email"], issuer_name=ISSUER)
    svg = qrcode.make(uri, image_factory=qrcode.image.svg.SvgPathImage).to_string()
    return secret, uri, svg.decode("utf-8")


def confirm(account, code, now):
    """Put the begun secret in force if `code` is a current code of it: the
    new recovery codes (shown once), or None when the code is wrong."""
    if account["totp_secret"] is None:
        return None
    if not pyotp.TOTP(sealing.unseal(account["totp_secret"])).verify(code.strip(), valid_window=1):
        return None
    codes = [f"{secrets.token_hex(4)}-{secrets.token_hex(4)}" for _ in range(RECOVERY_CODES)]
    account_store.replace_recovery_codes(account["id"], [_code_hash(c) for c in codes])
    account_store.update_account(account["id"], {"totp_enabled_at": now}, now)
    return codes


def turn_off(account, now):
    account_store.update_account(account["id"], {"totp_secret": None, "totp_enabled_at": None}, now)
    account_store.replace_recovery_codes(account["id"], [])
