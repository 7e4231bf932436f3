"""The service's settings: defaults, and the check that refuses a bad one.

Each is read from a FLASK_-prefixed environment variable (Flask's
from_prefixed_env, which parses values that look like JSON), or given to
create_app by the tests. A value that cannot work stops the service when it
starts, with one line naming the variable, instead of failing on some later
request or being silently ignored.
"""

import ipaddress
import os
import re
from urllib.parse import parse_qs, unquote, urlsplit

from flask.cli import NoAppException
from marshmallow import ValidationError

from content_publishing import logs
from content_publishing.schemas import urls


class SettingError(NoAppException, ValueError):
    """A setting that cannot work; the message names the variable.

    A NoAppException too, so that `flask --app app ...` prints it as one
    `Error:` line instead of a traceback (gunicorn's start prints its own)."""


RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]
DEFAULT_BIND = "127.0.0.1:8000"  # gunicorn.conf.py's, when BIND is not set


def bound_url(bind):
    """The http:// address at which a server bound to `bind` (gunicorn's
    `host:port`, `[v6]:port` or `host`) is reached from this host, or None
    for a socket that has no such address (`unix:...`, `fd://...`). A
    wildcard address (0.0.0.0, ::) listens on loopback too, so it is
    reached at 127.0.0.1 (or [::1])."""
    bind = bind.strip()
    if not bind or bind.startswith(("unix:", "fd://")):
        return None
    host, port = bind, "8000"  # gunicorn's port when none is given
    if bind.startswith("["):
        host, _, rest = bind[1:].partition("]")
        host, port = f"[{host}]", rest.removeprefix(":") or port
    elif bind.count(":") == 1:
        host, port = bind.split(":")
    host = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]", "": "127.0.0.1"}.get(host, host)
    return f"http://{host}:{port}"


def default_public_url():
    """FLASK_PUBLIC_URL when it is not set: where this host reaches the
    server gunicorn binds (gunicorn.conf.py: `BIND`, default 127.0.0.1:8000),
    so that a service moved to another port with BIND=... hands out its own
    address, not port 8000. gunicorn itself sets FLASK_PUBLIC_URL for its
    workers from the sockets it actually bound (when_ready), which also
    covers `-b`, GUNICORN_CMD_ARGS and port 0; this default is for the
    processes beside it (`flask dispatch` under `make run`)."""
    return bound_url(os.environ.get("BIND") or DEFAULT_BIND) or bound_url(DEFAULT_BIND)


def defaults(instance_path):
    return {
        "DATABASE": os.path.join(instance_path, "publishing.sqlite"),
        "CORS_ORIGINS": "*",
        "MAX_CONTENT_LENGTH": 1024 * 1024,
        "MEDIA_MAX_BYTES": 5 * 1024 * 1024,
        "MEDIA_MAX_DOCUMENT_BYTES": 100 * 1024 * 1024,
        "MEDIA_PUBLIC": True,
        "KEY_TOUCH_INTERVAL": 60,
        "SCHEDULE_MIN_LEAD_SECONDS": 60,
        "SQLITE_SYNCHRONOUS": "FULL",
        "SQLITE_BUSY_TIMEOUT_MS": 5000,
        "SQLITE_MAX_PAGE_COUNT": None,
        "SEARCH_TIMEOUT_MS": 1000,
        # Webhooks and the dispatcher
        "PUBLIC_URL": default_public_url(),
        "HANDOFF_LEASE_SECONDS": 600,
        "HANDOFF_MAX_DELAY_SECONDS": 3600,
        "WEBHOOK_ALLOW_PRIVATE": False,
        "WEBHOOK_ALLOWED_PRIVATE": "",
        "WEBHOOK_TIMEOUT_SECONDS": 15,
        "WEBHOOK_RETRY_SCHEDULE": RETRY_SCHEDULE,
        "DELIVERY_LOG_DAYS": 30,
        "DISPATCH_LEASE_SECONDS": 60,
        "DISPATCH_POLL_SECONDS": 0.25,
        "DISPATCH_WORKERS": 16,
        "DISPATCH_GRACE_SECONDS": 8,
        "SECRETS_KEY": None,
        # Notifications: email over SMTP (off without SMTP_URL)
        "SMTP_URL": None,
        "SMTP_PASSWORD_FILE": None,
        "MAIL_FROM": None,
        # The LinkedIn request handed to automations (linkedin.py)
        "LINKEDIN_VERSION": "202610",
        "LINKEDIN_API_BASE": "https://api.linkedin.com",
        # Connecting a channel to LinkedIn, and the service's own publisher
        "LINKEDIN_CLIENT_ID": None,
        "LINKEDIN_CLIENT_SECRET": None,
        "LINKEDIN_CLIENT_SECRET_FILE": None,
        "LINKEDIN_AUTH_BASE": "https://www.linkedin.com",
        "LINKEDIN_MEMBER_POSTS_READABLE": False,
        "LINKEDIN_PUBLISH": True,
        "LINKEDIN_PUBLISH_WORKERS": 4,
        "LINKEDIN_TIMEOUT_SECONDS": 30,
        "LINKEDIN_CHECK_DELAY_SECONDS": 30,
        # Metrics and logs
        "METRICS": False,
        "LOG_FORMAT": "text",
    }


# name -> kind; kinds are checked (and normalised) by _CHECKS below.
KINDS = {
    "MAX_CONTENT_LENGTH": "count",
    "MEDIA_MAX_BYTES": "count",
    "MEDIA_MAX_DOCUMENT_BYTES": "count",
    "MEDIA_PUBLIC": "flag",
    "KEY_TOUCH_INTERVAL": "count",
    "SQLITE_BUSY_TIMEOUT_MS": "count",
    "SCHEDULE_MIN_LEAD_SECONDS": "integer",
    "SQLITE_MAX_PAGE_COUNT": "optional count",
    "SEARCH_TIMEOUT_MS": "positive integer",
    "HANDOFF_LEASE_SECONDS": "positive",
    "HANDOFF_MAX_DELAY_SECONDS": "positive",
    "WEBHOOK_TIMEOUT_SECONDS": "positive",
    "DELIVERY_LOG_DAYS": "positive",
    "DISPATCH_LEASE_SECONDS": "positive",
    "DISPATCH_POLL_SECONDS": "positive",
    "DISPATCH_WORKERS": "positive integer",
    "DISPATCH_GRACE_SECONDS": "non-negative",
    "WEBHOOK_ALLOW_PRIVATE": "flag",
    "WEBHOOK_ALLOWED_PRIVATE": "allow-list",
    "METRICS": "flag",
    "LOG_FORMAT": "log format",
    "WEBHOOK_RETRY_SCHEDULE": "schedule",
    "PUBLIC_URL": "url",
    "LINKEDIN_API_BASE": "url",
    "LINKEDIN_VERSION": "linkedin version",
    "LINKEDIN_AUTH_BASE": "url",
    "LINKEDIN_MEMBER_POSTS_READABLE": "flag",
    "LINKEDIN_PUBLISH": "flag",
    "LINKEDIN_PUBLISH_WORKERS": "positive integer",
    "LINKEDIN_TIMEOUT_SECONDS": "positive",
    "LINKEDIN_CHECK_DELAY_SECONDS": "non-negative",
}
CLIENT_SECRET_FILE = "linkedin-client-secret"  # in the instance folder, like secrets.key


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _schedule(value):
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
        value = [float(v) for v in value]
    if not isinstance(value, list) or not value or not all(_is_number(v) and v >= 0 for v in value):
        raise ValueError
    return value


def _flag(value):
    if isinstance(value, bool):
        return value
    if value in (0, 1, "0", "1", "", "true", "false"):
        return value in (1, "1", "true")
    raise ValueError


def _log_format(value):
    if value not in logs.FORMATS:
        raise ValueError
    return value


def _linkedin_version(value):
    """LinkedIn-Version is YYYYMM: six digits, a real month."""
    text = str(value)
    if not (len(text) == 6 and text.isdigit() and 1 <= int(text[4:]) <= 12):
        raise ValueError
    return text


_HOST_NAME = re.compile(r"(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.?)+")
# The ports an allow-list entry without one lets through: HTTP, HTTPS and
# n8n's own. Any other port of a private host (a database, SSH, an admin
# page) must be named, so that listing a host does not open all of it.
DEFAULT_ALLOWED_PORTS = ((80, 80), (443, 443), (5678, 5678))
_PORTS = re.compile(r"([0-9]{1,5})(?:-([0-9]{1,5}))?")
_BRACKETED = re.compile(r"\[([0-9A-Fa-f:.]+)\](/[0-9]{1,3})?(?::(.*))?")


def allow_list(value):
    """FLASK_WEBHOOK_ALLOWED_PRIVATE: comma-separated entries, each a host
    name or a CIDR range with an optional port or port range
    (`n8n.internal:443`, `127.0.0.1/32:5678`, `10.0.0.0/8:80-443`,
    `[::1]/128:5678`; an IPv6 range takes a port only in brackets). As a
    tuple of (name or network, ((first port, last port), ...))."""
    if isinstance(value, tuple):
        return value
    entries = []
    for entry in (e.strip() for e in str(value).split(",")):
        if entry:
            entries.append(_allow_entry(entry))
    return tuple(entries)


def _allow_entry(entry):
    """(name or network, port ranges) of one allow-list entry."""
    bracketed = _BRACKETED.fullmatch(entry)
    if bracketed:
        address, prefix, ports = bracketed.groups()
        return ipaddress.ip_network(address + (prefix or ""), strict=False), _ports(ports)
    try:  # a range without a port, IPv6 ones (all colons) included
        return ipaddress.ip_network(entry, strict=False), DEFAULT_ALLOWED_PORTS
    except ValueError:
        pass
    host, ports = entry.rsplit(":", 1) if ":" in entry else (entry, None)
    if ":" in host:  # an IPv6 range and a port without brackets: which colon is the port's?
        raise ValueError(entry)
    ports = _ports(ports)
    try:
        return ipaddress.ip_network(host, strict=False), ports
    except ValueError:
        name = host.lower().rstrip(".")
        if not _HOST_NAME.fullmatch(name):
            raise ValueError(entry) from None
        return name, ports


def _ports(text):
    """((first, last),) of `80` or `80-443`; the defaults for None."""
    if text is None:
        return DEFAULT_ALLOWED_PORTS
    found = _PORTS.fullmatch(text)
    if not found:
        raise ValueError(text)
    first = int(found[1])
    last = int(found[2] or first)
    if not 1 <= first <= last <= 65535:
        raise ValueError(text)
    return ((first, last),)


def _url(value):
    urls.parse(value)
    return value


_CHECKS = {
    "count": (lambda v: _is_int(v) and v >= 0, "a whole number, 0 or more"),
    "integer": (_is_int, "a whole number"),
    "optional count": (lambda v: v is None or (_is_int(v) and v >= 0), "a whole number"),
    "positive": (lambda v: _is_number(v) and v > 0, "a number above 0"),
    "positive integer": (lambda v: _is_int(v) and v > 0, "a whole number above 0"),
    "non-negative": (lambda v: _is_number(v) and v >= 0, "a number, 0 or more"),
}
_NORMALISE = {
    "flag": (_flag, "0 or 1"),
    "schedule": (_schedule, "comma-separated seconds, such as 0,5,300"),
    "url": (_url, "an absolute http(s) URL, such as https://cps.example.com"),
    "log format": (_log_format, "text or json"),
    "linkedin version": (_linkedin_version, "six digits YYYYMM, such as 202610"),
    "allow-list": (
        allow_list,
        "comma-separated host names and CIDR ranges, each with an optional port or port range"
        " (without one: 80, 443 and 5678), such as n8n.internal:443,10.0.0.0/8:80-443",
    ),
}


def check(config, instance_path):
    """Raise SettingError for the first setting that cannot work; normalise the rest."""
    config["DATABASE"] = database(config["DATABASE"], instance_path)
    _check_kinds(config)
    _linkedin_client(config, instance_path)
    smtp(config)
    if config["DISPATCH_LEASE_SECONDS"] < config["WEBHOOK_TIMEOUT_SECONDS"] + 3:
        raise SettingError(
            "FLASK_DISPATCH_LEASE_SECONDS must exceed FLASK_WEBHOOK_TIMEOUT_SECONDS by 3 or more: "
            "a delivery's lease must outlast its attempt, or a second dispatcher could send it too"
        )


DATABASE_SCHEMES = ("postgresql", "postgres")


def database(value, instance_path):
    """FLASK_DATABASE: an SQLite file path or a postgresql:// URL. Empty (a
    variable set to nothing in an environment file) means unset; a URL of
    another scheme (mysql://, sqlite:///) is refused by name rather than
    taken for a file path in a directory that does not exist."""
    value = str(value).strip()
    if not value:
        return defaults(instance_path)["DATABASE"]
    scheme, sep, _ = value.partition("://")
    if sep and scheme.lower() not in DATABASE_SCHEMES:
        raise SettingError(
            f"FLASK_DATABASE has an unsupported database URL scheme {scheme + '://'!r}: give a "
            "postgresql:// URL, or the path of an SQLite file (no sqlite:// prefix)"
        )
    return value


def _check_kinds(config):
    if str(config["SQLITE_SYNCHRONOUS"]).upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise SettingError("FLASK_SQLITE_SYNCHRONOUS must be OFF, NORMAL, FULL or EXTRA")
    for name, kind in KINDS.items():
        value = config[name]
        if kind in _CHECKS:
            ok, wanted = _CHECKS[kind]
            if not ok(value):
                raise SettingError(f"FLASK_{name} must be {wanted}, not {value!r}")
        else:
            normalise, wanted = _NORMALISE[kind]
            try:
                config[name] = normalise(value)
            except (ValueError, TypeError, AttributeError, ValidationError):
                raise SettingError(f"FLASK_{name} must be {wanted}, not {value!r}") from None


def _linkedin_client(config, instance_path):
    """FLASK_LINKEDIN_CLIENT_ID, and its secret from FLASK_LINKEDIN_CLIENT_SECRET,
    or read from the file FLASK_LINKEDIN_CLIENT_SECRET_FILE names (a
    container's or systemd's secret), or from instance/linkedin-client-secret,
    as the secrets key may come from instance/secrets.key. Empty means unset.
    A client id without a secret cannot sign anyone in: refused at start."""
    client_id = str(config["LINKEDIN_CLIENT_ID"] or "").strip() or None
    secret = str(config["LINKEDIN_CLIENT_SECRET"] or "").strip() or None
    path = str(config["LINKEDIN_CLIENT_SECRET_FILE"] or "").strip() or None
    if secret and path:
        raise SettingError(
            "FLASK_LINKEDIN_CLIENT_SECRET and FLASK_LINKEDIN_CLIENT_SECRET_FILE are both set: "
            "give the secret one way"
        )
    kept = os.path.join(instance_path, CLIENT_SECRET_FILE)
    if secret is None and path is None and client_id and os.path.exists(kept):
        path = kept
    if path is not None:
        try:
            with open(path, encoding="utf-8") as file:
                secret = file.read().strip() or None
        except OSError as error:
            raise SettingError(
                f"FLASK_LINKEDIN_CLIENT_SECRET_FILE cannot be read: {error.strerror} ({path})"
            ) from None
    if client_id and not secret:
        raise SettingError(
            "FLASK_LINKEDIN_CLIENT_ID is set but the client secret is not: set "
            "FLASK_LINKEDIN_CLIENT_SECRET or FLASK_LINKEDIN_CLIENT_SECRET_FILE (or write it to "
            f"instance/{CLIENT_SECRET_FILE})"
        )
    config["LINKEDIN_CLIENT_ID"], config["LINKEDIN_CLIENT_SECRET"] = client_id, secret
    config["LINKEDIN_CLIENT_SECRET_FILE"] = None  # read: a second check finds the secret alone


SMTP_SCHEMES = {"smtp": 25, "smtps": 465}  # scheme -> its port when the URL names none
SMTP_SHAPE = (
    "smtp://user:password@host:587?starttls=true, or smtps://user:password@host:465 (implicit TLS)"
)


def smtp(config):
    """FLASK_SMTP_URL, FLASK_SMTP_PASSWORD_FILE and FLASK_MAIL_FROM, as
    config["SMTP"]: {host, port, tls ("implicit", "starttls" or None), user,
    password, sender}, or None (no email is sent). The password comes from
    the URL, or from the file (a container's or systemd's secret), never
    both; config["SMTP_URL"] keeps the URL without it, so that no log or
    dump of the settings shows it."""
    url = str(config["SMTP_URL"] or "").strip()
    if config.get("SMTP") and url == config["SMTP"]["url"]:
        return  # checked already (its password was taken out of the URL)
    path = str(config["SMTP_PASSWORD_FILE"] or "").strip() or None
    if not url:
        config["SMTP"] = None
        return
    try:
        parts = urlsplit(url)
        port = parts.port
        query = parse_qs(parts.query, strict_parsing=bool(parts.query))
    except ValueError:
        raise SettingError(f"FLASK_SMTP_URL must be like {SMTP_SHAPE}") from None
    starttls = query.pop("starttls", ["false"])
    if (
        parts.scheme not in SMTP_SCHEMES
        or not parts.hostname
        or query
        or starttls not in (["true"], ["false"])
        or (parts.scheme == "smtps" and starttls == ["true"])
        or parts.path not in ("", "/")
    ):
        raise SettingError(f"FLASK_SMTP_URL must be like {SMTP_SHAPE}")
    password = unquote(parts.password) if parts.password is not None else None
    if password and path:
        raise SettingError(
            "FLASK_SMTP_URL has a password and FLASK_SMTP_PASSWORD_FILE is set: give it one way"
        )
    if path:
        try:
            with open(path, encoding="utf-8") as file:
                password = file.read().strip() or None
        except OSError as error:
            raise SettingError(
                f"FLASK_SMTP_PASSWORD_FILE cannot be read: {error.strerror} ({path})"
            ) from None
    sender = str(config["MAIL_FROM"] or "").strip()
    if "@" not in sender or any(c in sender for c in "\r\n"):
        raise SettingError(
            "FLASK_MAIL_FROM must be the address notifications come from (such as "
            "Publishing <publishing@example.com>) when FLASK_SMTP_URL is set"
        )
    user = unquote(parts.username) if parts.username else None
    config["SMTP"] = {
        "host": parts.hostname,
        "port": port or (587 if starttls == ["true"] else SMTP_SCHEMES[parts.scheme]),
        "tls": "implicit"
        if parts.scheme == "smtps"
        else ("starttls" if starttls == ["true"] else None),
        "user": user,
        "password": password,
        "sender": sender,
    }
    shown = f"{parts.username}@" if user else ""
    config["SMTP_URL"] = config["SMTP"]["url"] = (
        f"{parts.scheme}://{shown}{parts.netloc.rpartition('@')[2]}"
        + (f"?{parts.query}" if parts.query else "")
    )
    config["SMTP_PASSWORD_FILE"] = None  # read: a second check finds the password alone
