"""What the dispatcher tests share (test_dispatch.py, test_dispatch_log.py):
the module's gunicorn server on either backend, a user per test, dispatchers
started and killed, posts scheduled and published, the delivery log read, and
the store reached directly to backdate events."""

import contextlib
import functools
import subprocess
import time
import uuid
from datetime import UTC, datetime, timedelta

from content_publishing.app import create_app
from content_publishing.store import outbox
from content_publishing.store import webhooks as webhook_store
from content_publishing.store.db import dispose_db, execute, rows, transaction
from content_publishing.timestamps import later, now_text
from harness import Client, Dispatcher, create_key, serve
from harness.api import CALLBACK, DELIVERIES, HOOKS, ITEM, POSTS
from tests.conftest import live_database_for

SERVER_ENV = {"FLASK_WEBHOOK_ALLOW_PRIVATE": "1", "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000"}
DISPATCH_ENV = {
    "FLASK_WEBHOOK_ALLOW_PRIVATE": "1",
    "FLASK_WEBHOOK_RETRY_SCHEDULE": "0,0.3,0.3,0.3,0.3,0.3",
    "FLASK_WEBHOOK_TIMEOUT_SECONDS": "1",
    "FLASK_DISPATCH_LEASE_SECONDS": "4",
    "FLASK_DISPATCH_GRACE_SECONDS": "2",
    "FLASK_HANDOFF_LEASE_SECONDS": "30",
}

# For tests that count attempts but are not about timeouts: an answer that
# comes late on a loaded machine would be retried (by design, under the same
# webhook-id) and spoil the count.
PATIENT = {"FLASK_WEBHOOK_TIMEOUT_SECONDS": "5", "FLASK_DISPATCH_LEASE_SECONDS": "10"}


@contextlib.contextmanager
def dispatch_server(tmp_path_factory, live_backend):
    """gunicorn for one test module (its `server` fixture) on `live_backend`."""
    tmp = tmp_path_factory.mktemp("dispatch")
    with live_database_for(live_backend) as database:
        with serve(
            tmp, workers=2, env=SERVER_ENV, log=tmp / "server.log", database=database
        ) as server:
            server.tmp = tmp
            yield server


def new_user(server):
    """A client with a new user's key, so that one test's endpoints and
    events are invisible to the next."""
    key = create_key(server.database, user=f"u-{uuid.uuid4().hex[:8]}")
    return Client(server.url, key, timeout=30)


@contextlib.contextmanager
def dispatcher_starter(server):
    """start(**env) -> a running dispatcher; all are stopped at the end."""
    started = []

    def start(name=None, just_booted=False, **env):
        name = name or f"d-{uuid.uuid4().hex[:6]}"
        process = Dispatcher(
            server.database,
            name=name,
            log=server.tmp / f"{name}.log",
            env={**DISPATCH_ENV, "FLASK_PUBLIC_URL": server.url, **env},
        )
        if just_booted:
            process.argv = just_booted_prefix() + process.argv
        started.append(process)
        return process.start(timeout=30)

    try:
        yield start
    finally:
        for process in started:
            process.kill()


def add_endpoint(client, url, events):
    r = client.post(HOOKS, {"url": url, "events": events})
    assert r.status == 201, r
    return r.json


def at(seconds):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def schedule(client, seconds=0.0, content="Hello"):
    r = client.post(POSTS, {"type": "personal", "content": content, "scheduled_at": at(seconds)})
    assert r.status == 201, r
    r = client.patch(ITEM + r.json["id"], {"status": "Scheduled"})
    assert r.status == 200, r
    return r.json


def publish(client, n=1):
    post = schedule(client, -1, f"post {n}")
    r = client.post(
        CALLBACK,
        {
            "post_id": post["id"],
            "linkedin_post_id": f"urn:li:share:{n}",
            "live_url": f"https://www.linkedin.com/feed/update/{n}",
        },
    )
    assert r.status == 200, r
    return r.json


def log_of(client, **query):
    args = "&".join(f"{k}={v}" for k, v in query.items())
    return client.get(f"{DELIVERIES}?limit=100&{args}").json


def wait_until(check, timeout=15.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.05)
    raise TimeoutError(f"{what} not reached within {timeout} s")


def _unshare(seconds_back):
    return ["unshare", "--user", "--map-root-user", "--time", f"--monotonic=-{seconds_back}"]


@functools.cache
def _time_namespaces():
    """Whether this host lets an unprivileged user run a process in a time
    namespace of its own (Linux 5.6 and later, user namespaces allowed)."""
    try:
        probe = subprocess.run([*_unshare(1), "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def just_booted_prefix():
    """A command prefix under which time.monotonic() starts near 10 s, as on
    a machine booted moments ago, whatever this host's uptime; empty where
    time namespaces are not available (the command then runs as it is)."""
    return _unshare(int(time.monotonic()) - 10) if _time_namespaces() else []


@contextlib.contextmanager
def server_store(server):
    """A transaction on the live server's database through the service's
    own store: to date records in the past, as if days had gone by."""
    app = create_app({"TESTING": True, "DATABASE": str(server.database)})
    with app.app_context():
        try:
            with transaction():
                yield
        finally:
            dispose_db()


def backdate(event_id, days):
    """Move an event, its deliveries and their attempts `days` into the past."""
    for table, where, columns in (
        ("webhook_events", "id = ?", ("created_at",)),
        ("webhook_deliveries", "event_id = ?", ("created_at", "updated_at")),
        (
            "webhook_attempts",
            "delivery_id IN (SELECT id FROM webhook_deliveries WHERE event_id = ?)",
            ("attempted_at",),
        ),
    ):
        for row in rows(f"SELECT id, {', '.join(columns)} FROM {table} WHERE {where}", (event_id,)):
            execute(
                f"UPDATE {table} SET {', '.join(c + ' = ?' for c in columns)} WHERE id = ?",
                (*(later(row[c], -86400 * days) for c in columns), row["id"]),
            )


def old_backlog(endpoint_id, n, days):
    """`n` events of `days` ago, each delivered to `endpoint_id` at the first attempt."""
    workspace_id = webhook_store.find_any(endpoint_id)["workspace_id"]
    then = later(now_text(), -86400 * days)
    for _ in range(n):
        event_id = f"msg_{uuid.uuid4().hex}"
        outbox.add_event(event_id, workspace_id, "post.published", None, "{}", [endpoint_id], then)
    these = "endpoint_id = ? AND created_at = ?"
    execute(
        "UPDATE webhook_deliveries SET outcome = 'delivered', attempt_count = 1,"
        f" next_attempt_at = NULL WHERE {these}",
        (endpoint_id, then),
    )
    execute(
        "INSERT INTO webhook_attempts (delivery_id, attempted_at, outcome, status_code,"
        f" duration_ms) SELECT id, created_at, 'delivered', 200, 3 FROM webhook_deliveries WHERE {these}",
        (endpoint_id, then),
    )


def entries_of(client, count, done):
    """The log once it has `count` entries and done(entry) holds for each."""
    return wait_until(
        lambda: (d := log_of(client)["data"]) and len(d) == count and all(map(done, d)) and d,
        what=f"{count} entries",
    )
