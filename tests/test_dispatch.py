"""The dispatcher against real gunicorn and a real receiver that verifies
every signature with the standardwebhooks package: pushes, retries,
rotation, several dispatchers, SIGKILL and SIGTERM, and a receiver that is
down (test_dispatch_log.py: the delivery log, the SSRF guard at delivery
time, Retry-After and the retry schedule; tests/dispatch_support.py: what
both share).

Pushes, leases and kills run on both backends; what is only HTTP (retry
outcomes, rotation, SIGTERM, a receiver that is down) runs on SQLite."""

import threading
import time
from datetime import datetime

import pytest

from harness import Answer, Receiver
from harness.api import CALLBACK, HOOK, ITEM, POSTS
from tests.dispatch_support import (
    PATIENT,
    add_endpoint,
    dispatch_server,
    dispatcher_starter,
    log_of,
    new_user,
    publish,
    schedule,
    wait_until,
)

# The PostgreSQL half of the live tests runs in make test too: leases and several dispatchers, in each store.
pytestmark = pytest.mark.both_backends


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with dispatch_server(tmp_path_factory, live_backend) as server:
        yield server


@pytest.fixture
def user(server):
    """A client with a new user's key per test."""
    return new_user(server)


@pytest.fixture
def dispatchers(server):
    """start(**env) -> a running dispatcher; all are stopped after the test."""
    with dispatcher_starter(server) as start:
        yield start


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
        # 3.5 s for retries 0.3 s apart: at least two attempts, on a busy machine too
        dispatchers(FLASK_HANDOFF_MAX_DELAY_SECONDS="4")
        post = schedule(user, -0.5)
        (event,) = failed_receiver.wait_for(lambda a: a, timeout=15, what="post.failed")
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
