"""Round trips to PostgreSQL: what need not go alone rides with
the next statement (store/db.py, "what a thread has yet to send"). A GET of
one post is one round trip, a create one and its commit; a write that fails
in a late statement still leaves nothing behind.

In-process, the round trips counted with store.db.trace, with a key the
worker has cached (its first request looked it up).
"""

import psycopg
import pytest

from content_publishing.store.db import trace
from harness.api import API, ITEM, POSTS
from tests.conftest import assert_error

pytestmark = pytest.mark.parametrize("backend", ["postgresql"])


def round_trips(call):
    """(response, the statements of each round trip) of `call()`."""
    sent = []
    with trace(round_trip=sent.append):  # the test client runs in this thread
        response = call()
    return response, sent


@pytest.fixture
def warm(api):
    """alice's caller, her key cached by this worker."""
    assert api.get(POSTS).status_code == 200
    return api


def test_a_create_is_one_round_trip_and_its_commit(warm):
    r, sent = round_trips(lambda: warm.post(POSTS, json={"type": "personal", "content": "Hi"}))
    assert r.status_code == 201, r.json
    assert len(sent) == 2, sent
    first, last = sent
    assert first[0] == "BEGIN" and "key_generation" in first[1] and "INSERT INTO posts" in first[2]
    assert "INSERT INTO post_history" in last[0] and last[-1] == "COMMIT"
    assert warm.get(ITEM + r.json["id"]).json["content"] == "Hi"


def test_a_get_is_one_round_trip(warm):
    post = warm.post(POSTS, json={"type": "personal", "content": "Hi"}).json
    r, sent = round_trips(lambda: warm.get(ITEM + post["id"]))
    assert r.status_code == 200
    assert len(sent) == 1 and "key_generation" in sent[0][0], sent


def test_a_patch_sends_its_history_with_the_commit(warm):
    post = warm.post(POSTS, json={"type": "personal", "content": "Hi"}).json
    r, sent = round_trips(lambda: warm.patch(ITEM + post["id"], json={"content": "Ho"}))
    assert r.status_code == 200, r.json
    assert len(sent) == 3, sent
    assert sent[0][0] == "BEGIN" and sent[-1][-1] == "COMMIT"
    history = warm.get(f"{API}/api-v2-posts-history/{post['id']}").json["data"]
    assert [h["action"] for h in history][-1] == "updated"


@pytest.fixture
def failing_history(postgres_url):
    """Every insert into post_history fails, as a full disk or a broken
    constraint would, in the statement sent with the COMMIT."""
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
            " $$BEGIN RAISE EXCEPTION 'refused by the test'; END$$"
        )
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON post_history"
            " FOR EACH ROW EXECUTE FUNCTION refuse()"
        )
        yield
        conn.execute("DROP TRIGGER refuse ON post_history")
        conn.execute("DROP FUNCTION refuse()")


def test_a_late_write_that_fails_leaves_nothing(warm, failing_history):
    r, sent = round_trips(lambda: warm.post(POSTS, json={"type": "personal", "content": "Hi"}))
    assert_error(r, 500, "internal_error")
    assert "INSERT INTO post_history" in sent[1][0]  # it failed with the COMMIT
    listed = warm.get(POSTS).json
    assert listed["data"] == [] and listed["total"] == 0


def test_a_queue_request_lets_its_channel_go_before_its_disk_write(warm):
    """Queue requests of one channel wait on its row: each commits without
    waiting for its WAL to reach the disk, so the lock goes at once, and
    then waits for the disk before it answers (a 2xx means durable)."""
    slots = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri")]
    assert warm.post(f"{API}/channels", json={"type": "personal", "name": "Me", "slots": slots})
    post = warm.post(POSTS, json={"type": "personal", "content": "Hi"}).json
    r, sent = round_trips(
        lambda: warm.post(f"{API}/api-v2-posts-queue", json={"post_id": post["id"]})
    )
    assert r.status_code == 200, r.json
    assert sent[0][:2] == ["BEGIN", "SET LOCAL synchronous_commit = off"], sent
    *_, commit, durable = sent
    assert commit[-1] == "COMMIT" and "INSERT INTO post_history" in commit[0]
    assert durable[0] == "BEGIN" and "pg_logical_emit_message" in durable[1]
    assert durable[-1] == "COMMIT"
    assert warm.get(ITEM + post["id"]).json["status"] == "Scheduled"


def test_a_transaction_that_only_writes_commits_its_writes(app, backend):
    """A transaction whose statements are all writes nobody reads (no row
    read before them) still sends its BEGIN, the writes and the COMMIT, in
    one round trip."""
    from content_publishing.store import db

    with app.app_context():
        sent = []
        with trace(round_trip=sent.append):
            with db.transaction():
                db.write("CREATE TABLE only_writes (n integer)")
                db.write("INSERT INTO only_writes VALUES (1)")
        assert len(sent) == 1 and sent[0][0] == "BEGIN" and sent[0][-1] == "COMMIT", sent
        with db.transaction():
            assert db.value("SELECT count(*) FROM only_writes") == 1
