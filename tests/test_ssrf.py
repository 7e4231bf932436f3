"""The SSRF guard (content_publishing/outbound.py): IPv6 forms that
carry an IPv4 address, port 0, a bounded DNS wait when an endpoint is saved,
no TCP connection ever opened to a forbidden address at delivery, and
delivery errors that say what happened.

Deliveries are sent with `flask webhooks test ID` (the CLI's ping), which
uses the dispatcher's sender (outbound.Sender).
"""

import re
import socket
import threading
import time

import pytest

from content_publishing import outbound, settings
from content_publishing.app import create_app
from content_publishing.publisher import run
from content_publishing.publisher.loop import Publisher
from harness import Receiver, free_port
from harness.api import HOOKS
from harness.loopback import LoopbackServer, QuietHandler
from tests.conftest import assert_error

pytestmark = pytest.mark.sqlite_only  # the guard's outcome cannot depend on the backend


CARRIES_A_PRIVATE_IPV4 = [
    "[64:ff9b::7f00:1]",  # NAT64, well-known prefix: 127.0.0.1
    "[64:ff9b::a00:1]",  # NAT64: 10.0.0.1
    "[64:ff9b:1::7f00:1]",  # NAT64, local-use prefix, last 32 bits
    "[64:ff9b:1:7f00:0:100::]",  # NAT64, local-use /48 as RFC 6052 lays it out: 127.0.0.1
    "[2002:7f00:1::]",  # 6to4: 127.0.0.1
    "[2002:c0a8:101::1]",  # 6to4: 192.168.1.1
    "[::127.0.0.1]",  # IPv4-compatible
    "[::a9fe:a9fe]",  # IPv4-compatible: 169.254.169.254, the cloud metadata address
    "[::ffff:0:7f00:1]",  # IPv4-translated
    "[::ffff:127.0.0.1]",  # IPv4-mapped
    "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",  # Teredo
]
CARRIES_A_PUBLIC_IPV4 = [
    "[::ffff:93.184.215.14]",  # IPv4-mapped
    "[64:ff9b::5db8:d70e]",  # NAT64 of 93.184.215.14
    "[2002:5db8:d70e::1]",  # 6to4 of 93.184.215.14
]


def add(api, url, events=("post.published",)):
    return api.post(HOOKS, json={"url": url, "events": list(events)})


@pytest.mark.parametrize("host", CARRIES_A_PRIVATE_IPV4)
def test_ipv6_forms_carrying_a_non_public_ipv4_are_refused(api, host):
    error = assert_error(add(api, f"https://{host}/hooks"), 400, "validation_error")
    (message,) = error["details"]["url"]
    assert message.startswith("Not a public address:") and "address" in message, message
    assert api.get(HOOKS).get_json()["total"] == 0


@pytest.mark.parametrize("host", CARRIES_A_PUBLIC_IPV4)
def test_ipv6_forms_carrying_a_public_ipv4_are_allowed(api, host):
    r = add(api, f"https://{host}/hooks")
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize("allow_private", [False, True])
def test_port_0_is_refused_even_with_the_guard_lifted(app, api, allow_private):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = allow_private
    error = assert_error(add(api, "https://93.184.215.14:0/hooks"), 400, "validation_error")
    assert "port 0" in error["details"]["url"][0]
    assert api.get(HOOKS).get_json()["total"] == 0


def test_a_slow_resolver_is_a_400_within_the_bound(api, monkeypatch):
    """A resolver that takes longer than the bound: the request does not wait for it."""

    def slow_lookup(*args, **kwargs):
        time.sleep(2)
        raise socket.gaierror("too late")

    monkeypatch.setattr(outbound, "SAVE_DNS_SECONDS", 0.2)
    monkeypatch.setattr(outbound.socket, "getaddrinfo", slow_lookup)
    started = time.monotonic()
    error = assert_error(add(api, "https://hooks.example.com/x"), 400, "validation_error")
    assert time.monotonic() - started < 1.5
    assert error["details"]["url"] == [
        "Cannot be reached: the host hooks.example.com did not resolve within 0.2 s."
    ]


class Listener:
    """A TCP port on loopback that counts the connections it accepts, and
    does `serve(connection)` with each."""

    def __init__(self, serve=lambda conn: conn.close()):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.serve = serve
        self.held = []
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)
            self.serve(conn)

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def ping(app, runner, key):
    """ping(url) -> the output of `webhooks test` for a new endpoint at url,
    saved with the guard lifted and sent with `allow_private`."""

    def send(url, allow_private=True):
        app.config["WEBHOOK_ALLOW_PRIVATE"] = True
        result = runner.invoke(
            args=["webhooks", "add", "--user", "alice", "--url", url, "--event", "post.failed"]
        )
        assert result.exit_code == 0, result.output
        endpoint_id = re.search(r"endpoint ([0-9a-f-]{36})", result.output).group(1)
        app.config["WEBHOOK_ALLOW_PRIVATE"] = allow_private
        result = runner.invoke(args=["webhooks", "test", endpoint_id])
        assert result.exit_code == 1, result.output
        return result.output.strip().splitlines()[-1]

    return send


def test_a_forbidden_address_is_never_connected_to_and_every_port_reads_the_same(ping):
    listener = Listener()
    try:
        open_port = ping(f"http://127.0.0.1:{listener.port}/hooks", allow_private=False)
        closed = ping(f"http://127.0.0.1:{closed_port()}/hooks", allow_private=False)
        by_name = ping(f"http://localhost:{listener.port}/hooks", allow_private=False)
    finally:
        listener.close()
    assert listener.accepted == 0  # not even a TCP handshake
    expected = (
        "Error: The ping was not acknowledged: refused by the SSRF guard: 127.0.0.1 is a"
        " loopback address; webhooks go to public addresses only (list a private receiver in"
        " FLASK_WEBHOOK_ALLOWED_PRIVATE)."
    )
    assert open_port == closed == expected
    assert by_name.startswith("Error: The ping was not acknowledged: refused by the SSRF guard:")


def test_delivery_errors_say_what_happened(app, ping):
    app.config["WEBHOOK_TIMEOUT_SECONDS"] = 0.5
    silent = Listener(serve=lambda conn: None)  # accepts and never answers
    plain = Listener(serve=lambda conn: conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n"))
    try:
        refused = ping(f"http://127.0.0.1:{closed_port()}/hooks")
        unresolved = ping("http://no-such-host.invalid/hooks")
        tls = ping(f"https://127.0.0.1:{plain.port}/hooks")
        timeout = ping(f"http://127.0.0.1:{silent.port}/hooks")
    finally:
        silent.close()
        plain.close()
    prefix = "Error: The ping was not acknowledged: "
    assert refused == prefix + "connection refused."
    assert unresolved == prefix + "the name no-such-host.invalid did not resolve."
    assert tls.startswith(prefix + "TLS failed: "), tls
    assert timeout == prefix + "no answer within 0.5 s."


# --- FLASK_WEBHOOK_ALLOWED_PRIVATE: private receivers a self-hoster names -------------


def allow(app, value):
    app.config["WEBHOOK_ALLOWED_PRIVATE"] = settings.allow_list(value)


def test_the_allow_list_lets_named_hosts_and_ranges_through_at_save(api, app):
    refused = assert_error(add(api, "http://127.0.0.1:5678/webhook/cps"), 400, "validation_error")
    assert "FLASK_WEBHOOK_ALLOWED_PRIVATE" in refused["details"]["url"][0]
    allow(app, "n8n.internal, 127.0.0.0/8,fd00::/8")
    assert add(api, "http://127.0.0.1:5678/webhook/cps").status_code == 201
    assert (
        add(api, "http://[::ffff:127.0.0.1]:5678/webhook/cps").status_code == 201
    )  # it carries 127.0.0.1
    assert (
        add(api, "http://n8n.internal:5678/webhook/cps").status_code == 201
    )  # by name, unresolved
    still = assert_error(add(api, "http://10.0.0.7/webhook"), 400, "validation_error")
    assert "10.0.0.7 is a private address" in still["details"]["url"][0]
    allow(app, "localhost")
    assert add(api, "http://localhost:5678/webhook/cps").status_code == 201


def test_the_allow_list_lets_a_delivery_connect(app, runner, key):
    with Receiver() as receiver:
        allow(app, f"127.0.0.1/32:{receiver.port}")
        added = runner.invoke(
            args=[
                "webhooks",
                "add",
                "--user",
                "alice",
                "--url",
                receiver.url,
                "--event",
                "post.due",
            ]
        )
        assert added.exit_code == 0, added.output
        endpoint_id = re.search(r"endpoint ([0-9a-f-]{36})", added.output).group(1)
        pinged = runner.invoke(args=["webhooks", "test", endpoint_id])
        assert pinged.exit_code == 0, pinged.output
        assert len(receiver.arrivals) == 1
        allow(app, "10.0.0.0/8")  # taken off the list: refused again, before any connection
        refused = runner.invoke(args=["webhooks", "test", endpoint_id])
        assert refused.exit_code == 1 and "FLASK_WEBHOOK_ALLOWED_PRIVATE" in refused.output
        assert len(receiver.arrivals) == 1


@pytest.mark.parametrize("value", ["not a host!", "10.0.0.0/33", "a..b", "-bad.example"])
def test_a_bad_allow_list_stops_the_start(value):
    with pytest.raises(settings.SettingError) as refused:
        create_app({"TESTING": True, "DATABASE": ":memory:", "WEBHOOK_ALLOWED_PRIVATE": value})
    assert "FLASK_WEBHOOK_ALLOWED_PRIVATE" in str(refused.value)


# --- the publisher's media named by URL ------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


class Picture(LoopbackServer):
    """A PNG at /a.png on a loopback port; `fetched` counts its GETs."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/a.png"
        self.fetched = 0

    def start(self):
        picture = self

        class Handler(QuietHandler):
            def do_GET(self):
                picture.fetched += 1
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PNG)))
                self.end_headers()
                self.wfile.write(PNG)

        return self.serve(Handler)


def test_the_publisher_fetches_no_medium_from_an_allow_listed_private_host(app):
    """FLASK_WEBHOOK_ALLOWED_PRIVATE lets deliveries reach a private receiver;
    it never lets the publisher read a private host's bytes and upload them
    to LinkedIn, where anyone sees them."""
    app.config["WEBHOOK_ALLOWED_PRIVATE"] = settings.allow_list("127.0.0.1/32:1-65535")
    app.config["LINKEDIN_CLIENT_ID"] = "an-app"
    upload = {"kind": "image", "bytes": None, "sha256": None}
    with Picture() as picture, app.app_context():
        delivery = outbound.Sender(5, outbound.Guard.of(app.config))
        assert delivery.fetch(picture.url, 1000)[0] == PNG  # a delivery's guard lets it through
        publisher = Publisher(app, "test", threading.Event())
        try:
            with pytest.raises(run.NothingPosted, match="could not be fetched.*127.0.0.1"):
                publisher.read({**upload, "source": picture.url})
        finally:
            publisher.fetch.close()
            delivery.close()
        assert picture.fetched == 1  # the delivery's, never the publisher's
