"""FLASK_WEBHOOK_ALLOWED_PRIVATE names ports, against real gunicorn and a
real dispatcher on both backends: an entry without a port lets 80, 443 and
5678 through and nothing else, at save and at connect; a listed port
reaches a private receiver end to end; and what a private address answers
stays out of the delivery log, which keeps its status only.

How the entries are read (ranges, IPv6 in brackets, bad spellings) is
checked on the settings themselves at the end."""

import pytest

from content_publishing import settings
from content_publishing.app import create_app
from harness import Answer, Receiver, serve
from harness.api import DELIVERIES, HOOK, HOOKS, PING
from tests.conftest import live_database_for
from tests.dispatch_support import PATIENT, dispatcher_starter, entries_of, new_user

# What an internal admin page would answer: it must never reach the log.
ADMIN_PAGE = b"<h1>admin</h1> token=s3cr3t-admin-token"
REFUSED_PORTS = [
    "http://127.0.0.1:5432/",  # PostgreSQL
    "http://127.0.0.1:22/",  # SSH
    "http://127.0.0.1:18130/admin",  # an internal admin page
    "https://127.0.0.1:8443/",
]


@pytest.fixture(scope="module")
def receiver():
    with Receiver(script=lambda arrival: Answer(200, body=ADMIN_PAGE)) as receiver:
        assert receiver.port not in (22, 5432, 8443, 18130)
        yield receiver


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend, receiver):
    """Loopback is listed twice: bare (80, 443 and 5678) and on the receiver's port."""
    tmp = tmp_path_factory.mktemp("allow_list")
    env = {
        "FLASK_WEBHOOK_ALLOWED_PRIVATE": f"127.0.0.1/32, 127.0.0.1/32:{receiver.port}",
        "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000",
    }
    with live_database_for(live_backend) as database:
        with serve(tmp, workers=2, env=env, log=tmp / "server.log", database=database) as server:
            server.tmp = tmp
            server.allowed = env["FLASK_WEBHOOK_ALLOWED_PRIVATE"]
            yield server


@pytest.fixture
def user(server):
    return new_user(server)


@pytest.fixture
def dispatchers(server):
    with dispatcher_starter(server) as start:
        yield start


def dispatcher_env(allowed):
    return {**PATIENT, "FLASK_WEBHOOK_ALLOW_PRIVATE": "0", "FLASK_WEBHOOK_ALLOWED_PRIVATE": allowed}


@pytest.mark.parametrize("url", REFUSED_PORTS)
def test_a_bare_entry_refuses_other_ports_at_save(user, url):
    r = user.post(HOOKS, {"url": url, "events": ["post.published"]})
    assert r.status == 400 and r.json["error"]["code"] == "validation_error", r
    (message,) = r.json["error"]["details"]["url"]
    port = url.split(":")[2].split("/")[0]
    assert message == (
        "Not a public address: the host 127.0.0.1 resolves to 127.0.0.1 is a loopback address"
        f" listed in FLASK_WEBHOOK_ALLOWED_PRIVATE for other ports, not {port} (an entry"
        " without a port allows 80, 443 and 5678)."
    )
    assert user.get(HOOKS).json["total"] == 0


@pytest.mark.parametrize("port", [80, 443, 5678])
def test_a_bare_entry_lets_80_443_and_5678_through_at_save(user, port):
    r = user.post(HOOKS, {"url": f"http://127.0.0.1:{port}/hook", "events": ["post.published"]})
    assert r.status == 201, r
    assert user.get(HOOK + r.json["id"]).json["url"] == f"http://127.0.0.1:{port}/hook"


def test_a_listed_port_is_delivered_to_and_its_answer_is_not_kept(
    user, receiver, dispatchers, server
):
    """The ping reaches the receiver, signed; the log shows 200 and no body."""
    hook = user.post(HOOKS, {"url": receiver.url, "events": ["post.published"]})
    assert hook.status == 201, hook
    dispatchers(**dispatcher_env(server.allowed))
    before = len(receiver.arrivals)
    pinged = user.post(PING, {"webhook_id": hook.json["id"]})
    assert pinged.status == 202, pinged
    receiver.wait_for(lambda arrivals: len(arrivals) > before, what="the ping")
    (entry,) = entries_of(user, 1, lambda e: e["outcome"] == "delivered")
    (attempt,) = entry["attempts"]
    assert attempt["status_code"] == 200 and attempt["error"] is None
    assert attempt["response"] is None
    assert b"s3cr3t" not in user.get(DELIVERIES).body


def test_a_port_taken_off_the_list_is_refused_before_connecting(user, receiver, dispatchers):
    """Saved while its port was listed, delivered by a dispatcher whose list
    has loopback bare: refused at connect, nothing arrives."""
    hook = user.post(HOOKS, {"url": receiver.url, "events": ["post.published"]})
    assert hook.status == 201, hook
    dispatchers(**dispatcher_env("127.0.0.1/32"), FLASK_WEBHOOK_RETRY_SCHEDULE="0,0.2")
    before = len(receiver.arrivals)
    assert user.post(PING, {"webhook_id": hook.json["id"]}).status == 202
    (entry,) = entries_of(user, 1, lambda e: e["outcome"] == "failed")
    assert len(entry["attempts"]) == 2
    for attempt in entry["attempts"]:
        assert attempt["status_code"] is None and attempt["response"] is None
        assert attempt["error"] == (
            "refused by the SSRF guard: 127.0.0.1 is a loopback address listed in"
            f" FLASK_WEBHOOK_ALLOWED_PRIVATE for other ports, not {receiver.port} (an entry"
            " without a port allows 80, 443 and 5678)"
        )
    assert len(receiver.arrivals) == before


# --- how an entry is read ---------------------------------------------------------------

DEFAULT = ((80, 80), (443, 443), (5678, 5678))
ENTRIES = [
    ("127.0.0.1/32:5678", "127.0.0.1/32", ((5678, 5678),)),
    ("n8n.internal:443", "n8n.internal", ((443, 443),)),
    ("N8N.Internal.", "n8n.internal", DEFAULT),
    ("10.0.0.0/8:80-443", "10.0.0.0/8", ((80, 443),)),
    ("10.1.2.3", "10.1.2.3/32", DEFAULT),
    ("[::1]/128:5678", "::1/128", ((5678, 5678),)),
    ("[fd00::]/8:1-65535", "fd00::/8", ((1, 65535),)),
    ("[::1]", "::1/128", DEFAULT),
    ("fd00::/8", "fd00::/8", DEFAULT),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize(("entry", "allowed", "ports"), ENTRIES)
def test_an_entry_names_a_host_or_range_and_its_ports(entry, allowed, ports):
    ((found, found_ports),) = settings.allow_list(entry)
    assert str(found) == allowed and found_ports == ports


BAD_ENTRIES = [
    "127.0.0.1:0",
    "127.0.0.1:65536",
    "127.0.0.1:443-80",
    "127.0.0.1:",
    "127.0.0.1:http",
    "fd00::/8:443",  # unbracketed: which colon is the port's?
    "[::1]:",
    "[n8n.internal]:80",
    "10.0.0.0/33:80",
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("value", BAD_ENTRIES)
def test_a_bad_port_stops_the_start(value):
    with pytest.raises(settings.SettingError) as refused:
        create_app({"TESTING": True, "DATABASE": ":memory:", "WEBHOOK_ALLOWED_PRIVATE": value})
    assert "FLASK_WEBHOOK_ALLOWED_PRIVATE" in str(refused.value)
    assert "80, 443 and 5678" in str(refused.value)
