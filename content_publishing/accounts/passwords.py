"""Passwords: hashed with Argon2id (argon2-cffi, its default RFC 9106
parameters), never kept or logged in the clear; at least MIN_LENGTH
characters and none of the 1,000 most common (common-passwords.txt, the
head of the list Django ships, ordered by how often each was found).

`verify` of an unknown account checks the password against a hash of
nothing, so that a sign-in for an address without an account costs the
same time as one with a wrong password: the answer's time tells no one
whether the address has an account."""

import functools
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_LENGTH = 10
MAX_LENGTH = 256  # a hash of a megabyte of text costs nothing more, but no one types it
COMMON_FILE = Path(__file__).parent / "common-passwords.txt"
_hasher = PasswordHasher()


@functools.cache
def common():
    return frozenset(COMMON_FILE.read_text().split())


def problem(password):
    """What is wrong with `password` as a new password, in words; or None."""
    if len(password) < MIN_LENGTH:
        return f"Use at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"Use at most {MAX_LENGTH} characters."
    if password.lower() in common():
        return "This is one of the 1,000 most common passwords: choose another."
    return None


def hashed(password):
    return _hasher.hash(password)


@functools.cache
def _nothing():
    return _hasher.hash("not a password of anyone")


def verify(password_hash, password):
    """Whether `password` is the one of `password_hash` (None: an account
    without one, or none at all; checked against a hash of nothing anyway)."""
    try:
        return _hasher.verify(password_hash or _nothing(), password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def normal_email(email):
    """An address as accounts store it: lower-cased, without spaces around."""
    return email.strip().lower()
