"""The publisher's threads' writes, committed together: a post's `sending`
mark and its outcome (run.py) each wait for a commit, and on SQLite with
FLASK_SQLITE_SYNCHRONOUS=FULL a commit is a disk flush (10 ms on a busy
machine), taken under the one write lock. Sixteen threads writing twice a
post each in a transaction of its own were held to about 50 posts/s by the
flushes alone, whatever the network's pace (bench/publisher.py).

So a thread hands its write (a function of no arguments that writes
through posts/own_handoffs.py) to `GroupCommit`, whose one committer thread
runs every write waiting, up to MOST, in one transaction, and answers each
thread once that transaction is committed: one flush for all of them. A
write's answer still comes only once it is durable, so the rules of run.py
hold as they were: a post is sent only after its `sending` mark is on disk,
and its outcome is kept before the run ends. Should one write of a group
raise (a PostgreSQL deadlock, say), the group is rolled back and each of
its writes runs again in a transaction of its own, so that one write's
error is its own thread's alone. Each write runs with its thread's public
URL (media_refs.PUBLIC_URL), which its events render media with.
"""

import logging
import threading

from flask import current_app

from content_publishing.schemas import media_refs
from content_publishing.store.db import transaction

log = logging.getLogger("publisher")
MOST = 64  # writes in one transaction


class _Write:
    def __init__(self, write):
        self.write = write
        self.public_url = media_refs.PUBLIC_URL.get(None)  # the writer's, for its events
        self.done = threading.Event()
        self.result = self.error = None


class GroupCommit:
    """`commit(write)` -> what `write()` returned, once committed; raises
    what it raised. The committer thread starts with the first write, in
    that write's app."""

    def __init__(self):
        self.waiting = []
        self.ready = threading.Condition()
        self.started = False

    def __call__(self, write):
        job = _Write(write)
        with self.ready:
            if not self.started:  # by the first write, in the app's context
                self.started = True
                app = current_app._get_current_object()
                threading.Thread(
                    target=self._commit_all, args=(app,), daemon=True, name="commits"
                ).start()
            self.waiting.append(job)
            self.ready.notify()
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def _commit_all(self, app):
        while True:
            with self.ready:
                self.ready.wait_for(lambda: self.waiting)
                group, self.waiting = self.waiting[:MOST], self.waiting[MOST:]
            try:
                with app.app_context():
                    self._commit(group)
            except BaseException as error:  # no writer is left waiting for ever
                for job in group:
                    if not job.done.is_set():
                        job.error = error
                        job.done.set()
                if not isinstance(error, Exception):
                    raise

    def _commit(self, group):
        try:
            with transaction():
                results = [_run(job) for job in group]
        except Exception as error:
            if len(group) == 1:
                group[0].error = error
                group[0].done.set()
                return
            log.info("a group of %d writes failed; each is written alone", len(group))
            for job in group:
                self._commit([job])
            return
        for job, result in zip(group, results, strict=True):
            job.result = result
            job.done.set()


def _run(job):
    """`job.write()` with its thread's public URL."""
    if job.public_url is None:
        return job.write()
    token = media_refs.PUBLIC_URL.set(job.public_url)
    try:
        return job.write()
    finally:
        media_refs.PUBLIC_URL.reset(token)
