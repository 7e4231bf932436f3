"""The client address in gunicorn's access log (accesslog.client_address).

gunicorn never reads X-Forwarded-For itself: REMOTE_ADDR is always the TCP
peer, and `forwarded_allow_ips` only decides whose X-Forwarded-Proto (and
SCRIPT_NAME-style headers) it believes. The access log names the forwarded
client under the same rule, and gunicorn.conf.py trusts nobody unless
FORWARDED_ALLOW_IPS names the proxy. Live, through nginx: tests/test_deploy_proxy.py.
"""

import runpy
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config

from content_publishing.serving.accesslog import (
    FORMAT,
    RedactedAtoms,
    RedactingLogger,
    client_address,
)
from harness import ROOT


def forwarded_allow_ips(monkeypatch, value):
    """gunicorn.conf.py's forwarded_allow_ips with FORWARDED_ALLOW_IPS = value (None: unset)."""
    if value is None:
        monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    else:
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", value)
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))["forwarded_allow_ips"]


@pytest.mark.parametrize(
    "trusted, peer, forwarded, logged",
    [
        (None, "127.0.0.1", "203.0.113.7", "127.0.0.1"),  # default: nobody, even on loopback
        ("127.0.0.1", "127.0.0.1", "203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", "127.0.0.1", "198.51.100.1, 203.0.113.7", "203.0.113.7"),  # the proxy's own
        ("127.0.0.1", "127.0.0.1", "2001:db8::1", "2001:db8::1"),
        ("127.0.0.1", "127.0.0.2", "203.0.113.7", "127.0.0.2"),  # not the proxy
        ("127.0.0.1", "127.0.0.1", "evil\n127.0.0.9 - - fake line", "127.0.0.1"),
        ("127.0.0.1", "127.0.0.1", None, "127.0.0.1"),
        ("10.0.0.0/8", "10.1.2.3", "203.0.113.7", "203.0.113.7"),
    ],
)
def test_access_log_names_a_forwarded_client_only_from_the_proxy(
    monkeypatch, trusted, peer, forwarded, logged
):
    cfg = Config()
    cfg.set("forwarded_allow_ips", forwarded_allow_ips(monkeypatch, trusted))
    environ = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded
    assert client_address(environ, cfg) == logged


def test_the_access_line_starts_with_it():
    cfg = Config()
    cfg.set("forwarded_allow_ips", "127.0.0.1")
    environ = {
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_X_FORWARDED_FOR": "203.0.113.7",
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/health",
        "SERVER_PROTOCOL": "HTTP/1.1",
    }
    response = SimpleNamespace(status="200 OK", headers=[], sent=2)
    request = SimpleNamespace(headers=[])
    atoms = RedactingLogger(cfg).atoms(response, request, environ, timedelta(0))
    assert (FORMAT % RedactedAtoms(atoms)).startswith("203.0.113.7 - - [")
