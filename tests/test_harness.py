"""The harness itself: the ledger must catch lost writes, and Process must
start, wait for and kill a whole process group (the coming dispatcher will
be run with it). No server here: a fake service answers the ledger."""

import json
import os
import sys
import time

import pytest

from harness import Ledger, Process, ProcessExited, Response
from harness.api import CALLBACK, ITEM, POSTS


class FakeService:
    """Posts in a dict, answered as the service would; tests then break it."""

    def __init__(self):
        self.posts = {}
        self.apply = True  # False: acknowledge PATCHes without storing them
        self.bump = True  # False: store PATCHes without a new version
        self.cut = False  # True: the connection breaks before the answer (after applying, if apply)

    def answer(self, status, body):
        return Response(
            status, {}, json.dumps(body).encode(), None, time.monotonic(), time.monotonic()
        )

    def post(self, path, body, **kw):
        if path == POSTS:
            post = {
                "id": f"p{len(self.posts)}",
                "version": 1,
                "content": body["content"],
                "status": "Scheduled",
                "linkedin_post_id": None,
            }
            self.posts[post["id"]] = post
            return self.answer(201, post)
        assert path == CALLBACK
        post = self.posts[body["post_id"]]
        if post["status"] != "Published":
            post.update(
                status="Published",
                linkedin_post_id=body["linkedin_post_id"],
                version=post["version"] + 1,
            )
        return self.answer(200, post)

    def patch(self, path, body, headers=None):
        post = self.posts[path[len(ITEM) :]]
        if post["status"] == "Published":
            return self.answer(409, {"error": {"code": "conflict"}})
        new = {**post, **body, "version": post["version"] + self.bump}
        if self.apply:
            self.posts[post["id"]] = new
        if self.cut:
            return Response(
                None, {}, b"", "ConnectionResetError", time.monotonic(), time.monotonic()
            )
        return self.answer(200, new)

    def get(self, path):
        return self.answer(200, self.posts[path[len(ITEM) :]])


def failed(ledger, service):
    posts = {pid: dict(p) for pid, p in service.posts.items()}
    return [c.text for c in ledger.check_posts(posts) + ledger.check_responses() if not c.ok]


def some_writes(ledger, service):
    a = ledger.create(service, "a").json["id"]
    b = ledger.create(service, "b").json["id"]
    ledger.patch(service, a, {"content": "a2"})
    ledger.patch(service, a, {"content": "a3"})
    ledger.publish(service, b, "urn:li:share:1", "https://x.test/1")
    ledger.publish(service, b, "urn:li:share:1", "https://x.test/1", op="callback-repeat")
    ledger.patch(service, b, {"content": "b2"})  # 409: a Published post is final
    return a, b


def test_an_honest_service_passes():
    ledger, service = Ledger(), FakeService()
    some_writes(ledger, service)
    assert failed(ledger, service) == []
    assert ledger.acknowledged("patch") == 2 and ledger.acknowledged("publish") == 2


def test_a_lost_create_is_caught():
    ledger, service = Ledger(), FakeService()
    a, _ = some_writes(ledger, service)
    del service.posts[a]
    assert any(
        "every acknowledged create exists (1 of 2 missing" in t for t in failed(ledger, service)
    )


def test_an_acknowledged_change_that_was_not_stored_is_caught():
    ledger, service = Ledger(), FakeService()
    a = ledger.create(service, "a").json["id"]
    service.apply = False
    ledger.patch(service, a, {"content": "a2"})
    problems = failed(ledger, service)
    assert any(t.startswith("every post's version") for t in problems)
    assert any(
        t.startswith("every post's content is its last acknowledged one (1 differ")
        for t in problems
    )


def test_two_changes_with_one_version_are_caught():
    ledger, service = Ledger(), FakeService()
    a = ledger.create(service, "a").json["id"]
    ledger.patch(service, a, {"content": "a2"})
    service.bump = False
    ledger.patch(service, a, {"content": "a3"})  # overwrote a2 under the same version
    problems = failed(ledger, service)
    assert any(
        t.startswith("no two acknowledged changes of a post share a version (1 posts")
        for t in problems
    )


def test_an_unanswered_change_may_or_may_not_have_been_applied():
    ledger, service = Ledger(), FakeService()
    a = ledger.create(service, "a").json["id"]
    service.cut, service.apply = True, False
    ledger.patch(service, a, {"content": "lost?"})
    assert [t for t in failed(ledger, service) if "answered" not in t] == []  # not applied: fine
    service.apply = True
    ledger.patch(service, a, {"content": "applied"})
    assert [t for t in failed(ledger, service) if "answered" not in t] == []  # applied: fine too
    service.posts[a].update(version=4)
    assert any(t.startswith("every post's version") for t in failed(ledger, service))
    assert ledger.check_responses(connection_errors=True)[-1].ok
    assert any("2 connection errors" in t for t in failed(ledger, service))


def test_bad_answers_are_caught():
    ledger = Ledger()
    now = time.monotonic()
    ledger.record(
        "create", Response(500, {}, b'{"error": "database is locked"}', None, now, now), (201,)
    )
    ledger.record("get", Response(404, {}, b"{}", None, now, now), (200,))
    problems = failed(ledger, FakeService())
    assert any(t.startswith("zero 5xx responses (1") for t in problems)
    assert any(t.startswith('zero "database is locked" in response bodies (1)') for t in problems)
    assert any(t.startswith("every answer had an expected status (1 did not") for t in problems)


def test_a_repeated_callback_that_changes_the_version_is_caught():
    ledger, service = Ledger(), FakeService()
    b = ledger.create(service, "b").json["id"]
    ledger.publish(service, b, "urn:li:share:1", "https://x.test/1")
    service.posts[b]["version"] += 1  # the repeat below then reports another version
    ledger.publish(service, b, "urn:li:share:1", "https://x.test/1", op="callback-repeat")
    assert any(t.startswith("callbacks publish once") for t in failed(ledger, service))


def test_unknown_posts_are_caught():
    ledger, service = Ledger(), FakeService()
    some_writes(ledger, service)
    service.post(POSTS, {"content": "made behind the ledger's back"})
    assert any(
        t.startswith("no post the ledger does not know of (1 unknown")
        for t in failed(ledger, service)
    )


CHILD = """
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
time.sleep(0.3)
print("dispatcher ready", flush=True)
time.sleep(60)
"""


def test_process_waits_for_ready_and_kills_the_whole_group(tmp_path):
    proc = Process(
        [sys.executable, "-c", CHILD], log=tmp_path / "p.log", ready_text="dispatcher ready"
    )
    with proc:
        assert "dispatcher ready" in proc.log_text()
        children = proc.child_pids()
        assert len(children) == 1
        proc.kill()
        assert not proc.running
    with pytest.raises(ProcessLookupError):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            os.kill(children[0], 0)  # raises once the grandchild is gone
            time.sleep(0.05)


def test_process_that_exits_before_it_is_ready_is_reported(tmp_path):
    proc = Process(
        [sys.executable, "-c", "print('no such thing'); raise SystemExit(3)"],
        log=tmp_path / "p.log",
        ready_text="ready",
    )
    with pytest.raises(ProcessExited, match="(?s)exited with 3.*no such thing"):
        proc.start(timeout=10)


def test_run_to_exit_reports_code_and_error_lines():
    result = Process(
        [
            sys.executable,
            "-c",
            "import sys; print('error: cannot start: x', file=sys.stderr); sys.exit(1)",
        ]
    ).run_to_exit(10)
    assert result.code == 1 and result.error_lines() == ["error: cannot start: x"]
    slow = Process([sys.executable, "-c", "import time; time.sleep(30)"]).run_to_exit(0.5)
    assert slow.code is None


def test_flask_command_runs_the_service_cli(tmp_path):
    """FlaskCommand (for the coming `flask --app app dispatch`) runs the
    service's CLI against a database, through the same Process code."""
    from harness import FlaskCommand

    result = FlaskCommand(tmp_path / "f.sqlite", "init-db").run_to_exit(30)
    assert result.code == 0, result.stderr
    assert (tmp_path / "f.sqlite").exists()


def test_the_harness_knows_every_scope_of_the_service():
    """create_key() grants every scope unless told otherwise; the harness
    keeps the README's list itself, since it reaches the service from outside."""
    from content_publishing.auth import SCOPES
    from harness.flask_cli import SCOPES as KNOWN

    assert KNOWN == SCOPES
