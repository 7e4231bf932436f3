"""The service's settings: defaults, and one schema that checks them all.

Each is read from a FLASK_-prefixed environment variable (Flask's
from_prefixed_env, which parses values that look like JSON), or given to
create_app by the tests. `check` loads them through SettingsSchema: a
value that cannot work stops the service when it starts, with one line
naming the variable and what it must be, instead of failing on some later
request or being silently ignored. What one setting means with another
(the LinkedIn app's secret, the SMTP URL with its password and sender, a
delivery's lease against its timeout) is the schema's last step.
"""

import ipaddress
import os
import re
from urllib.parse import parse_qs, unquote, urlsplit

from flask.cli import NoAppException
from marshmallow import Schema, ValidationError, fields, post_load

from content_publishing import logs, sealing
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
        "MEDIA_MAX_BYTES": 20 * 1024 * 1024,  # a phone photo; stored within 5 MiB (images.py)
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
        "SECRETS_KEY_FILE": None,
        # Notifications: email over SMTP (off without SMTP_URL)
        "SMTP_URL": None,
        "SMTP_PASSWORD_FILE": None,
        "MAIL_FROM": None,
        # The LinkedIn request handed to automations (linkedin/plan.py)
        "LINKEDIN_VERSION": "202610",
        "LINKEDIN_API_BASE": "https://api.linkedin.com",
        # Connecting a channel to LinkedIn, and the service's own publisher
        "LINKEDIN_CLIENT_ID": None,
        "LINKEDIN_CLIENT_SECRET": None,
        "LINKEDIN_CLIENT_SECRET_FILE": None,
        "LINKEDIN_AUTH_BASE": "https://www.linkedin.com",
        "LINKEDIN_MEMBER_POSTS_READABLE": False,
        "LINKEDIN_PUBLISH": True,
        "LINKEDIN_PUBLISH_WORKERS": 32,
        "LINKEDIN_TIMEOUT_SECONDS": 30,
        "LINKEDIN_CHECK_DELAY_SECONDS": 30,
        # Metrics and logs
        "METRICS": False,
        "LOG_FORMAT": "text",
    }


CLIENT_SECRET_FILE = "linkedin-client-secret"  # in the instance folder, like secrets.key


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Checked(fields.Field):
    """A setting whose value must pass `ok` as it is; `wanted` says what it
    must be, in the refusal's words."""

    def __init__(self, ok, wanted, **kwargs):
        super().__init__(error_messages={"null": wanted}, **kwargs)
        self.ok, self.wanted = ok, wanted

    def _deserialize(self, value, attr, data, **kwargs):
        if not self.ok(value):
            raise ValidationError(self.wanted)
        return value


class _Normalised(fields.Field):
    """A setting read into the form the service uses (`normalise` raises a
    ValueError for a value that cannot be read)."""

    def __init__(self, normalise, wanted, shows_value=True, **kwargs):
        super().__init__(error_messages={"null": wanted}, **kwargs)
        self.normalise, self.wanted, self.shows_value = normalise, wanted, shows_value

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return self.normalise(value)
        except (ValueError, TypeError, AttributeError, ValidationError):
            raise ValidationError(self.wanted) from None


def count():
    return _Checked(lambda v: _is_int(v) and v >= 0, "a whole number, 0 or more")


def integer():
    return _Checked(_is_int, "a whole number")


def optional_count():
    return _Checked(
        lambda v: v is None or (_is_int(v) and v >= 0), "a whole number", allow_none=True
    )


def positive():
    return _Checked(lambda v: _is_number(v) and v > 0, "a number above 0")


def positive_integer():
    return _Checked(lambda v: _is_int(v) and v > 0, "a whole number above 0")


def non_negative():
    return _Checked(lambda v: _is_number(v) and v >= 0, "a number, 0 or more")


def _flag(value):
    if isinstance(value, bool):
        return value
    if value in (0, 1, "0", "1", "", "true", "false"):
        return value in (1, "1", "true")
    raise ValueError


def flag():
    return _Normalised(_flag, "0 or 1")


def _schedule(value):
    if isinstance(value, str):
        value = [float(v.strip()) for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not value or not all(_is_number(v) and v >= 0 for v in value):
        raise ValueError
    return value


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


def _synchronous(value):
    if str(value).upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise ValueError
    return value


def _url(value):
    urls.parse(value)
    return value


def url():
    return _Normalised(_url, "an absolute http(s) URL, such as https://cps.example.com")


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


class SettingsSchema(Schema):
    """Every FLASK_* setting the service checks, in the order a refusal
    names the first bad one; loaded by `check`."""

    SQLITE_SYNCHRONOUS = _Normalised(_synchronous, "OFF, NORMAL, FULL or EXTRA", shows_value=False)
    MAX_CONTENT_LENGTH = count()
    MEDIA_MAX_BYTES = count()
    MEDIA_MAX_DOCUMENT_BYTES = count()
    MEDIA_PUBLIC = flag()
    KEY_TOUCH_INTERVAL = count()
    SQLITE_BUSY_TIMEOUT_MS = count()
    SCHEDULE_MIN_LEAD_SECONDS = integer()
    SQLITE_MAX_PAGE_COUNT = optional_count()
    SEARCH_TIMEOUT_MS = positive_integer()
    HANDOFF_LEASE_SECONDS = positive()
    HANDOFF_MAX_DELAY_SECONDS = positive()
    WEBHOOK_TIMEOUT_SECONDS = positive()
    DELIVERY_LOG_DAYS = positive()
    DISPATCH_LEASE_SECONDS = positive()
    DISPATCH_POLL_SECONDS = positive()
    DISPATCH_WORKERS = positive_integer()
    DISPATCH_GRACE_SECONDS = non_negative()
    WEBHOOK_ALLOW_PRIVATE = flag()
    WEBHOOK_ALLOWED_PRIVATE = _Normalised(
        allow_list,
        "comma-separated host names and CIDR ranges, each with an optional port or port range"
        " (without one: 80, 443 and 5678), such as n8n.internal:443,10.0.0.0/8:80-443",
    )
    METRICS = flag()
    LOG_FORMAT = _Normalised(_log_format, "text or json")
    WEBHOOK_RETRY_SCHEDULE = _Normalised(_schedule, "comma-separated seconds, such as 0,5,300")
    PUBLIC_URL = url()
    LINKEDIN_API_BASE = url()
    LINKEDIN_VERSION = _Normalised(_linkedin_version, "six digits YYYYMM, such as 202610")
    LINKEDIN_AUTH_BASE = url()
    LINKEDIN_MEMBER_POSTS_READABLE = flag()
    LINKEDIN_PUBLISH = flag()
    LINKEDIN_PUBLISH_WORKERS = positive_integer()
    LINKEDIN_TIMEOUT_SECONDS = positive()
    LINKEDIN_CHECK_DELAY_SECONDS = non_negative()
    # Read with one another once the rest is good (post_load), not alone.
    LINKEDIN_CLIENT_ID = fields.Raw(allow_none=True)
    LINKEDIN_CLIENT_SECRET = fields.Raw(allow_none=True)
    LINKEDIN_CLIENT_SECRET_FILE = fields.Raw(allow_none=True)
    SMTP_URL = fields.Raw(allow_none=True)
    SMTP_PASSWORD_FILE = fields.Raw(allow_none=True)
    MAIL_FROM = fields.Raw(allow_none=True)
    SMTP = fields.Raw(allow_none=True)  # set by a first check: a second keeps its password
    SECRETS_KEY = fields.Raw(allow_none=True)
    SECRETS_KEY_FILE = fields.Raw(allow_none=True)

    def __init__(self, instance_path, **kwargs):
        super().__init__(**kwargs)
        self.instance_path = instance_path

    def handle_error(self, error, data, *, many, **kwargs):
        """The first bad setting, in declaration order, as one line."""
        for name, field in self.fields.items():
            if name in error.messages:
                wanted = error.messages[name][0]
                shown = f", not {data[name]!r}" if getattr(field, "shows_value", True) else ""
                raise SettingError(f"FLASK_{name} must be {wanted}{shown}")
        raise SettingError(str(error.messages))

    @post_load
    def _together(self, config, **kwargs):
        """What settings mean with one another, once each is good."""
        _linkedin_client(config, self.instance_path)
        secrets_key(config)
        smtp(config)
        if config["DISPATCH_LEASE_SECONDS"] < config["WEBHOOK_TIMEOUT_SECONDS"] + 3:
            raise SettingError(
                "FLASK_DISPATCH_LEASE_SECONDS must exceed FLASK_WEBHOOK_TIMEOUT_SECONDS by 3 or "
                "more: a delivery's lease must outlast its attempt, or a second dispatcher could "
                "send it too"
            )
        return config


def check(config, instance_path):
    """Raise SettingError for the first setting that cannot work; normalise the rest."""
    config["DATABASE"] = database(config["DATABASE"], instance_path)
    schema = SettingsSchema(instance_path)
    config.update(schema.load({name: config.get(name) for name in schema.fields}))


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


def secret_from_file(setting, path):
    """The text of the file a *_FILE setting names (a container's or
    systemd's secret), stripped; None for an empty file. SettingError,
    naming the setting, when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read().strip() or None
    except OSError as error:
        raise SettingError(f"FLASK_{setting} cannot be read: {error.strerror} ({path})") from None


def _given(value):
    """A setting's text, or None for unset (empty means unset)."""
    return str(value or "").strip() or None


def _linkedin_client(config, instance_path):
    """FLASK_LINKEDIN_CLIENT_ID, and its secret from FLASK_LINKEDIN_CLIENT_SECRET,
    or read from the file FLASK_LINKEDIN_CLIENT_SECRET_FILE names, or from
    instance/linkedin-client-secret, as the secrets key may come from
    instance/secrets.key. A client id without a secret cannot sign anyone
    in: refused at start."""
    client_id = _given(config["LINKEDIN_CLIENT_ID"])
    secret = _given(config["LINKEDIN_CLIENT_SECRET"])
    path = _given(config["LINKEDIN_CLIENT_SECRET_FILE"])
    if secret and path:
        raise SettingError(
            "FLASK_LINKEDIN_CLIENT_SECRET and FLASK_LINKEDIN_CLIENT_SECRET_FILE are both set: "
            "give the secret one way"
        )
    kept = os.path.join(instance_path, CLIENT_SECRET_FILE)
    if secret is None and path is None and client_id and os.path.exists(kept):
        path = kept
    if path is not None:
        secret = secret_from_file("LINKEDIN_CLIENT_SECRET_FILE", path)
    if client_id and not secret:
        raise SettingError(
            "FLASK_LINKEDIN_CLIENT_ID is set but the client secret is not: set "
            "FLASK_LINKEDIN_CLIENT_SECRET or FLASK_LINKEDIN_CLIENT_SECRET_FILE (or write it to "
            f"instance/{CLIENT_SECRET_FILE})"
        )
    config["LINKEDIN_CLIENT_ID"], config["LINKEDIN_CLIENT_SECRET"] = client_id, secret
    config["LINKEDIN_CLIENT_SECRET_FILE"] = None  # read: a second check finds the secret alone


def secrets_key(config):
    """FLASK_SECRETS_KEY, or read from the file FLASK_SECRETS_KEY_FILE names
    (a container's or systemd's secret: compose.yaml's `secrets_key`), not
    both. A named file that cannot be read, or that holds no secrets key,
    stops the start: a key made anew in its place would not read what the
    real one sealed."""
    path = _given(config["SECRETS_KEY_FILE"])
    if path is None:
        given = _given(config["SECRETS_KEY"])
        if given is not None and not sealing.is_secrets_key(given):
            raise SettingError(
                "FLASK_SECRETS_KEY is not a secrets key (a Fernet key: 32 bytes in URL-safe "
                "base64, 44 characters): set it to the key the service's secrets were sealed "
                "with, or to a new one from `flask --app app secrets new-key` on a new "
                "installation"
            )
        config["SECRETS_KEY"] = given
        return
    if _given(config["SECRETS_KEY"]):
        raise SettingError(
            "FLASK_SECRETS_KEY and FLASK_SECRETS_KEY_FILE are both set: give the key one way"
        )
    try:
        key = secret_from_file("SECRETS_KEY_FILE", path) or ""
    except UnicodeDecodeError:
        key = ""  # no key either
    if not sealing.is_secrets_key(key):
        raise SettingError(
            f"FLASK_SECRETS_KEY_FILE does not hold a secrets key (a Fernet key: 32 bytes in "
            f"URL-safe base64, 44 characters) ({path})"
        )
    config["SECRETS_KEY"] = key
    config["SECRETS_KEY_FILE"] = None  # read: a second check finds the key alone


SMTP_SCHEMES = {"smtp": 25, "smtps": 465}  # scheme -> its port when the URL names none
SMTP_SHAPE = (
    "smtp://user:password@host:587?starttls=true, or smtps://user:password@host:465 (implicit TLS)"
)


def smtp(config):
    """FLASK_SMTP_URL, FLASK_SMTP_PASSWORD_FILE and FLASK_MAIL_FROM, as
    config["SMTP"]: {host, port, tls ("implicit", "starttls" or None), user,
    password, sender, url}, or None (no email is sent). The password comes
    from the URL, or from the file (a container's or systemd's secret),
    never both; config["SMTP_URL"] keeps the URL without it, so that no log
    or dump of the settings shows it."""
    url = str(config["SMTP_URL"] or "").strip()
    if config.get("SMTP") and url == config["SMTP"]["url"]:
        return  # checked already (its password was taken out of the URL)
    if not url:
        config["SMTP"] = None
        return
    parts, tls = _smtp_url(url)
    password = _smtp_password(parts, _given(config["SMTP_PASSWORD_FILE"]))
    user = unquote(parts.username) if parts.username else None
    shown = f"{parts.username}@" if user else ""
    config["SMTP"] = {
        "host": parts.hostname,
        "port": parts.port or (587 if tls == "starttls" else SMTP_SCHEMES[parts.scheme]),
        "tls": tls,
        "user": user,
        "password": password,
        "sender": _mail_from(config["MAIL_FROM"]),
        "url": f"{parts.scheme}://{shown}{parts.netloc.rpartition('@')[2]}"
        + (f"?{parts.query}" if parts.query else ""),
    }
    config["SMTP_URL"] = config["SMTP"]["url"]
    config["SMTP_PASSWORD_FILE"] = None  # read: a second check finds the password alone


def _smtp_url(url):
    """(the URL's parts, its TLS: "implicit", "starttls" or None); SettingError
    for a URL of another shape."""
    refused = SettingError(f"FLASK_SMTP_URL must be like {SMTP_SHAPE}")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a bad port raises here)
        query = parse_qs(parts.query, strict_parsing=bool(parts.query))
    except ValueError:
        raise refused from None
    starttls = query.pop("starttls", ["false"])
    if parts.scheme not in SMTP_SCHEMES or not parts.hostname or query:
        raise refused
    if starttls not in (["true"], ["false"]) or parts.path not in ("", "/"):
        raise refused
    if parts.scheme == "smtps":
        if starttls == ["true"]:
            raise refused
        return parts, "implicit"
    return parts, "starttls" if starttls == ["true"] else None


def _smtp_password(parts, path):
    password = unquote(parts.password) if parts.password is not None else None
    if password and path:
        raise SettingError(
            "FLASK_SMTP_URL has a password and FLASK_SMTP_PASSWORD_FILE is set: give it one way"
        )
    return secret_from_file("SMTP_PASSWORD_FILE", path) if path else password


def _mail_from(value):
    sender = str(value or "").strip()
    if "@" not in sender or any(c in sender for c in "\r\n"):
        raise SettingError(
            "FLASK_MAIL_FROM must be the address notifications come from (such as "
            "Publishing <publishing@example.com>) when FLASK_SMTP_URL is set"
        )
    return sender
