"""Webhook signing secrets and header tokens: made, shown once, stored encrypted;
and the sealing itself, which LinkedIn tokens (connections.py) use too.

A secret is `whsec_` followed by the base64 of 32 random bytes (the Standard
Webhooks form). Unlike an API key it cannot be stored as a hash: the
dispatcher needs the secret itself to sign every delivery. So the database
holds it encrypted (Fernet, from the `cryptography` package) with the
service's secrets key, and a copy of the database alone signs nothing.

The secrets key is FLASK_SECRETS_KEY when set (every host of a deployment
needs the same one), else a key file in the instance folder, made on first
use and readable by its owner only.
"""

import base64
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from flask import current_app

PREFIX = "whsec_"
TOKEN_PREFIX = (
    "whtok_"  # a header token (an endpoint's auth_header), for platforms that cannot check HMAC
)
KEY_FILE = "secrets.key"


def generate():
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def generate_token():
    """A token for an endpoint's auth_header: URL-safe, so it goes in any header."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _fernet():
    cache = current_app.extensions.setdefault("webhook_secrets", {})
    if "fernet" not in cache:
        cache["fernet"] = Fernet(current_app.config.get("SECRETS_KEY") or _key_file())
    return cache["fernet"]


def _key_file():
    path = Path(current_app.instance_path) / KEY_FILE
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(Fernet.generate_key())
        partial.chmod(0o600)
        try:
            os.link(partial, path)  # never replaces a key another process made first
        except FileExistsError:
            pass
        finally:
            partial.unlink()
    return path.read_bytes().strip()


def seal(secret):
    """The stored form of a secret."""
    return _fernet().encrypt(secret.encode("ascii")).decode("ascii")


def unseal(stored):
    """The secret again; ValueError if the secrets key is not the one that sealed it."""
    try:
        return _fernet().decrypt(stored.encode("ascii")).decode("ascii")
    except InvalidToken:
        raise ValueError(
            "cannot read a stored secret (a webhook secret or a LinkedIn token): "
            "FLASK_SECRETS_KEY (or instance/secrets.key) is not the key it was stored with"
        ) from None
