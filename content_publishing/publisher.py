"""The service's own publisher: it publishes the due posts of channels whose
`publisher` is `linkedin` itself, with the channel's LinkedIn connection.
It runs in the dispatcher process (dispatcher.py starts it), in threads of
its own, unless FLASK_LINKEDIN_PUBLISH=0 or no LinkedIn app is set up.

Each round (FLASK_DISPATCH_POLL_SECONDS) takes, in one transaction, as many
due posts as it has idle threads for, exactly as a claim takes them
(posts/direct.py: Publishing, a lease of FLASK_HANDOFF_LEASE_SECONDS, history
`claimed` with no key), and settles its own handoffs whose lease ran out.
A thread then publishes each post:

1. the channel's connection must work (else Failed, saying so); an access
   token past its end is refreshed first;
2. the post's publish plan is built;
3. the handoff is marked `sending` in the database, with a lease of twice
   FLASK_LINKEDIN_TIMEOUT_SECONDS and 5 s, which outlasts the request; if
   that fails (the handoff moved on), nothing is sent;
4. the POST of the post itself:
   - 201: Published, linkedin_post_id from x-restli-id;
   - 401: nothing was created: one refresh, one retry; a refused refresh
     is "LinkedIn connection expired: reconnect the channel", and the
     connection `expired` (channel.disconnected);
   - 429, or LinkedIn never reached: nothing was created: back to
     Scheduled, not taken again before Retry-After (60 s without one);
   - another 4xx: Failed, with LinkedIn's message;
   - a 5xx, a timeout, a connection lost after sending: the outcome is
     unknown. The post is never sent again blind: it stays Publishing and
     is checked at LinkedIn after FLASK_LINKEDIN_CHECK_DELAY_SECONDS.

A handoff found `sending` when its lease ran out (a crash, a kill, a
timeout) is checked the same way: the author's newest posts at LinkedIn
are read (GET /rest/posts?q=author), and one with the same commentary made
since the handoff was marked settles it Published ("confirmed after an
unknown outcome"); none is Failed, saying the outcome was unknown and the
post was not found, for a person to decide. Reading them needs
r_organization_social (brand) or r_member_social (personal, granted only
to approved apps): without it the post is Failed at once, saying it could
not be checked.

With the threads publishing leaves idle, each round also reads the figures
of the posts whose stats collection is due (1 hour, 24 hours, 7 days and 30
days after they went out: analytics/collection.py, collect_run.py); when
none is due that costs one probe of an index.

Every minute it also looks after the tokens: one that ends within 7 days
is refreshed ahead when it can be; else the connection becomes `expiring`
(channel.expiring, once), and past its end `expired`.

Several dispatchers publish each post once: taking a post is the claim's
transaction, and marking it sending holds only for the current handoff,
once (store/posts.py: mark_sending).
"""

import logging
import queue
import threading
import time

from content_publishing import collect_run, connections, linkedin, publish_plan, timestamps
from content_publishing.analytics import collection
from content_publishing.linkedin_api import Api, LinkedInError, retry_delay
from content_publishing.planning.plan import channel_of
from content_publishing.posts import direct
from content_publishing.publish_run import (
    Expired,
    NothingPosted,
    Token,
    filled,
    run_after,
    upload_all,
)
from content_publishing.schemas import media_refs
from content_publishing.store import channels as channel_store
from content_publishing.store.db import dispose_db, transaction
from content_publishing.webhooks.sender import Guard, Sender

log = logging.getLogger("publisher")
UPKEEP_INTERVAL = 60  # seconds between two looks at the tokens
NOT_REACHED_RETRY = 60  # seconds before a post LinkedIn never got is taken again
CHECK_GIVE_UP = 86400  # seconds after sending past which an unknown outcome is not checked again
TIME_WINDOW = 300  # seconds before the sending mark a post found at LinkedIn may have been made


class Publisher:
    """Its threads: one loop that takes work, FLASK_LINKEDIN_PUBLISH_WORKERS
    that publish; `stopping` is the dispatcher's."""

    def __init__(self, app, name, stopping):
        self.app = app
        self.name = name
        self.config = app.config
        self.stopping = stopping
        self.api = Api(app.config)
        self.fetch = Sender(  # media named by URL, fetched under the webhooks' SSRF guard
            app.config["LINKEDIN_TIMEOUT_SECONDS"], Guard.of(app.config), pool_size=4
        )
        self.tasks = queue.Queue()
        self.lock = threading.Lock()
        self.in_flight = 0
        self.idle = threading.Event()
        self.idle.set()
        self.next_upkeep = 0.0
        self.published = 0

    @classmethod
    def of(cls, app, name, stopping):
        """The publisher of the dispatcher `name`, or None where the service
        publishes nothing itself."""
        config = app.config
        if not config["LINKEDIN_PUBLISH"] or not config["LINKEDIN_CLIENT_ID"]:
            return None
        return cls(app, name, stopping)

    @property
    def workers(self):
        return self.config["LINKEDIN_PUBLISH_WORKERS"]

    def start(self):
        for i in range(self.workers):
            threading.Thread(target=self._work, daemon=True, name=f"publish-{i}").start()
        threading.Thread(target=self._loop, daemon=True, name="publisher").start()
        log.info("publishing to LinkedIn itself, %d at a time", self.workers)

    def wait(self, seconds):
        """After `stopping`: let what is in flight finish, for at most `seconds`."""
        return self.idle.wait(seconds)

    # --- the loop ------------------------------------------------------------------------

    def _loop(self):
        while not self.stopping.is_set():
            try:
                with self.app.app_context():
                    media_refs.PUBLIC_URL.set(self.config["PUBLIC_URL"])  # events' media URLs
                    busy = self.round()
                    if time.monotonic() >= self.next_upkeep:
                        self.next_upkeep = time.monotonic() + UPKEEP_INTERVAL
                        self.upkeep()
            except Exception:
                log.exception("publisher round failed; trying again")
                busy = False
                self.stopping.wait(1)
            if not busy:
                self.stopping.wait(self.config["DISPATCH_POLL_SECONDS"])
        with self.app.app_context():
            dispose_db()

    def round(self):
        """Take what there is room for, posts to publish first, then due
        stats collections; True when it found work."""
        with self.lock:
            free = self.workers - self.in_flight
        now = timestamps.now_text()
        if free <= 0:
            return False
        publishing = direct.any_work(now)
        collecting = collection.any_due(now)
        if not (publishing or collecting):
            return False
        lead = self.config["SCHEDULE_MIN_LEAD_SECONDS"]
        checks = taken = collections = []
        with transaction():
            if publishing:
                checks = direct.recover(now, free, self._check_seconds(), lead)
                taken = direct.take(
                    now, free - len(checks), self.config["HANDOFF_LEASE_SECONDS"], lead, self.name
                )
            room = free - len(checks) - len(taken)
            if collecting and room > 0:
                collections = collection.take(now, room, self._check_seconds())
        for post in checks:
            self._submit(self.check, post)
        for post in taken:
            self._submit(self.publish, post)
        for row in collections:
            self._submit(self.collect, row)
        return bool(checks or taken or collections)

    def _check_seconds(self):
        """A check's lease: a refresh, a read and a retry, with room."""
        return 3 * self.config["LINKEDIN_TIMEOUT_SECONDS"] + 5

    def _submit(self, job, post):
        with self.lock:
            self.in_flight += 1
            self.idle.clear()
        self.tasks.put((job, post))

    def _work(self):
        while True:
            job, post = self.tasks.get()
            try:
                with self.app.app_context():
                    media_refs.PUBLIC_URL.set(self.config["PUBLIC_URL"])
                    job(post)
            except Exception:
                if job == self.collect:
                    log.exception(
                        "collecting the figures of post %s failed; tried again when its "
                        "lease runs out",
                        post["post_id"],
                    )
                else:
                    log.exception(
                        "publishing post %s failed; its lease settles it (given back if it "
                        "was not sent, checked at LinkedIn if it was)",
                        post["id"],
                    )
            finally:
                with self.lock:
                    self.in_flight -= 1
                    if self.in_flight == 0:
                        self.idle.set()

    # --- one post --------------------------------------------------------------------------

    def publish(self, post):
        now = timestamps.now_text()
        workspace_id, handoff_id = post["workspace_id"], post["handoff_id"]
        if self.stopping.is_set():  # taken, not sent: another round (or dispatcher) takes it
            with transaction():
                direct.give_back(
                    workspace_id,
                    post["id"],
                    handoff_id,
                    None,
                    "the dispatcher stopped",
                    now,
                    self.lead,
                )
            return None
        channel = channel_store.get_channel(workspace_id, channel_of(post))
        connection = connections.for_channel(workspace_id, channel_of(post))
        problem = _unpublishable(channel, connection, now)
        if problem:
            return self._fail(post, problem)
        value = self.fresh_token(workspace_id, channel["id"], connection)
        if value is None:
            return self._fail(post, connections.EXPIRED_ERROR, expired=channel["id"])
        token = Token(self, workspace_id, channel["id"], connection, value)
        plan = self._plan(post)
        try:
            refs = upload_all(self.api, token, plan, self.fetch.fetch, self._fetch_limit())
        except Expired:
            return self._fail(post, connections.EXPIRED_ERROR, expired=channel["id"])
        except NothingPosted as stopped:
            if stopped.give_back:
                return self._give_back(post, stopped.message, stopped.retry_after)
            return self._fail(post, stopped.message)
        step = filled({k: plan[k] for k in ("method", "url", "headers", "body")}, refs)
        now = timestamps.now_text()
        until = timestamps.later(now, 2 * self.config["LINKEDIN_TIMEOUT_SECONDS"] + 5)
        with transaction():
            may_send = direct.sending(post["id"], handoff_id, now, until)
        if not may_send:
            log.info("post %s moved on before it was sent; not sent", post["id"])
            return None
        return self._send(post, channel, token, step, plan)

    def collect(self, row):
        """One due stats collection (collect_run.py)."""
        return collect_run.collect(self, row)

    @property
    def lead(self):
        return self.config["SCHEDULE_MIN_LEAD_SECONDS"]

    def _fetch_limit(self):
        return max(self.config["MEDIA_MAX_BYTES"], self.config["MEDIA_MAX_DOCUMENT_BYTES"])

    def _plan(self, post):
        """The post's publish plan, as an automation would be handed it (the
        channel's author, the library's media at FLASK_PUBLIC_URL)."""
        target = publish_plan.Target(
            self.config["LINKEDIN_VERSION"],
            self.config["LINKEDIN_API_BASE"],
            self.config["PUBLIC_URL"],
        )
        return publish_plan.requests_for(post["workspace_id"], [post], target)[post["id"]]

    def _send(self, post, channel, token, step, plan):
        """The POST of the post itself, once (the handoff is marked sending)."""
        try:
            _, headers, _ = token.use(lambda value: self.api.send(value, step))
        except Expired:
            return self._fail(post, connections.EXPIRED_ERROR, expired=channel["id"])
        except LinkedInError as error:
            return self._refused(post, error)
        urn = headers.get("x-restli-id")
        if not urn:
            return self._unknown(post, "LinkedIn answered 201 without the post's x-restli-id")
        if self._published(post, urn) and plan["after"]:
            outcome = run_after(self.api, token, plan, urn)
            if outcome:
                with transaction():
                    direct.commented(
                        post["workspace_id"], post["id"], outcome, timestamps.now_text(), self.lead
                    )
        return None

    def _published(self, post, urn, confirmed=False):
        with transaction():
            done = direct.published(
                post["workspace_id"],
                post["id"],
                post["handoff_id"],
                urn,
                timestamps.now_text(),
                self.lead,
                confirmed=confirmed,
            )
        if done is None:
            log.warning("post %s was published at LinkedIn as %s but had moved on", post["id"], urn)
            return False
        self.published += 1
        return True

    def _give_back(self, post, why, retry_after):
        """Back to Scheduled: nothing was created, and LinkedIn asked to wait
        (Retry-After) or could not be reached (NOT_REACHED_RETRY)."""
        now = timestamps.now_text()
        wait = retry_delay(retry_after, NOT_REACHED_RETRY)
        with transaction():
            direct.give_back(
                post["workspace_id"],
                post["id"],
                post["handoff_id"],
                timestamps.later(now, wait),
                f"{why}; tried again after {wait:g} s",
                now,
                self.lead,
            )

    def _refused(self, post, error):
        """What LinkedIn's refusal of the post (or its silence) makes of it."""
        if error.status == 429 or not error.sent:
            return self._give_back(post, error.message, error.retry_after)
        if error.unknown_outcome:
            return self._unknown(post, error.message)
        return self._fail(post, f"LinkedIn refused the post. {error.message}")

    def _unknown(self, post, why):
        now = timestamps.now_text()
        check_at = timestamps.later(now, self.config["LINKEDIN_CHECK_DELAY_SECONDS"])
        with transaction():
            direct.unknown(post["id"], post["handoff_id"], why, check_at, now)
        log.warning(
            "post %s: outcome at LinkedIn unknown (%s); checking at %s", post["id"], why, check_at
        )

    def _fail(self, post, error, expired=None, detail=None):
        now = timestamps.now_text()
        with transaction():
            if expired is not None:
                connections.expire(post["workspace_id"], expired, now)
            direct.failed(
                post["workspace_id"], post["id"], post["handoff_id"], error, now, self.lead, detail
            )

    # --- tokens ------------------------------------------------------------------------------

    def fresh_token(self, workspace_id, channel_id, connection):
        """The access token, refreshed first if it has ended; None if it
        cannot be had."""
        now = timestamps.now_text()
        if connection["access_token"] and connection["access_expires_at"] > now:
            return connection["access_token"]
        return self.refreshed_token(workspace_id, channel_id, connection)

    def refreshed_token(self, workspace_id, channel_id, connection):
        """A new access token from the refresh token, kept; None if there is
        none or LinkedIn refused it."""
        if not connections.can_refresh(connection, timestamps.now_text()):
            return None
        try:
            tokens = self.api.refresh(connection["refresh_token"])
        except LinkedInError as error:
            log.warning(
                "LinkedIn refused to refresh channel %s's token: %s", channel_id, error.message
            )
            return None
        with transaction():
            connections.refreshed(workspace_id, channel_id, tokens, timestamps.now_text())
        return tokens.access_token

    def upkeep(self):
        """Refresh ahead the tokens that end within 7 days, where a refresh
        helps; mark the others expiring or expired."""
        now = timestamps.now_text()
        for workspace_id, channel_id in connections.needing_upkeep(now):
            connection = connections.for_channel(workspace_id, channel_id)
            if connection is None:
                continue
            if connections.can_refresh(connection, now):
                try:
                    tokens = self.api.refresh(connection["refresh_token"])
                except LinkedInError as error:
                    if error.status is None or error.status >= 500:
                        continue  # LinkedIn is away: next time
                    log.warning(
                        "LinkedIn refused to refresh channel %s's token: %s",
                        channel_id,
                        error.message,
                    )
                    with transaction():
                        connections.expire(workspace_id, channel_id, timestamps.now_text())
                    continue
                with transaction():
                    connections.refreshed(workspace_id, channel_id, tokens, timestamps.now_text())
            else:
                with transaction():
                    connections.settle(workspace_id, channel_id, timestamps.now_text())

    # --- an unknown outcome, checked ------------------------------------------------------------

    def check(self, post):
        """Settle a handoff that was sending when its outcome became unknown."""
        now = timestamps.now_text()
        why = post["handoff_error"] or "the publisher stopped while sending it"
        channel = channel_store.get_channel(post["workspace_id"], channel_of(post))
        connection = connections.for_channel(post["workspace_id"], channel_of(post))
        unchecked = f"The outcome of publishing at LinkedIn is unknown ({why}), and it could not be checked: "
        problem = _unpublishable(channel, connection, now)
        if problem:
            return self._fail(post, unchecked + problem, detail="unknown outcome, not checked")
        if not connections.can_read_posts(connection, channel["type"]):
            return self._fail(
                post,
                unchecked + "reading a member's own posts needs the r_member_social permission, "
                "which LinkedIn grants only to approved apps. Look at the profile on LinkedIn: "
                "retry the post if it is not there, or mark it Published if it is.",
                detail="unknown outcome, not checked",
            )
        token = self.fresh_token(post["workspace_id"], channel["id"], connection)
        if token is None:
            return self._fail(post, unchecked + connections.EXPIRED_ERROR, expired=channel["id"])
        try:
            found = self._find(token, channel["author_urn"], post)
        except LinkedInError as error:
            if error.status == 401:
                token = self.refreshed_token(post["workspace_id"], channel["id"], connection)
                found = self._find(token, channel["author_urn"], post) if token else None
            elif _too_late(post, now):
                return self._fail(
                    post, unchecked + error.message, detail="unknown outcome, not checked"
                )
            else:
                log.warning(
                    "post %s: could not check LinkedIn (%s); trying again",
                    post["id"],
                    error.message,
                )
                return None  # its lease runs out, and the next round checks again
        if found is not None:
            return self._published(post, found, confirmed=True)
        return self._fail(
            post,
            f"The outcome of publishing at LinkedIn was unknown ({why}), and the post is not "
            f"among the newest posts of {channel['author_urn']} on LinkedIn: it was most likely "
            "not published. Look on LinkedIn, then retry it, or mark it Published if it is "
            "there.",
            detail="unknown outcome, not found on LinkedIn",
        )

    def _find(self, token, author, post):
        """The URN of the author's post with this post's commentary, made
        since shortly before it was marked sending; None if there is none."""
        commentary = linkedin.escape(post["content"])
        since = timestamps.parse(post["handoff_sending_at"]).timestamp() - TIME_WINDOW
        for element in self.api.posts_by(token, author):
            made = element.get("createdAt") or element.get("publishedAt") or 0
            if element.get("commentary") == commentary and made / 1000 >= since:
                return element.get("id")
        return None


def _unpublishable(channel, connection, now):
    """Why the channel cannot be published now, or None."""
    if channel is None:
        return "The post's channel is not set up any more, so the service cannot publish it."
    current = connections.status(connection, now)
    if current == "expired":
        return connections.EXPIRED_ERROR
    if current not in connections.USABLE:
        return (
            f"The channel {channel['id']} is not connected to LinkedIn ({current}): connect it, "
            "or let your automation publish it."
        )
    if not channel["author_urn"]:
        return (
            f"The channel {channel['id']} has no LinkedIn page chosen: pick the page in the "
            "channel's settings, then retry the post."
        )
    return None


def _too_late(post, now):
    sent = timestamps.parse(post["handoff_sending_at"])
    return (timestamps.parse(now) - sent).total_seconds() > CHECK_GIVE_UP
