"""Imports with one Idempotency-Key sent at once, against real gunicorn with
several workers on both backends: one import is made, and every request
answers it, the same 201 with the same body.

The rows fill a channel's daily_cap exactly, so a racer that planned the
rows again would find the first import's posts in the way and answer 400
(it did, on PostgreSQL: 3 of 16). The key is claimed in the database
before the rows are planned: a racer waits for the first import's
transaction and answers what it stored."""

import threading

import pytest

from harness import Client, create_key
from harness.api import CHANNELS, IMPORT, POSTS
from tests.conftest import live_server

# The PostgreSQL half of the live tests runs in make test too: one Idempotency-Key raced: the key claimed in each store.
pytestmark = pytest.mark.both_backends

RACERS = 16
ROWS = 50
PER_DAY = 10


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "import-race", workers=8) as server:
        yield server


def rows():
    """50 rows scheduled on 5 days, 10 a day: the channel's daily_cap, filled."""
    return [
        {
            "type": "personal",
            "content": f"Planned post {n}",
            "scheduled_at": f"2031-03-{2 + n // PER_DAY:02d}T{8 + n % PER_DAY:02d}:00:00Z",
        }
        for n in range(ROWS)
    ]


def race(url, key, bodies, headers):
    """POST an import of each body at once, one thread each, all released
    by one barrier; the responses in order."""
    barrier = threading.Barrier(len(bodies), timeout=60)
    answers = [None] * len(bodies)

    def send(i):
        client = Client(url, key, timeout=60)
        barrier.wait()
        answers[i] = client.post(IMPORT, bodies[i], headers=headers)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


@pytest.mark.parametrize("round_", range(2))
def test_concurrent_imports_with_one_key_all_answer_the_one_import(server, round_):
    key = create_key(server.database, user=f"importer-{round_}")
    client = Client(server.url, key, timeout=60)
    channel = client.post(CHANNELS, {"type": "personal", "name": "Me", "daily_cap": PER_DAY})
    assert channel.status == 201, channel
    body, headers = {"posts": rows()}, {"Idempotency-Key": f"import-race-{round_}"}
    answers = race(server.url, key, [body] * RACERS, headers)
    assert [a.status for a in answers] == [201] * RACERS, [
        (a.status, a.text[:200]) for a in answers
    ]
    first = answers[0].json
    assert first["count"] == ROWS
    assert all(a.json == first for a in answers)
    stored = client.get(f"{POSTS}?limit=100").json
    assert stored["total"] == ROWS
    assert {p["id"] for p in stored["data"]} == {p["id"] for p in first["data"]}
    retried = client.post(IMPORT, body, headers=headers)
    assert retried.status == 201 and retried.json == first


def test_concurrent_imports_with_one_key_and_other_rows_get_409(server):
    """The racers that sent other rows under the key are refused, whatever
    the order: one import is made, of the rows that came first."""
    key = create_key(server.database, user="importer-mixed")
    client = Client(server.url, key, timeout=60)
    headers = {"Idempotency-Key": "import-race-mixed"}
    bodies = [
        {"posts": [{"type": "personal", "content": f"Variant {i % 2}, row {n}"} for n in range(5)]}
        for i in range(RACERS)
    ]
    answers = race(server.url, key, bodies, headers)
    won = [i for i, a in enumerate(answers) if a.status == 201]
    assert won and all(answers[i].status == 409 for i in range(RACERS) if i not in won), [
        a.status for a in answers
    ]
    assert len({i % 2 for i in won}) == 1  # every 201 is of one variant
    assert all(answers[i].json == answers[won[0]].json for i in won)
    assert client.get(f"{POSTS}?limit=100").json["total"] == 5
