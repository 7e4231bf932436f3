"""The dispatcher's delivery log and its later attempts, against real
gunicorn and a real receiver: how long the log is kept, what an attempt
keeps of an answer, the SSRF guard checked again at each delivery,
Retry-After, the retry schedule's jitter and the end of a rotated secret.

The log's retention runs on both backends; what is only HTTP runs on SQLite."""

import contextlib
import re
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from content_publishing import settings
from content_publishing.store import outbox
from content_publishing.store import webhooks as webhook_store
from content_publishing.store.db import execute, value
from content_publishing.timestamps import later, parse
from harness import Answer, Receiver
from harness.api import HOOK
from tests.dispatch_support import (
    PATIENT,
    add_endpoint,
    backdate,
    dispatch_server,
    dispatcher_starter,
    entries_of,
    log_of,
    new_user,
    old_backlog,
    publish,
    server_store,
    wait_until,
)


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
            workspace_id = webhook_store.find_any(hook["id"])["workspace_id"]
            events = value(
                "SELECT COUNT(*) FROM webhook_events WHERE workspace_id = ?", (workspace_id,)
            )
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
