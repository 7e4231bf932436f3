"""The dispatcher against real gunicorn and a real receiver that verifies
every signature with the standardwebhooks package: pushes, retries,
rotation, several dispatchers, SIGKILL and SIGTERM, a receiver that is down,
the SSRF guard at delivery time, and the delivery log (what an attempt
keeps of an answer, how long the log is kept).

Pushes, leases, kills and the log run on both backends; what is only HTTP
(retry outcomes, rotation, SIGTERM, a receiver that is down) runs on SQLite."""

import contextlib
import functools
import re
import subprocess
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from content_publishing import settings
from content_publishing.app import create_app
from content_publishing.store import outbox
from content_publishing.store import webhooks as webhook_store
from content_publishing.store.db import dispose_db, execute, rows, transaction, value
from content_publishing.timestamps import later, now_text, parse
from harness import Answer, Client, Dispatcher, Receiver, create_key, serve
from tests.conftest import live_database_for

POSTS = "/functions/v1/api-v2-posts"
ITEM = "/functions/v1/api-v2-posts-item/"
CALLBACK = "/functions/v1/make-post-callback"
HOOKS = "/functions/v1/webhooks"
HOOK = "/functions/v1/webhooks-item/"
DELIVERIES = "/functions/v1/webhook-deliveries"

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


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    tmp = tmp_path_factory.mktemp("dispatch")
    with live_database_for(live_backend) as database:
        with serve(
            tmp, workers=2, env=SERVER_ENV, log=tmp / "server.log", database=database
        ) as server:
            server.tmp = tmp
            yield server


@pytest.fixture
def user(server):
    """A new user per test, so that one test's endpoints and events are
    invisible to the next: (client, key)."""
    key = create_key(server.database, user=f"u-{uuid.uuid4().hex[:8]}")
    return Client(server.url, key, timeout=30)


@pytest.fixture
def dispatchers(server):
    """start(**env) -> a running dispatcher; all are stopped after the test."""
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

    yield start
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


def test_end_to_end_push_callback_and_published(server, user, dispatchers):
    with Receiver() as receiver:
        hook = add_endpoint(user, receiver.url, ["post.due", "post.published"])
        receiver.secrets.append(hook["secret"])
        dispatchers()
        post = schedule(user, 2)
        (due,) = receiver.wait_for(lambda a: a, what="post.due")
        lag = due.at - datetime.fromisoformat(post["scheduled_at"]).timestamp()
        assert 0 <= lag < 1.5, lag  # noticed within a second of scheduled_at
        assert due.verified_with == [hook["secret"]]
        assert (
            due.webhook_id.startswith("msg_") and due.headers["content-type"] == "application/json"
        )
        assert "content-publishing-service" in due.headers["user-agent"]
        assert abs(int(due.headers["webhook-timestamp"]) - due.at) < 5
        data = due.json["data"]
        assert due.type == "post.due" and data["post"]["id"] == post["id"]
        assert data["post"]["status"] == "Publishing" and data["handoff_id"]
        assert data["callback_url"] == server.url + CALLBACK

        handed = wait_until(
            lambda: (p := user.get(ITEM + post["id"]).json)["version"] == 4 and p,
            what="acknowledgement",
        )
        assert handed["status"] == "Publishing" and handed["handoff_id"] == data["handoff_id"]
        lease = datetime.fromisoformat(handed["handoff_expires_at"]).timestamp() - due.at
        assert 25 < lease < 32  # the lease started when the delivery was acknowledged

        r = user.post(
            data["callback_url"].replace(server.url, ""),
            {
                "post_id": post["id"],
                "linkedin_post_id": "urn:li:share:42",
                "live_url": "https://www.linkedin.com/feed/update/urn:li:share:42",
            },
        )
        assert r.status == 200 and r.json["status"] == "Published"
        published = receiver.wait_for(lambda a: len(a) == 2, what="post.published")[1]
        assert published.type == "post.published" and published.verified_with
        assert published.json["data"]["id"] == post["id"]
        assert published.json["data"]["status"] == "Published"
        assert published.webhook_id != due.webhook_id

        entries = wait_until(
            lambda: (
                (d := log_of(user)["data"])
                and all(e["outcome"] == "delivered" for e in d)
                and len(d) == 2
                and d
            )
        )
        for entry in entries:
            (attempt,) = entry["attempts"]
            assert attempt["status_code"] == 200 and attempt["outcome"] == "delivered"
            assert attempt["response"] == "ok" and attempt["duration_ms"] >= 0


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_every_retry_outcome(server, user, dispatchers):
    answers = iter(
        [
            Answer(500, body=b"boom"),
            Answer(200, delay=2.0),
            Answer(302, {"Location": "/x"}),
            Answer(429, {"Retry-After": "1"}),
            Answer(503, {"Retry-After": "1"}),
            Answer(200, body=b"thanks"),
        ]
    )
    with Receiver(script=lambda arrival: next(answers)) as receiver:
        hook = add_endpoint(user, receiver.url, ["post.published"])
        receiver.secrets.append(hook["secret"])
        dispatchers()
        publish(user)
        arrivals = receiver.wait_for(lambda a: len(a) == 6, timeout=20)
        assert len({a.webhook_id for a in arrivals}) == 1  # the same id on every retry
        assert all(a.verified_with for a in arrivals)
        # Retry-After was honoured, after the 429 and after the 503 (the schedule says 0.3 s)
        assert arrivals[4].at - arrivals[3].at >= 0.95
        assert arrivals[5].at - arrivals[4].at >= 0.95
        (entry,) = wait_until(
            lambda: (d := log_of(user)["data"])[0]["outcome"] == "delivered" and d
        )
        attempts = entry["attempts"]
        assert [a["status_code"] for a in attempts] == [500, None, 302, 429, 503, 200]
        assert [a["outcome"] for a in attempts] == ["failed"] * 5 + ["delivered"]
        assert attempts[0]["response"] == "boom" and "HTTP 500" in attempts[0]["error"]
        assert "no answer within 1 s" in attempts[1]["error"]
        assert "redirects are not followed" in attempts[2]["error"]
        assert entry["attempt_count"] == 6 and entry["last_error"] is None
        time.sleep(0.5)
        assert len(receiver.arrivals) == 6  # nothing more after the 2xx


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_a_receiver_that_drips_its_answer_is_cut_off_at_the_timeout(server, user, dispatchers):
    """Headers at once, then a byte every 0.25 s: each read is quick, but the
    attempt is cut at the 1 s timeout, so it cannot outlive its lease."""
    drip = Answer(200, body=b"x" * 40, drip=0.25)
    answers = iter([drip, Answer(200, body=b"thanks")])
    with Receiver(script=lambda arrival: next(answers)) as receiver:
        add_endpoint(user, receiver.url, ["post.published"])
        dispatchers()
        publish(user)
        receiver.wait_for(lambda a: len(a) == 2, timeout=20)
        (entry,) = wait_until(
            lambda: (d := log_of(user)["data"])[0]["outcome"] == "delivered" and d
        )
        cut, delivered = entry["attempts"]
        assert cut["outcome"] == "failed" and "no answer within 1 s" in cut["error"]
        assert 900 <= cut["duration_ms"] < 2000
        assert delivered["response"] == "thanks"


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_410_disables_the_endpoint_and_giving_up(server, user, dispatchers):
    with (
        Receiver(script=lambda a: Answer(410)) as gone,
        Receiver(script=lambda a: Answer(500)) as broken,
    ):
        gone_hook = add_endpoint(user, gone.url, ["post.published"])
        broken_hook = add_endpoint(user, broken.url, ["post.published"])
        dispatchers(FLASK_WEBHOOK_RETRY_SCHEDULE="0,0.2,0.2")
        publish(user, 1)
        gone.wait_for(lambda a: len(a) == 1)
        broken.wait_for(lambda a: len(a) == 3)
        record = wait_until(
            lambda: not (h := user.get(HOOK + gone_hook["id"]).json)["enabled"] and h
        )
        assert "410" in record["disabled_reason"]
        entries = wait_until(
            lambda: (d := log_of(user)["data"]) and {e["outcome"] for e in d} == {"failed"} and d
        )
        by_endpoint = {e["endpoint_id"]: e for e in entries}
        assert by_endpoint[gone_hook["id"]]["attempt_count"] == 1
        assert "410" in by_endpoint[gone_hook["id"]]["last_error"]
        assert by_endpoint[broken_hook["id"]]["attempt_count"] == 3
        assert "gave up after 3 attempts" in by_endpoint[broken_hook["id"]]["last_error"]
        publish(user, 2)  # a disabled endpoint gets nothing more
        time.sleep(1.5)
        assert len(gone.arrivals) == 1


def test_an_unacknowledged_push_fails_the_post(server, user, dispatchers):
    with (
        Receiver(script=lambda a: Answer(500, body=b"scenario is off")) as due_receiver,
        Receiver() as failed_receiver,
    ):
        add_endpoint(user, due_receiver.url, ["post.due"])
        failed_hook = add_endpoint(user, failed_receiver.url, ["post.failed"])
        failed_receiver.secrets.append(failed_hook["secret"])
        dispatchers(FLASK_HANDOFF_MAX_DELAY_SECONDS="2")
        post = schedule(user, -0.5)
        (event,) = failed_receiver.wait_for(lambda a: a, timeout=10, what="post.failed")
        assert event.verified_with and event.type == "post.failed"
        failed = event.json["data"]
        assert failed["id"] == post["id"] and failed["status"] == "Failed"
        assert "No post.due delivery was acknowledged" in failed["last_error"]
        assert "HTTP 500" in failed["last_error"]
        assert user.get(ITEM + post["id"]).json == failed
        assert len(due_receiver.arrivals) >= 2
        time.sleep(1)
        assert user.get(f"{POSTS}?status=Scheduled").json["total"] == 0  # never handed out again


def test_any_answer_body_is_kept_in_the_log(server, user, dispatchers):
    """A receiver's answer is stored as text on either backend: NUL bytes
    (which PostgreSQL's text refuses) and invalid UTF-8 become U+FFFD."""
    with Receiver(script=lambda a: Answer(200, body=b"ok\x00\xff\xfe done")) as receiver:
        add_endpoint(user, receiver.url, ["post.published"])
        dispatchers()
        publish(user)
        receiver.wait_for(lambda a: a)
        (entry,) = wait_until(
            lambda: (d := log_of(user)["data"]) and d[0]["outcome"] == "delivered" and d
        )
        assert entry["attempts"][0]["response"] == "ok\ufffd\ufffd\ufffd done"


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_secret_rotation_signs_with_both_for_a_day(server, user, dispatchers):
    with Receiver() as receiver:
        hook = add_endpoint(user, receiver.url, ["post.published"])
        new = user.patch(HOOK + hook["id"], {"rotate_secret": True}).json["secret"]
        receiver.secrets += [hook["secret"], new]
        dispatchers()
        publish(user)
        (arrival,) = receiver.wait_for(lambda a: a)
        assert len(arrival.signatures) == 2
        assert arrival.verified_with == [hook["secret"], new]


def test_two_dispatchers_deliver_each_event_once(server, user, dispatchers):
    with Receiver() as receiver:
        add_endpoint(user, receiver.url, ["post.due", "post.published"])
        # Published before any dispatcher runs: their post.published events wait
        # in the outbox, and they are never pushed as due.
        for i in range(60):
            publish(user, 1000 + i)
        posts = [schedule(user, -1, f"due {i}")["id"] for i in range(60)]
        dispatchers("one", **PATIENT)
        dispatchers("two", **PATIENT)
        arrivals = receiver.wait_for(lambda a: len(a) >= 120, timeout=30)
        time.sleep(1.0)  # anything sent twice would arrive by now
        ids = [a.webhook_id for a in receiver.arrivals]
        assert len(ids) == len(set(ids)) == 120
        due = {a.json["data"]["post"]["id"] for a in arrivals if a.type == "post.due"}
        assert due == set(posts)
        page = user.get(f"{POSTS}?status=Publishing&limit=100").json
        assert page["total"] == 60 and {p["handoff_count"] for p in page["data"]} == {1}
        logs = [(server.tmp / f"{name}.log").read_text() for name in ("one", "two")]
        assert all("started" in text for text in logs)


def test_sigkill_mid_delivery_loses_nothing(server, user, dispatchers):
    with Receiver(script=lambda a: Answer(200, delay=0.6)) as receiver:
        add_endpoint(user, receiver.url, ["post.published"])
        for i in range(30):
            publish(user, 2000 + i)
        first = dispatchers("doomed", FLASK_DISPATCH_WORKERS="4")
        receiver.wait_for(lambda a: len(a) >= 3)
        first.kill()  # mid-delivery: some leased, some in flight
        dispatchers("heir")
        events = {e["event_id"] for e in log_of(user)["data"]}
        assert len(events) == 30
        receiver.wait_for(lambda a: {x.webhook_id for x in a} >= events, timeout=30)
        wait_until(lambda: {e["outcome"] for e in log_of(user)["data"]} == {"delivered"})
        # Repeats are possible after a kill, but only under the same webhook-id.
        assert {a.webhook_id for a in receiver.arrivals} == events


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_sigterm_gives_back_what_it_holds_and_exits_0(server, user, dispatchers):
    release = threading.Event()
    with Receiver(script=lambda a: Answer(200, delay=0 if release.is_set() else 20)) as receiver:
        add_endpoint(user, receiver.url, ["post.published"])
        stopping = dispatchers(
            "stopping", FLASK_WEBHOOK_TIMEOUT_SECONDS="30", FLASK_DISPATCH_LEASE_SECONDS="40"
        )
        publish(user)
        receiver.wait_for(lambda a: a)
        started = time.monotonic()
        code = stopping.terminate(15)
        took = time.monotonic() - started
        assert code == 0 and took < 10, (code, took)
        (entry,) = log_of(user)["data"]
        assert entry["outcome"] == "pending" and entry["attempt_count"] == 0
        release.set()
        dispatchers("after")
        arrivals = receiver.wait_for(lambda a: len(a) == 2)
        assert arrivals[0].webhook_id == arrivals[1].webhook_id
        wait_until(lambda: log_of(user)["data"][0]["outcome"] == "delivered")


def receiver_down_and_back(server, user, dispatchers, seconds):
    receiver = Receiver()
    hook = add_endpoint(user, receiver.url, ["post.published"])
    receiver.secrets.append(hook["secret"])
    dispatchers(
        FLASK_WEBHOOK_RETRY_SCHEDULE="0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,"
        "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"
    )
    for i in range(10):
        publish(user, 3000 + i)
    time.sleep(seconds)  # down: every attempt is refused
    assert {e["outcome"] for e in log_of(user)["data"]} == {"pending"}
    with receiver:
        arrivals = receiver.wait_for(lambda a: len({x.webhook_id for x in a}) == 10, timeout=30)
    assert all(a.verified_with for a in arrivals)
    attempts = sum(e["attempt_count"] for e in log_of(user)["data"])
    assert attempts > 10  # they were tried, and retried, while it was down


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_a_receiver_down_for_a_while_gets_everything(server, user, dispatchers):
    receiver_down_and_back(server, user, dispatchers, seconds=4)


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_a_receiver_down_for_a_minute_gets_everything(server, user, dispatchers):
    receiver_down_and_back(server, user, dispatchers, seconds=60)


# --- the delivery log, the guard at delivery time, schedules and secrets ----------------


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
    user_id = webhook_store.find_any(endpoint_id)["user_id"]
    then = later(now_text(), -86400 * days)
    for _ in range(n):
        event_id = f"msg_{uuid.uuid4().hex}"
        outbox.add_event(event_id, user_id, "post.published", None, "{}", [endpoint_id], then)
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


def test_the_delivery_log_forgets_what_is_older_than_30_days_in_batches(server, user, dispatchers):
    """FLASK_DELIVERY_LOG_DAYS (30): attempts, finished deliveries and events
    older than that go, newer ones stay, and so does what a pending delivery
    still needs (its event). Records are dated in the past through the store,
    as if the days had gone by. The dispatcher purges in its first round,
    here on a machine booted seconds ago (a time namespace: time.monotonic()
    near 10 s), and a backlog larger than a batch takes several transactions,
    so the write lock is never held for the whole of it."""
    with (
        Receiver() as receiver,
        Receiver(script=lambda a: Answer(503, {"Retry-After": "86400"})) as busy,
    ):
        hook = add_endpoint(user, receiver.url, ["post.published"])
        busy_hook = add_endpoint(user, busy.url, ["post.published"])
        first = dispatchers(**PATIENT)
        old, recent = publish(user, 1), publish(user, 2)
        entries = entries_of(user, 4, lambda e: e["attempt_count"] == 1)
        first.stop()
        event_of = {e["post_id"]: e["event_id"] for e in entries}
        backlog = outbox.PURGE_BATCH + 500
        with server_store(server):
            backdate(event_of[old["id"]], 31)
            backdate(event_of[recent["id"]], 29)
            old_backlog(hook["id"], backlog, 40)
        assert log_of(user)["total"] == 4 + backlog

        purger = dispatchers(just_booted=True, **PATIENT)
        wait_until(lambda: "delivery log: forgot" in purger.log_text(), what="the purge")
        left = log_of(user)
        assert left["total"] == 3
        kept = {(e["endpoint_id"], e["post_id"]): e for e in left["data"]}
        assert (hook["id"], old["id"]) not in kept  # delivered 31 days ago
        recent_entry = kept[(hook["id"], recent["id"])]  # delivered 29 days ago
        assert recent_entry["outcome"] == "delivered" and len(recent_entry["attempts"]) == 1
        waiting = kept[(busy_hook["id"], old["id"])]  # still pending: its attempt goes, it stays
        assert waiting["outcome"] == "pending" and waiting["attempts"] == []
        assert waiting["event_id"] == event_of[old["id"]]
        assert len(kept[(busy_hook["id"], recent["id"])]["attempts"]) == 1
        with server_store(server):
            user_id = webhook_store.find_any(hook["id"])["user_id"]
            events = value("SELECT COUNT(*) FROM webhook_events WHERE user_id = ?", (user_id,))
        assert events == 2  # the backlog's are gone; the old one stays for its pending delivery

        forgot, batches = map(
            int,
            re.search(
                r"forgot (\d+) rows older than 30 days, in (\d+) batches", purger.log_text()
            ).groups(),
        )
        assert forgot == 3 * backlog + 3  # and the delivery of 31 days ago, and 2 attempts
        assert batches >= 3 * -(-backlog // outbox.PURGE_BATCH)  # each table took 2 or more
        assert forgot <= batches * outbox.PURGE_BATCH


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_ssrf_guard_checks_the_address_again_at_each_delivery(server, user, dispatchers, host):
    """An endpoint saved while the guard was lifted (or whose name resolved
    to a public address then) is not delivered by a dispatcher that keeps
    it: the address actually connected to, after DNS, is checked, and the
    attempt fails saying why before any request is sent."""
    with Receiver() as receiver:
        add_endpoint(user, receiver.url.replace("127.0.0.1", host), ["post.published"])
        dispatchers(FLASK_WEBHOOK_ALLOW_PRIVATE="0", FLASK_WEBHOOK_RETRY_SCHEDULE="0,0.2")
        publish(user)
        (entry,) = entries_of(user, 1, lambda e: e["outcome"] == "failed")
        assert [a["status_code"] for a in entry["attempts"]] == [None, None]
        for attempt in entry["attempts"]:
            assert attempt["error"] == (
                "refused by the SSRF guard: 127.0.0.1 is a loopback address;"
                " webhooks go to public addresses only"
                " (list a private receiver in FLASK_WEBHOOK_ALLOWED_PRIVATE)"
            )
        assert entry["last_error"].endswith("gave up after 2 attempts")
        assert receiver.arrivals == []


LONG_ANSWERS = [
    # (the receiver's answer, what the log keeps: its first KB, in whole characters)
    (b"a" * 5000, "a" * 1024),
    (b"x" + "\u00e9".encode() * 1000, "x" + "\u00e9" * 511),  # byte 1024: 1 of 2
    (b"ab" + "\u20ac".encode() * 500, "ab" + "\u20ac" * 340),  # bytes 1023-1024: 2 of 3
    (b"abc" + "\U0001f642".encode() * 300, "abc" + "\U0001f642" * 255),  # byte 1024: 1 of 4
    ("\u00e9".encode() * 600, "\u00e9" * 512),  # a character ends at byte 1024
]


def test_only_the_first_kb_of_an_answer_is_kept_in_whole_characters(server, user, dispatchers):
    """A receiver may answer at length; the attempt keeps the first 1 KB, and
    a UTF-8 character cut at that boundary is left out rather than stored
    broken or as a replacement character."""
    with contextlib.ExitStack() as stack:
        receivers = [
            stack.enter_context(Receiver(script=lambda a, body=body: Answer(200, body=body)))
            for body, _ in LONG_ANSWERS
        ]
        hooks = [add_endpoint(user, r.url, ["post.published"])["id"] for r in receivers]
        dispatchers(**PATIENT)
        publish(user)
        entries = entries_of(user, len(hooks), lambda e: e["outcome"] == "delivered")
    kept = {e["endpoint_id"]: e["attempts"][-1]["response"] for e in entries}
    for hook_id, (_, expected) in zip(hooks, LONG_ANSWERS, strict=True):
        assert kept[hook_id] == expected
        assert len(kept[hook_id].encode()) <= 1024


RETRY_AFTERS = [
    # (status, its Retry-After (a timedelta: an HTTP date that far ahead), seconds to the next attempt)
    (503, "3600", 3600),
    (429, "7200", 7200),
    (503, timedelta(hours=2), 7200),
    (503, "99999999", 86400),  # capped at a day
    (503, None, "schedule"),
    (503, "soon", "schedule"),  # not a Retry-After
]


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_retry_after_on_a_429_or_503_sets_the_next_attempt(server, user, dispatchers):
    """Read in the log, nothing waits for hours: next_attempt_at is counted
    from the moment the failed attempt was recorded (updated_at). Without a
    usable Retry-After the schedule applies (here 1000 s, plus its jitter)."""
    with contextlib.ExitStack() as stack:
        cases = {}
        for status, retry_after, expected in RETRY_AFTERS:
            date = None
            if isinstance(retry_after, timedelta):
                date = (datetime.now(UTC) + retry_after).replace(microsecond=0)
                retry_after = format_datetime(date, usegmt=True)
            answer = Answer(status, {"Retry-After": retry_after} if retry_after else {})
            receiver = stack.enter_context(Receiver(script=lambda a, answer=answer: answer))
            hook = add_endpoint(user, receiver.url, ["post.published"])
            cases[hook["id"]] = (status, date, expected)
        dispatchers(FLASK_WEBHOOK_RETRY_SCHEDULE="0,1000", **PATIENT)
        publish(user)
        entries = entries_of(user, len(cases), lambda e: e["attempt_count"] == 1)
    for entry in entries:
        status, date, expected = cases[entry["endpoint_id"]]
        assert entry["outcome"] == "pending" and entry["attempts"][0]["status_code"] == status
        next_at = parse(entry["next_attempt_at"])
        delay = (next_at - parse(entry["updated_at"])).total_seconds()
        if date is not None:
            assert abs((next_at - date).total_seconds()) < 0.5, (entry, date)
        elif expected == "schedule":
            assert 1000 <= delay <= 1100, entry
        else:
            assert abs(delay - expected) < 0.001, entry


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_the_default_schedule_retries_with_at_most_10_percent_jitter(server, user, dispatchers):
    """Deliveries that fail together do not all come back at the same
    instant: each retry waits its step of the schedule plus 0 to 10%. Read in
    the log (next_attempt_at against updated_at, when the failure was
    recorded), so nothing waits for the step itself."""
    steps = settings.RETRY_SCHEDULE
    with Receiver(script=lambda a: Answer(500)) as receiver:
        add_endpoint(user, receiver.url, ["post.published"])
        for i in range(40):
            publish(user, 4000 + i)
        dispatchers(FLASK_WEBHOOK_RETRY_SCHEDULE=",".join(map(str, steps)))
        entries = entries_of(user, 40, lambda e: e["attempt_count"] >= 1)
    stretch = [
        (parse(e["next_attempt_at"]) - parse(e["updated_at"])).total_seconds()
        / steps[e["attempt_count"]]
        - 1
        for e in entries
    ]
    assert all(0 <= s <= 0.1 for s in stretch), stretch
    assert max(stretch) - min(stretch) > 0.02, stretch  # jitter, not one fixed delay


ROTATIONS = [
    # (how long ago the secret was rotated, the secrets that sign a delivery now)
    (timedelta(hours=23, minutes=59), ["old", "new"]),
    (timedelta(hours=24), ["new"]),
    (timedelta(days=3), ["new"]),
]


@pytest.mark.sqlite_only  # HTTP behaviour: the same on both backends
def test_the_old_secret_stops_signing_24_hours_after_a_rotation(server, user, dispatchers):
    """A rotation stores when the old secret's day ends, and the dispatcher
    compares that with the time of each delivery. The rotation is moved into
    the past through the store, as if the hours had gone by."""
    with contextlib.ExitStack() as stack:
        cases = []
        for ago, signers in ROTATIONS:
            receiver = stack.enter_context(Receiver())
            hook = add_endpoint(user, receiver.url, ["post.published"])
            rotated = datetime.now(UTC)
            new = user.patch(HOOK + hook["id"], {"rotate_secret": True}).json["secret"]
            secrets = {"old": hook["secret"], "new": new}
            receiver.secrets += [secrets["old"], secrets["new"]]
            cases.append((receiver, hook["id"], rotated, ago, [secrets[s] for s in signers]))
        with server_store(server):
            for _, hook_id, rotated, ago, _ in cases:
                until = webhook_store.signing(hook_id)["previous_secret_until"]
                overlap = parse(until) - rotated
                assert timedelta(hours=24) <= overlap < timedelta(hours=24, seconds=5)
                execute(
                    "UPDATE webhook_endpoints SET previous_secret_until = ? WHERE id = ?",
                    (later(until, -ago.total_seconds()), hook_id),
                )
        dispatchers(**PATIENT)
        publish(user)
        for receiver, _, _, ago, signed_with in cases:
            (arrival,) = receiver.wait_for(lambda a: a)
            assert arrival.verified_with == signed_with, ago
            assert len(arrival.signatures) == len(signed_with), ago
