"""The MCP server's settings, from CPS_* environment variables.

    CPS_BASE_URL              the service's address (default http://127.0.0.1:8000); a
                              trailing /functions/v1 is accepted too
    CPS_API_KEY               the key of stdio's one caller; over HTTP each request
                              brings its own in its Authorization header instead
    CPS_MCP_ALLOWED_HOSTS     Host header values the HTTP transport accepts besides
                              loopback's (comma-separated; a name alone takes any port,
                              `name:443` that port only): the name of a proxy in front
    CPS_FETCH_ALLOW_PRIVATE   1: upload_media may fetch URLs whose host is a loopback or
                              private address (default 0: public addresses only)

A bad value stops the server at start with one line naming the variable,
rather than failing on the first tool call.
"""

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
API_PREFIX = "/functions/v1"


class SettingError(ValueError):
    """A setting that cannot work; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    base_url: str  # the service's root, without a trailing slash
    api_key: str | None
    allowed_hosts: tuple[str, ...] = ()
    fetch_allow_private: bool = False

    @property
    def api_url(self):
        return self.base_url + API_PREFIX


def from_environ(environ=None):
    environ = os.environ if environ is None else environ
    return Settings(
        base_url=_base_url(environ.get("CPS_BASE_URL") or DEFAULT_BASE_URL),
        api_key=environ.get("CPS_API_KEY", "").strip() or None,
        allowed_hosts=tuple(
            host.strip()
            for host in environ.get("CPS_MCP_ALLOWED_HOSTS", "").split(",")
            if host.strip()
        ),
        fetch_allow_private=_flag(environ, "CPS_FETCH_ALLOW_PRIVATE"),
    )


def _base_url(value):
    url = value.strip().rstrip("/").removesuffix(API_PREFIX).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingError(
            f"CPS_BASE_URL must be the service's http(s) address, such as {DEFAULT_BASE_URL}"
        )
    if parts.query or parts.fragment or parts.username:
        raise SettingError("CPS_BASE_URL takes no query, fragment or user name")
    return url


def _flag(environ, name):
    value = environ.get(name, "0").strip().lower()
    if value not in ("0", "1", "true", "false", ""):
        raise SettingError(f"{name} must be 0 or 1")
    return value in ("1", "true")
