"""A worker that runs past gunicorn's timeout leaves a log line naming the
request it was serving: its id, its key's id and user (never the key) and
its path (serving/worker.py, gunicorn.conf.py).

The request is held past a 2-second timeout by a lock the test takes on the
database, with the service's lock wait (FLASK_SQLITE_BUSY_TIMEOUT_MS) longer
than that. The two backends stop the worker in the two ways gunicorn can:
on SQLite it waits inside C code, does not answer the SIGABRT and is
SIGKILLed, so its master logs the line; on PostgreSQL the SIGABRT ends the
request as SystemExit, and the worker's own lines say it.
"""

import contextlib
import re
import sqlite3
import threading
import time

import psycopg
import pytest

from harness import Client, create_key
from harness.api import ME, POSTS
from tests.conftest import live_server

REQUEST_ID = "timeout-probe-7f3a"


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    log = tmp_path_factory.mktemp("worker-timeout-log") / "server.log"
    env = {"FLASK_SQLITE_BUSY_TIMEOUT_MS": "20000", "GUNICORN_CMD_ARGS": "--timeout 2"}
    with live_server(
        tmp_path_factory, live_backend, "worker-timeout", workers=1, env=env, log=log
    ) as server:
        yield server


@contextlib.contextmanager
def database_held(database):
    """Every write to posts waits while the block runs."""
    if str(database).startswith("postgres"):
        conn = psycopg.connect(str(database))
        conn.execute("LOCK TABLE posts IN ACCESS EXCLUSIVE MODE")
    else:
        conn = sqlite3.connect(database, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        conn.rollback()
        conn.close()


def test_a_timed_out_workers_line_names_the_key_and_the_path(server):
    key = create_key(server.database, user="tina")
    with Client(server.url, key, timeout=30) as client:
        key_id = client.get(ME).json["key"]["id"]
    pids = server.worker_pids()
    with database_held(server.database):
        waiting = threading.Thread(
            target=lambda: Client(server.url, key, timeout=30).post(
                POSTS,
                {"type": "personal", "content": "held"},
                headers={"X-Request-ID": REQUEST_ID},
            )
        )
        waiting.start()
        deadline = time.monotonic() + 20
        while server.worker_pids() == pids or REQUEST_ID not in server.log_text():
            assert time.monotonic() < deadline, server.log_text()[-3000:]
            time.sleep(0.1)
    waiting.join()
    log = server.log_text()
    assert "WORKER TIMEOUT" in log
    lines = [line for line in log.splitlines() if REQUEST_ID in line]
    named = f"request_id={REQUEST_ID} key_id={key_id} user=tina"
    assert lines and all(named in line for line in lines), lines
    assert any(
        re.search(
            r"(timed out serving|Error handling request) POST /functions/v1/api-v2-posts", line
        )
        for line in lines
    ), lines
    assert key not in log
    with Client(server.url, key, timeout=30) as client:  # a new worker serves, nothing was stored
        assert client.get(POSTS).json["total"] == 0
