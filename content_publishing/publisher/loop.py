"""The service's own publisher: it publishes the due posts of channels whose
`publisher` is a network it speaks to (network.py), with the channel's
connection. It runs in the dispatcher process (dispatcher.py starts it), in
threads of its own, unless network.settings says it is off.

Each round (FLASK_DISPATCH_POLL_SECONDS) takes, in one transaction, as many
due posts as it has idle threads for, exactly as a claim takes them
(posts/own_handoffs.py: Publishing, a lease of FLASK_HANDOFF_LEASE_SECONDS,
history `claimed` with no key), and settles its own handoffs whose lease ran
out: one never marked sending is given back, one marked sending has an
unknown outcome and is checked at the network (run.py: `check`). A thread
then runs each post (run.py: `publish`). While every thread is busy the
loop waits for a quarter of them to come free (or a poll's time), not a
whole poll: a burst of due posts is taken as fast as the threads publish it,
a quarter of the threads a transaction (bench/publisher.py times it).

With the threads publishing leaves idle, each round also reads the figures
of the posts whose stats collection is due (1 hour, 24 hours, 7 days and 30
days after they went out: analytics/collection.py, collect.py); when none
is due that costs one probe of an index.

Every minute it also looks after the tokens (tokens.py): one that ends
within 7 days is refreshed ahead when it can be; else the connection
becomes `expiring` (channel.expiring, once), and past its end `expired`.

A first comment is sent once its post is Published, marked sending first;
one a stopped publisher left behind (never marked, due longer than a run
takes) is sent by a later round, once; one marked but never answered is
kept as refused (LinkedIn may have it).

Several dispatchers publish each post once: taking a post is the claim's
transaction, and marking it sending holds only for the current handoff,
once (store/posts.py: mark_sending).
"""

import logging
import queue
import threading
import time
from collections import namedtuple

from content_publishing import timestamps
from content_publishing.analytics import collection
from content_publishing.channels import connections
from content_publishing.outbound import Guard, Sender
from content_publishing.posts import own_handoffs, publish_plan
from content_publishing.publisher import collect, run
from content_publishing.publisher.commits import GroupCommit
from content_publishing.publisher.network import network_of, networks, settings
from content_publishing.publisher.tokens import Tokens
from content_publishing.schemas import media_refs
from content_publishing.store import channels as channel_store
from content_publishing.store.db import dispose_db, transaction

log = logging.getLogger("publisher")
UPKEEP_INTERVAL = 60  # seconds between two looks at the tokens
FULL = "full"  # what a round says when every thread was busy
Prepared = namedtuple("Prepared", "post reach plan")  # a taken post and what its run reads


class Publisher:
    """Its threads: one loop that takes work, `workers` (network.settings)
    that publish; `stopping` is the dispatcher's."""

    def __init__(self, app, name, stopping):
        self.app = app
        self.name = name
        self.config = app.config
        self.stopping = stopping
        self.settings = settings(app.config)
        self.networks = networks(app.config)
        self.tokens = Tokens(self.networks)
        self.fetch = Sender(  # media named by URL, from public addresses only
            self.settings.timeout_seconds, Guard.for_media(app.config), pool_size=4
        )
        limit = max(self.config["MEDIA_MAX_BYTES"], self.config["MEDIA_MAX_DOCUMENT_BYTES"])
        self.read = run.media_reader(self.fetch.fetch, limit)
        self.commits = GroupCommit()
        self.options = run.Options(
            self.config["SCHEDULE_MIN_LEAD_SECONDS"],
            self.settings.timeout_seconds,
            self.settings.check_delay_seconds,
            self.commits,
        )
        self.tasks = queue.Queue()
        self.lock = threading.Lock()
        self.room = threading.Condition(self.lock)  # notified as a thread comes free
        self.in_flight = 0
        self.idle = threading.Event()
        self.idle.set()
        self.next_upkeep = 0.0
        self.published = 0

    @classmethod
    def of(cls, app, name, stopping):
        """The publisher of the dispatcher `name`, or None where the service
        publishes nothing itself."""
        if not settings(app.config).enabled:
            return None
        return cls(app, name, stopping)

    @property
    def workers(self):
        return self.settings.workers

    def start(self):
        for i in range(self.workers):
            threading.Thread(target=self._work, daemon=True, name=f"publish-{i}").start()
        threading.Thread(target=self._loop, daemon=True, name="publisher").start()
        log.info("publishing to %s itself, %d at a time", ", ".join(self.networks), self.workers)

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
                        self.tokens.upkeep(channel_store.get_channel)
            except Exception:
                log.exception("publisher round failed; trying again")
                busy = False
                self.stopping.wait(1)
            if busy == FULL:
                self._wait_for_room(self.config["DISPATCH_POLL_SECONDS"])
            elif not busy:
                self.stopping.wait(self.config["DISPATCH_POLL_SECONDS"])
        with self.app.app_context():
            dispose_db()

    def _wait_for_room(self, seconds):
        """Until a quarter of the threads are free (at least one), or `seconds`."""
        wanted = max(1, self.workers // 4)
        with self.room:
            self.room.wait_for(
                lambda: self.workers - self.in_flight >= wanted or self.stopping.is_set(),
                timeout=seconds,
            )

    def round(self):
        """Take what there is room for, posts to publish first, then due
        stats collections; True when it found work, FULL when every thread
        was busy."""
        with self.lock:
            free = self.workers - self.in_flight
        now = timestamps.now_text()
        if free <= 0:
            return FULL
        publishing = own_handoffs.any_work(now, self._comment_grace())
        collecting = collection.any_due(now)
        if not (publishing or collecting):
            return False
        lead = self.options.lead_seconds
        checks = taken = comments = collections = []
        with transaction():
            if publishing:
                checks = own_handoffs.recover(now, free, self._check_seconds(), lead)
                taken = own_handoffs.take(
                    now, free - len(checks), self.config["HANDOFF_LEASE_SECONDS"], lead, self.name
                )
                room = free - len(checks) - len(taken)
                if room > 0:
                    comments = own_handoffs.comments_left(now, room, self._comment_grace(), lead)
            room = free - len(checks) - len(taken) - len(comments)
            if collecting and room > 0:
                collections = collection.take(now, room, self._check_seconds())
        for post in checks:
            self._submit(self.check, post)
        for post in taken:
            self._submit(self.publish, self._prepared(post))
        for post in comments:
            self._submit(self.resume_comment, post)
        for row in collections:
            self._submit(self.collect, row)
        return bool(checks or taken or comments or collections)

    def _check_seconds(self):
        """A check's lease: a refresh, a read and a retry, with room."""
        return 3 * self.options.timeout_seconds + 5

    def _comment_grace(self):
        """How long a run has to send a first comment once its post is
        Published (a refresh and the comment, with room): a comment due
        longer, never marked sending, was left behind by a stopped publisher."""
        return 2 * self.options.timeout_seconds + 5

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
                        "was not sent, checked at the network if it was)",
                        getattr(post, "post", post)["id"],
                    )
            finally:
                with self.lock:
                    self.in_flight -= 1
                    self.room.notify()
                    if self.in_flight == 0:
                        self.idle.set()

    # --- the jobs ----------------------------------------------------------------------------

    def _prepared(self, post):
        """A taken post with what its run reads (its channel and connection,
        its plan), read here by the loop's thread: a thread that publishes a
        post without media then never opens a connection to the database of
        its own (on PostgreSQL, a connection a thread), since its writes
        are commits.py's. A post whose reads fail goes to its thread
        without them, which reads them again (and logs what failed)."""
        try:
            reach = connections.reach(post["workspace_id"], post)
            return Prepared(post, reach, self._plan(post))
        except Exception:
            return Prepared(post, None, None)

    def publish(self, prepared):
        """Run one taken post (run.py), unless the dispatcher is stopping:
        taken, not sent, it goes back for another round (or dispatcher)."""
        post = prepared.post
        if self.stopping.is_set():
            with transaction():
                own_handoffs.give_back(
                    post["workspace_id"],
                    post["id"],
                    post["handoff_id"],
                    None,
                    "the dispatcher stopped",
                    timestamps.now_text(),
                    self.options.lead_seconds,
                )
            return None
        reach = prepared.reach or connections.reach(post["workspace_id"], post)
        network = self._network(reach.channel)
        plan = prepared.plan or self._plan(post)
        done = run.publish(post, reach, network, self.tokens.session, self.read, plan, self.options)
        return self._count(done)

    def check(self, post):
        """Settle a handoff whose outcome is unknown (run.py); a post found
        there has its first comment sent by a later round (comments_left)."""
        reach = connections.reach(post["workspace_id"], post)
        network = self._network(reach.channel)
        return self._count(run.check(post, reach, network, self.tokens.session, self.options))

    def resume_comment(self, post):
        """A first comment left behind (own_handoffs.comments_left), sent once."""
        reach = connections.reach(post["workspace_id"], post)
        network = self._network(reach.channel)
        plan = self._plan(post)
        return run.resume_comment(post, reach, network, self.tokens.session, plan, self.options)

    def collect(self, row):
        """One due stats collection (collect.py)."""
        return collect.collect(row, connections.reach, self._network, self.tokens.session)

    def _count(self, done):
        if isinstance(done, run.Published):
            with self.lock:
                self.published += 1
        return done

    def _network(self, channel):
        return self.networks[network_of(channel)]

    def _plan(self, post):
        """The post's publish plan, as an automation would be handed it (the
        channel's author, the library's media at FLASK_PUBLIC_URL)."""
        target = publish_plan.Target(
            self.settings.plan_version, self.settings.plan_api_base, self.config["PUBLIC_URL"]
        )
        return publish_plan.requests_for(post["workspace_id"], [post], target)[post["id"]]
