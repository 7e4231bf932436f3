"""Webhook signing secrets and header tokens: made here, shown once, stored
sealed (sealing.py).

A secret is `whsec_` followed by the base64 of 32 random bytes (the Standard
Webhooks form); a header token (an endpoint's auth_header, for platforms
that cannot check an HMAC) is `whtok_` and a URL-safe random text.
"""

import base64
import secrets

PREFIX = "whsec_"
TOKEN_PREFIX = "whtok_"


def generate():
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def generate_token():
    """A token for an endpoint's auth_header: URL-safe, so it goes in any header."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)
