"""Sealing: the encryption at rest of what the service must read back in the
clear, webhook signing secrets (webhooks/secrets.py) and a channel's OAuth
tokens (channels/connections.py).

Unlike an API key, such a secret cannot be stored as a hash: the dispatcher
needs the secret itself to sign every delivery, the publisher the token
itself to call the network. So the database holds it encrypted (Fernet,
from the `cryptography` package) with the service's secrets key, and a
copy of the database alone signs and publishes nothing.

The secrets key is FLASK_SECRETS_KEY when set (every host of a deployment
needs the same one), else a key file in the instance folder, made on first
use and readable by its owner only. A start without that file while the
database holds sealed values is refused (`check_key`): a key made anew
would open none of them. `flask secrets rotate` (cli/secrets.py) seals every
value again under a new key (`resealed`), in one transaction. Backing the
key up: docs/operations.md, "The secrets key".
"""

import os
import tempfile
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from flask import current_app

KEY_FILE = "secrets.key"
UNREADABLE = "FLASK_SECRETS_KEY (or instance/secrets.key) is not the key it was stored with"


def _fernet():
    cache = current_app.extensions.setdefault("sealing", {})
    if "fernet" not in cache:
        cache["fernet"] = Fernet(current_app.config.get("SECRETS_KEY") or _key_file())
    return cache["fernet"]


def _key_file():
    path = Path(current_app.instance_path) / KEY_FILE
    if not path.exists():
        partial = _partial(path, Fernet.generate_key())
        try:
            os.link(partial, path)  # never replaces a key another process made first
        except FileExistsError:
            pass
        finally:
            partial.unlink()
    return path.read_bytes().strip()


def _partial(path, key):
    """A new file beside `path` holding `key`, readable by its owner alone:
    a name of its own (mkstemp), since two threads of one worker (gthread)
    may both be making the first key, and a name by process id alone was
    shared by them."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".partial")
    with os.fdopen(fd, "wb") as file:  # mkstemp makes it 0600
        file.write(key)
    return Path(name)


def seal(secret):
    """The stored form of a secret."""
    return _fernet().encrypt(secret.encode("ascii")).decode("ascii")


def unseal(stored):
    """The secret again; ValueError if the secrets key is not the one that sealed it."""
    try:
        return _fernet().decrypt(stored.encode("ascii")).decode("ascii")
    except InvalidToken:
        raise ValueError(
            f"cannot read a stored secret (a webhook secret or a LinkedIn token): {UNREADABLE}"
        ) from None


def is_secrets_key(text):
    """Whether `text` is a Fernet key, one this module seals with."""
    try:
        Fernet(text)
    except (ValueError, TypeError):
        return False
    return True


def check_key(config, instance_path, sealed_exist):
    """None, or the one line a start is refused with: no FLASK_SECRETS_KEY,
    and instance/secrets.key missing (or holding no key) while the database
    holds sealed values (`sealed_exist()`, asked only then: store/sealed.py)."""
    if config.get("SECRETS_KEY"):
        return None
    path = Path(instance_path) / KEY_FILE
    if path.exists():
        if is_secrets_key(path.read_bytes().strip()):
            return None
        return (
            f"{path} does not hold a secrets key (a Fernet key, 44 characters): restore it "
            'from your backup (docs/operations.md, "The secrets key"), or set '
            "FLASK_SECRETS_KEY to that key"
        )
    if not sealed_exist():
        return None  # a new installation: the key is made on first use
    return (
        f"{path} is missing, and the database holds webhook secrets or LinkedIn tokens sealed "
        'with it: restore the file from your backup (docs/operations.md, "The secrets key"), '
        "or set FLASK_SECRETS_KEY (or FLASK_SECRETS_KEY_FILE) to that key; a new key would "
        "open none of them"
    )


def resealed(stored, new_key):
    """A stored value sealed again under `new_key` (a rotation); ValueError
    when the key in force cannot open it."""
    return Fernet(new_key).encrypt(unseal(stored).encode("ascii")).decode("ascii")


def new_key():
    """A new secrets key, as text."""
    return Fernet.generate_key().decode("ascii")


def install_key_file(instance_path, key):
    """Make `key` the instance folder's secrets key: the old file kept as
    secrets.key.old (a second name of it), the new one written beside it
    first, then moved in place (one rename, so that there is always a key
    file). The path of the old file, or None."""
    path = Path(instance_path) / KEY_FILE
    partial = _partial(path, key.encode("ascii"))
    old = None
    if path.exists():
        old = path.with_name(KEY_FILE + ".old")
        old.unlink(missing_ok=True)
        os.link(path, old)
    os.replace(partial, path)
    return old


def forget_cached_key(app):
    """The key in force read again on next use (after a rotation)."""
    app.extensions.get("sealing", {}).pop("fernet", None)
