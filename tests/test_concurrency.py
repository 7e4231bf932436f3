"""Concurrent clients against real gunicorn with several workers.

Every acknowledged write must be there afterwards, each post's version must
count exactly its acknowledged changes, and no request may get a 5xx or
"database is locked" (harness.ledger has the rules; harness.load the mix).
"""

import pytest

from harness import (
    Client,
    Ledger,
    create_key,
    prepare_posts,
    read_posts,
    run_load,
    serve,
)

# The PostgreSQL half of the live tests runs in make test too: concurrent writers: each store's transactions lose nothing.
pytestmark = pytest.mark.both_backends


def scenario(tmp_path, database, threads, seconds, shared=6, scheduled=40):
    ledger = Ledger()
    with serve(tmp_path, workers=4, database=database) as server:
        key = create_key(server.database)
        targets = prepare_posts(
            server.url, key, ledger, shared=shared, scheduled=scheduled, seconds=seconds
        )
        result = run_load(
            server.url,
            key,
            ledger,
            threads=threads,
            seconds=seconds,
            max_requests=threads * 5000,
            targets=targets,
        )
        with Client(server.url, key) as client:
            posts = read_posts(client)
    failed = [c.text for c in ledger.check_posts(posts) + ledger.check_responses() if not c.ok]
    assert not failed, "\n".join(failed + ledger.figures())
    assert (
        result.requests > 0
        and ledger.acknowledged("patch") > 0
        and ledger.acknowledged("publish") > 0
    )
    assert len(posts) > shared + scheduled  # the load created posts too


def test_concurrent_writers_lose_nothing(tmp_path, live_database):
    scenario(tmp_path, live_database, threads=16, seconds=4)


@pytest.mark.slow
def test_concurrent_writers_lose_nothing_long(tmp_path, live_database):
    scenario(tmp_path, live_database, threads=48, seconds=60)
