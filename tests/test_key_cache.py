"""The per-worker key cache (content_publishing/store/key_cache.py) never
lets a key through that could not be used without it: a revoke or an
expiry takes effect for every worker's very next request.

In-process, a second app on the same database plays a second worker; the
last tests revoke and expire keys under real gunicorn with four workers,
each of which has the key cached.
"""

import time

import pytest

from content_publishing import timestamps
from content_publishing.app import create_app
from content_publishing.store.db import dispose_db, trace
from harness import Client, create_key, flask_cli
from harness.api import ME, POSTS
from harness.clock import ahead
from tests.conftest import ClosingClient, assert_error, live_server

REQUESTS = 48  # per round against gunicorn: enough that each of 4 workers answers some


@pytest.fixture
def second_worker(database):
    """Another app on the test's database: a second worker with its own cache."""
    app = create_app({"TESTING": True, "DATABASE": database})
    app.test_client_class = ClosingClient
    yield app.test_client()
    with app.app_context():
        dispose_db()


def statements_of(app, client, key):
    statements = []
    with app.app_context():
        with trace(statements.append):
            r = client.get(POSTS, headers={"X-API-Key": key})
    assert r.status_code == 200
    return statements


def test_a_cached_key_is_not_looked_up_again(app, client, key):
    first = statements_of(app, client, key)
    assert any("api_keys" in s for s in first)
    again = statements_of(app, client, key)
    assert not any("api_keys" in s for s in again)
    assert any("key_generation" in s for s in again)  # read with the first statement


def test_a_new_role_is_seen_by_every_worker_at_once(client, second_worker, runner, key):
    """A member's role bounds their cached key: demoted on one worker (the
    API), refused by the other on its next request."""
    _, editor_key = _member_key(runner, "alice", "ed", "editor")
    body = {"type": "personal", "content": "x"}
    for worker in (client, second_worker):
        assert worker.post(POSTS, json=body, headers={"X-API-Key": editor_key}).status_code == 201
    editor_id = client.get(ME, headers={"X-API-Key": editor_key}).get_json()["member"]["id"]
    r = client.patch(
        f"/functions/v1/members-item/{editor_id}",
        json={"role": "viewer"},
        headers={"X-API-Key": key},
    )
    assert r.status_code == 200
    for worker in (second_worker, client):
        r = worker.post(POSTS, json=body, headers={"X-API-Key": editor_key})
        assert "viewer" in assert_error(r, 403, "forbidden")["message"]


def _member_key(runner, workspace, name, role):
    result = runner.invoke(
        args=["members", "add", "--workspace", workspace, "--name", name, "--role", role]
    )
    assert result.exit_code == 0, result.output
    return result.output.split()[2], result.output.strip().splitlines()[-1]


def test_revoke_is_seen_by_every_worker_at_once(client, second_worker, runner, key):
    for worker in (client, second_worker):
        assert worker.get(POSTS, headers={"X-API-Key": key}).status_code == 200
    assert runner.invoke(args=["keys", "revoke", key]).exit_code == 0
    for worker in (client, second_worker):
        for path in (POSTS, ME):
            err = assert_error(worker.get(path, headers={"X-API-Key": key}), 401, "unauthorized")
            assert "revoked" in err["message"]


def test_a_revoked_key_writes_nothing(client, second_worker, runner, key, caller):
    assert second_worker.get(POSTS, headers={"X-API-Key": key}).status_code == 200
    assert runner.invoke(args=["keys", "revoke", key]).exit_code == 0
    r = second_worker.post(
        POSTS, json={"type": "personal", "content": "after the revoke"}, headers={"X-API-Key": key}
    )
    assert_error(r, 401, "unauthorized")
    listing = runner.invoke(args=["keys", "list"]).output
    assert " revoked " in listing
    other = caller("bob")  # another key still works, and sees no post of alice's anyway
    assert other.get(POSTS).json["total"] == 0
    assert client.get(POSTS, headers={"X-API-Key": key}).status_code == 401


def test_other_key_changes_leave_a_cached_key_usable(client, second_worker, make_key, runner, key):
    assert second_worker.get(POSTS, headers={"X-API-Key": key}).status_code == 200
    other = make_key("bob")
    assert runner.invoke(args=["keys", "revoke", other]).exit_code == 0
    r = second_worker.post(
        POSTS, json={"type": "personal", "content": "x"}, headers={"X-API-Key": key}
    )
    assert r.status_code == 201
    assert client.get(POSTS, headers={"X-API-Key": key}).json["total"] == 1


def test_a_cached_key_expires_at_its_second(client, second_worker, make_key, clock):
    expiry = ahead(3)
    key = make_key(expires_at=expiry)
    for worker in (client, second_worker):
        assert worker.get(POSTS, headers={"X-API-Key": key}).status_code == 200
    clock.wait_past(expiry)
    for worker in (client, second_worker):
        err = assert_error(worker.get(POSTS, headers={"X-API-Key": key}), 401, "unauthorized")
        assert "expired" in err["message"]


# --- real gunicorn, four workers --------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "key-cache", workers=4) as server:
        yield server


def statuses(server, key):
    """REQUESTS requests, each on its own connection (a sync worker closes
    it after one answer, so the workers take turns at random)."""
    return [Client(server.url, key).get(POSTS).status for _ in range(REQUESTS)]


def test_revoke_under_gunicorn_refuses_the_next_request_on_every_worker(server):
    key = create_key(server.database, user="revoked-live")
    assert statuses(server, key) == [200] * REQUESTS  # every worker has it cached now
    flask_cli(server.database, "keys", "revoke", key)
    assert statuses(server, key) == [401] * REQUESTS


def test_expiry_under_gunicorn_refuses_from_its_second_on_every_worker(server):
    """A key that expires in a few seconds, each worker warmed with it first;
    on a loaded machine the command or the warm-up can outlast the key, and
    then a key that lives longer is tried."""
    for seconds in (4, 8, 16, 32):
        expiry = ahead(seconds)
        command = ["keys", "create", "--user", "expiring-live", "--scope", "posts:read"]
        try:
            made = flask_cli(server.database, *command, "--expires-at", expiry)
        except RuntimeError as refused:  # the command itself started after the expiry
            assert "is not in the future" in str(refused), refused
            continue
        key = made.strip().splitlines()[-1]
        warm = statuses(server, key)
        if timestamps.now() < timestamps.parse(expiry):
            break
    else:
        pytest.fail("every warm-up took longer than its key lived")
    assert warm == [200] * REQUESTS
    time.sleep((timestamps.parse(expiry) - timestamps.now()).total_seconds() + 0.01)
    assert statuses(server, key) == [401] * REQUESTS


def test_a_removed_members_keys_answer_401_on_every_worker_at_once(server):
    """DELETE /members-item/{id} revokes every key of the member in one
    transaction: every worker, each with the keys cached, refuses them on
    their next request."""
    owner = Client(server.url, create_key(server.database, user="team-live"))
    added = flask_cli(
        server.database,
        "members",
        "add",
        "--workspace",
        "team-live",
        "--name",
        "eve",
        "--role",
        "editor",
    )
    member_id = added.split()[2]
    first = added.strip().splitlines()[-1]
    second = (
        flask_cli(server.database, "keys", "create", "--member", member_id, "--scope", "posts:read")
        .strip()
        .splitlines()[-1]
    )
    for key in (first, second):
        assert statuses(server, key) == [200] * REQUESTS  # every worker has it cached now
    assert owner.delete(f"/functions/v1/members-item/{member_id}").status == 204
    for key in (first, second):
        assert statuses(server, key) == [401] * REQUESTS
    assert statuses(server, owner.key) == [200] * REQUESTS
