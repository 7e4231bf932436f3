"""`flask --app app dispatch`: push due posts, deliver the webhook outbox and send notifications.

One loop, several threads:

- every poll (FLASK_DISPATCH_POLL_SECONDS, 0.25 s), or at the scheduled_at of
  a post due before the next one, the loop reads what there is to do, then
  does it in one transaction: records what the senders finished (the
  attempt, the delivery's next step: delivered, retry at a time, gave up;
  for post.due the handoff's acknowledgement), hands due posts of workspaces
  with an enabled post.due endpoint to that endpoint (a claim, written with
  its post.due event), turns handoffs whose lease ran out into Failed posts
  (with their post.failed events), and leases ready deliveries; in its
  first round and then hourly it forgets the delivery log older than
  FLASK_DELIVERY_LOG_DAYS, a batch per round;
- a pool of delivery threads sends each leased delivery, once the round
  that leased it has committed, and hands the attempt back to the loop;
- the notifier's threads (notifications/sending.py) lease, send and record notifications
  (email over SMTP, the workspaces' chats) one by one, on their own; the
  purge forgets the sent ones with the delivery log.

Several dispatchers may run at once, on one host or several: a delivery is
leased to one of them at a time (FLASK_DISPATCH_LEASE_SECONDS), renewed by a
thread of the holder's own every quarter of a lease while it lives, and never
sent when less of the lease is left than an attempt may take (an attempt is
cut at FLASK_WEBHOOK_TIMEOUT_SECONDS, however its receiver drips). The holder
counts its lease from a clock read before the database's, so it never thinks
it holds more than it does; claims are transactions. So nothing is sent twice
while no process dies. After a SIGKILL, what the dead one held is sent again once its lease runs out, with
the same webhook-id: at least once, never lost. On SIGTERM (or Ctrl-C) it
stops taking work, waits for what is in flight for at most
FLASK_DISPATCH_GRACE_SECONDS, gives back the leases of the rest, and exits 0.
"""

import contextlib
import json
import logging
import os
import queue
import random
import signal
import socket
import threading
import time
import uuid

import click
from flask import current_app
from flask.cli import with_appcontext

from content_publishing import logs, posts, sealing, timestamps
from content_publishing.notifications.sending import Notifier
from content_publishing.outbound import Guard, Sender, retry_delay
from content_publishing.publisher.loop import Publisher
from content_publishing.schemas import media_refs
from content_publishing.store import outbox
from content_publishing.store import sealed as sealed_store
from content_publishing.store.db import dispose_db, needs_database, transaction
from content_publishing.webhooks import rules as webhook_rules
from content_publishing.webhooks.delivery import deliver

log = logging.getLogger("dispatcher")
CALLBACK_PATH = "/functions/v1/make-post-callback"
PUSH_BATCH = 50  # due posts handed over per round: small, so that sending starts at once
# Deliveries leased per sending thread: one being sent, the others waiting for
# it, so that no thread waits for the loop's next commit. A delivery that
# waited too long for its lease is given back unsent (_lease_too_short).
IN_FLIGHT = 4
LEASE_MARGIN = 2  # seconds kept between the end of an attempt and the end of its lease
PURGE_INTERVAL = 3600  # seconds between two purges of the delivery log
GIVE_BACK = "give back"  # a result that is not an attempt: return the lease unused


class Unsendable(str):
    """A result that is not an attempt: the delivery can never be sent as it
    is (its endpoint's secret cannot be opened), so it fails, saying why."""


class Dispatcher:
    def __init__(self, app, name=None):
        self.app = app
        self.config = app.config
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.stopping = threading.Event()
        self.finished = threading.Event()
        self.tasks = queue.Queue()
        self.results = queue.Queue()
        self.held = {}  # delivery id -> time.monotonic() at which its lease ends
        self.lock = threading.Lock()
        self.sender = Sender(
            self.config["WEBHOOK_TIMEOUT_SECONDS"],
            Guard.of(self.config),
            pool_size=self.config["DISPATCH_WORKERS"],
        )
        self.schedule = self.config["WEBHOOK_RETRY_SCHEDULE"]
        self.secrets = {}  # sealed -> plain, so that each secret is decrypted once
        self.next_purge = None  # time.monotonic() of the next purge; None: the first round
        self.purged_rows = self.purged_batches = 0  # of the purge under way
        self.delivered = 0
        self.next_due = None  # scheduled_at of the next post to push, when due within a poll
        self.publisher = Publisher.of(app, self.name, self.stopping)  # the service's own posts
        self.notifier = Notifier(app, self.name, self.stopping, self.sender)  # email and chat

    # --- the loop -----------------------------------------------------------------------

    def run(self, seconds=None):
        """Until SIGTERM/SIGINT (or `seconds`); returns the exit status."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.stopping.set())
        for i in range(self.config["DISPATCH_WORKERS"]):
            threading.Thread(target=self._work, daemon=True, name=f"send-{i}").start()
        threading.Thread(target=self._keep, daemon=True, name="keep-leases").start()
        if self.publisher is not None:
            self.publisher.start()
        self.notifier.start()
        log.info("dispatcher %s started", self.name)
        deadline = None if seconds is None else time.monotonic() + seconds
        while not self.stopping.is_set():
            busy = self._tick()
            if deadline is not None and time.monotonic() >= deadline:
                self.stopping.set()  # as SIGTERM does: the threads take no more work
                break
            if not busy:
                self._wait(self._until_next())
        return self._shut_down()

    def _wait(self, seconds):
        """Until a result comes back (to record it at once), SIGTERM, or `seconds`."""
        with contextlib.suppress(queue.Empty):
            self.results.put(self.results.get(timeout=seconds))

    def _until_next(self):
        """Seconds to the next round: the poll, or less when a post falls due
        before it, so that its push starts at its scheduled_at."""
        poll = self.config["DISPATCH_POLL_SECONDS"]
        if self.next_due is None:
            return poll
        due = timestamps.parse(self.next_due) - timestamps.now()
        return min(poll, max(due.total_seconds(), 0.0))

    def _tick(self):
        """One round; True when it found work (so the next one comes at once).

        One read finds what there is to do; then one transaction records what
        the senders finished, pushes due posts, fails handoffs that ran out
        and leases ready deliveries (those just pushed among them), which go
        to the senders once it has committed: one commit a round, however
        much it did."""
        try:
            with self.app.app_context():
                media_refs.PUBLIC_URL.set(self.config["PUBLIC_URL"])  # the events' media URLs
                done = self._finished()
                started = time.monotonic()  # before the database's clock: see lease()
                now = timestamps.now_text()
                poll = self.config["DISPATCH_POLL_SECONDS"]
                found = outbox.waiting(now, timestamps.later(now, poll))
                self.next_due = found["next_due"]
                room = self._room(done)
                leasing = room > 0 and bool(found["ready"] or found["pushable"])
                worked = 0
                if done or found["pushable"] or found["expired"] or leasing:
                    worked = self._round(done, found, room if leasing else 0, started, now)
                purged = self._purge_now_and_then()
            return bool(worked or purged)
        except Exception:
            log.exception("dispatcher round failed; trying again")
            self.stopping.wait(1)
            return False

    def _round(self, done, found, room, started, now):
        """The round's transaction; how many things it did (0: none, such as
        due posts another dispatcher is pushing)."""
        pushed = settled = 0
        try:
            with transaction():
                self._record(done, now)
                if found["pushable"]:
                    pushed = self._push_due(now)
                if found["expired"]:
                    settled = posts.settle_all(now, self.config["SCHEDULE_MIN_LEAD_SECONDS"])
                leased = self._lease(room, now) if room else []
        except Exception:
            for result in done:  # recorded next round; the leases are still ours
                self.results.put(result)
            raise
        lease = self.config["DISPATCH_LEASE_SECONDS"]
        with self.lock:
            for delivery, _, _ in done:
                self.held.pop(delivery["id"], None)
            self.held.update((d["id"], started + lease) for d in leased)
        for delivery in leased:
            self.tasks.put(delivery)
        return len(done) + pushed + settled + len(leased)

    def _room(self, done):
        """How many more deliveries to lease: IN_FLIGHT per sending thread,
        so that a thread finds the next one waiting while the loop commits."""
        with self.lock:
            held = len(self.held.keys() - {delivery["id"] for delivery, _, _ in done})
        return self.config["DISPATCH_WORKERS"] * IN_FLIGHT - held

    def _push_due(self, now):
        """Due posts of workspaces with an enabled post.due endpoint, handed to it
        with their post.due events (inside the round's transaction)."""
        handoff = posts.Handoff(
            callback_url=self.config["PUBLIC_URL"].rstrip("/") + CALLBACK_PATH,
            lease_seconds=self.config["HANDOFF_LEASE_SECONDS"],
            linkedin_version=self.config["LINKEDIN_VERSION"],
            linkedin_api_base=self.config["LINKEDIN_API_BASE"],
            public_url=self.config["PUBLIC_URL"],
        )
        return posts.push_due(
            now,
            PUSH_BATCH,
            self.config["HANDOFF_MAX_DELAY_SECONDS"],
            handoff,
            self.config["SCHEDULE_MIN_LEAD_SECONDS"],
        )

    def _lease(self, room, now):
        """Up to `room` ready deliveries, leased until now + the lease (inside
        the round's transaction). Its holder counts the lease from a clock
        read before `now`, so that it never thinks it holds more than it does."""
        until = timestamps.later(now, self.config["DISPATCH_LEASE_SECONDS"])
        return outbox.lease_ready(self.name, now, until, room)

    def _keep(self):
        """Renew the leases this dispatcher holds every quarter of a lease, in
        a thread of its own, so that a slow round of the loop cannot let
        them run out while an attempt is under way."""
        lease = self.config["DISPATCH_LEASE_SECONDS"]
        while not self.finished.wait(lease / 4):
            try:
                self.renew()
            except Exception:
                log.exception("renewing leases failed; trying again")

    def renew(self):
        with self.lock:
            if not self.held:
                return
        lease = self.config["DISPATCH_LEASE_SECONDS"]
        started = time.monotonic()
        now = timestamps.now_text()
        with self.app.app_context(), transaction():
            renewed = outbox.renew(self.name, now, timestamps.later(now, lease))
        with self.lock:
            for delivery_id in renewed & self.held.keys():
                self.held[delivery_id] = started + lease

    def record(self):
        """Every result the senders handed back, recorded in one transaction
        of its own (on the way out)."""
        done = self._finished()
        if not done:
            return 0
        try:
            with transaction():
                self._record(done, timestamps.now_text())
        except Exception:
            for result in done:  # recorded next round; the leases are still ours
                self.results.put(result)
            raise
        with self.lock:
            for delivery, _, _ in done:
                self.held.pop(delivery["id"], None)
        return len(done)

    def _finished(self):
        """The results the senders handed back since the last round."""
        done = []
        while True:
            try:
                done.append(self.results.get_nowait())
            except queue.Empty:
                return done

    def _purge_now_and_then(self):
        """Forget the delivery log older than FLASK_DELIVERY_LOG_DAYS: in the
        first round after start (time.monotonic() counts from boot, so no
        fixed origin can stand for "never"), then hourly. One batch a round,
        each in a transaction of its own, so that a big backlog neither holds
        the write lock for long nor keeps due posts waiting; returns the rows
        deleted (while there are, the next round comes at once)."""
        if self.next_purge is not None and time.monotonic() < self.next_purge:
            return 0
        days = self.config["DELIVERY_LOG_DAYS"]
        before = timestamps.later(timestamps.now_text(), -86400 * days)
        found = outbox.purgeable(before, outbox.PURGE_BATCH)  # a read: no lock yet
        deleted = 0 if found else self.notifier.purge(before)  # the sent notifications last
        if found:
            with transaction():
                deleted = outbox.purge(*found, before)
        if deleted:
            self.purged_rows += deleted
            self.purged_batches += 1
            return deleted
        self.next_purge = time.monotonic() + PURGE_INTERVAL
        if self.purged_rows:
            log.info(
                "delivery log: forgot %d rows older than %g days, in %d batches",
                self.purged_rows,
                days,
                self.purged_batches,
            )
        self.purged_rows = self.purged_batches = 0
        return 0

    def _shut_down(self):
        grace = time.monotonic() + self.config["DISPATCH_GRACE_SECONDS"]
        if self.publisher is not None:  # its posts in flight, then the deliveries
            self.publisher.wait(self.config["DISPATCH_GRACE_SECONDS"])
        self.notifier.wait(max(grace - time.monotonic(), 0))  # and the notifications
        with self.app.app_context():
            while time.monotonic() < grace:
                self.record()
                with self.lock:
                    if not self.held:
                        break
                time.sleep(0.05)
            self.record()
            self.finished.set()
            with self.lock:
                left = len(self.held)
                self.held.clear()
            with transaction():
                outbox.release(self.name)
            dispose_db()
        log.info(
            "dispatcher %s stopped (%d delivered; %d given back%s)",
            self.name,
            self.delivered,
            left,
            f"; {self.publisher.published} published by the service itself"
            if self.publisher
            else "",
        )
        return 0

    # --- one delivery: sent by a thread, recorded by the loop ----------------------------

    def _work(self):
        while True:
            delivery = self.tasks.get()
            if self.stopping.is_set():
                continue  # its lease is given back on the way out
            try:
                if self._lease_too_short(delivery):
                    self.results.put((delivery, None, GIVE_BACK))
                    continue
                now = timestamps.now_text()
                reason = self._reason_not_to_send(delivery, now)
                attempt = None
                if reason is None:
                    try:
                        secrets = [
                            self._unseal(s) for s in webhook_rules.signing_secrets(delivery, now)
                        ]
                        headers = webhook_rules.delivery_headers(delivery, self._unseal)
                    except ValueError as error:  # the secrets key cannot open them
                        reason = Unsendable(
                            f"not sent: {error}; rotate the endpoint's secret (PATCH "
                            "/webhooks-item/{id} with rotate_secret: true)"
                        )
                    else:
                        attempt = deliver(
                            self.sender,
                            delivery["url"],
                            delivery["event_id"],
                            delivery["body"],
                            secrets,
                            headers,
                        )
                self.results.put((delivery, attempt, reason))
            except Exception:
                log.exception("delivery %s failed; it will be tried again", delivery["id"])
                with self.lock:
                    self.held.pop(delivery["id"], None)

    def _lease_too_short(self, delivery):
        """Whether the lease could run out before an attempt starting now
        ends: another dispatcher could then send it too."""
        with self.lock:
            left = self.held.get(delivery["id"], 0) - time.monotonic()
        return left < self.config["WEBHOOK_TIMEOUT_SECONDS"] + LEASE_MARGIN

    def _reason_not_to_send(self, delivery, now):
        if delivery["url"] is None:
            return "the endpoint was deleted"
        if not delivery["enabled"]:
            return "the endpoint is disabled"
        if delivery["event_type"] == "post.due":
            if delivery["post_status"] is None:
                return "the post was deleted"
            if (
                delivery["handoff_id"] != _handoff_id(delivery)
                or delivery["handoff_expires_at"] <= now
            ):
                return "the handoff ended before this attempt: the post is no longer in it"
        return None

    def _unseal(self, sealed):
        if sealed not in self.secrets:
            with self.app.app_context():
                self.secrets[sealed] = sealing.unseal(sealed)
        return self.secrets[sealed]

    def _record(self, done, now):
        """Write the results of `done` (inside a transaction): the attempts
        that got their 2xx in a few statements for all of them, the rest one
        by one."""
        given_back = [delivery["id"] for delivery, _, reason in done if reason is GIVE_BACK]
        if given_back:
            outbox.release(self.name, given_back)
        delivered = {}
        for delivery, attempt, reason in done:
            if reason is GIVE_BACK:
                continue
            if isinstance(reason, Unsendable):
                outbox.fail(delivery["id"], self.name, str(reason), now)
                if delivery["event_type"] == "post.due":
                    posts.note_delivery_error(delivery["post_id"], _handoff_id(delivery), reason)
                continue
            if reason is not None:
                outbox.cancel(delivery["id"], self.name, reason, now)
                continue
            row = {**attempt, "attempted_at": timestamps.to_text(attempt["attempted_at"])}
            if attempt["outcome"] == "delivered":
                delivered[delivery["id"]] = (delivery, row)
            else:
                self._record_failed(delivery, attempt, row, now)
        rows = {delivery_id: row for delivery_id, (_, row) in delivered.items()}
        recorded = outbox.record_delivered(self.name, list(delivered), rows, now)
        handoffs = [  # a delivery whose lease ran out is another dispatcher's now
            (delivery["post_id"], _handoff_id(delivery))
            for delivery_id, (delivery, _) in delivered.items()
            if delivery_id in recorded and delivery["event_type"] == "post.due"
        ]
        if handoffs:
            lease = timestamps.later(now, self.config["HANDOFF_LEASE_SECONDS"])
            posts.acknowledge_all(handoffs, now, lease)
        self.delivered += len(recorded)

    def _record_failed(self, delivery, attempt, row, now):
        outcome = self._next_step(delivery, attempt, now)
        if not outbox.record_attempt(delivery["id"], self.name, row, outcome):
            return  # the lease ran out and another dispatcher has it now
        if attempt["status_code"] == 410:
            reason = "the receiver answered 410 Gone"
            webhook_rules.disable_gone(delivery["endpoint_id"], reason, now)
        if delivery["event_type"] == "post.due":
            posts.note_delivery_error(delivery["post_id"], _handoff_id(delivery), attempt["error"])

    def _next_step(self, delivery, attempt, now):
        if attempt["outcome"] == "delivered":
            return {"outcome": "delivered", "next_attempt_at": None, "last_error": None, "now": now}
        made = delivery["attempt_count"] + 1
        if attempt["status_code"] == 410 or made >= len(self.schedule):
            why = (
                "the receiver answered 410 Gone"
                if attempt["status_code"] == 410
                else f"gave up after {made} attempts"
            )
            return {
                "outcome": "failed",
                "next_attempt_at": None,
                "last_error": f"{attempt['error']}; {why}",
                "now": now,
            }
        delay = self.schedule[made] * (1 + random.uniform(0, 0.1))
        if attempt["status_code"] in (429, 503):
            delay = retry_delay(attempt["retry_after"], delay)
        return {
            "outcome": "pending",
            "next_attempt_at": timestamps.later(now, delay),
            "last_error": attempt["error"],
            "now": now,
        }


def _handoff_id(delivery):
    return json.loads(delivery["body"])["data"]["handoff_id"]


@click.command("dispatch")
@click.option("--name", help="This dispatcher's name in the leases (default: host:pid:random).")
@click.option("--seconds", type=float, help="Stop after this long (default: run until SIGTERM).")
@with_appcontext
@needs_database
def dispatch_command(name, seconds):
    """Push due posts to post.due endpoints and deliver webhook events, until SIGTERM."""
    app = current_app._get_current_object()
    problem = sealing.check_key(
        app.config, app.instance_path, lambda: sealed_store.any_stored(app.config)
    )
    if problem:
        raise click.ClickException(problem)
    logs.configure(app.config["LOG_FORMAT"])  # the service's format (FLASK_LOG_FORMAT)
    dispose_db()  # the loop and each thread open their own connections
    raise SystemExit(Dispatcher(app, name).run(seconds))


def init_app(app):
    app.cli.add_command(dispatch_command)
