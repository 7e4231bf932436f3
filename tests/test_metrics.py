"""GET /metrics (README "Metrics and logs").

Off by default (a 404 like any unknown path). On, the counts of real
traffic against gunicorn with several workers, added up over the workers by
prometheus_client's multiprocess mode, and the database's gauges, on both
backends; and the multiprocess directory's life: a worker that dies keeps
its counts, a restart starts from zero, a directory gunicorn made is
removed when it stops.
"""

import json
import os
import re
import secrets
import shutil
import signal
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from content_publishing.app import create_app
from content_publishing.store.db import dispose_db, init_db
from harness import Answer, Client, Dispatcher, Gunicorn, Receiver, create_key, flask_cli, serve
from harness.api import POSTS
from harness.clock import ahead, wait_past
from tests.conftest import assert_error, live_database_for

ITEM_ROUTE = "/functions/v1/api-v2-posts-item/<post_id>"
SERVER_ENV = {"FLASK_METRICS": "1", "FLASK_LOG_FORMAT": "json", "FLASK_WEBHOOK_ALLOW_PRIVATE": "1"}


def scrape(url):
    """{(name, ((label, value), ...)): value} of one scrape, and its text."""
    with Client(url, timeout=10) as client:
        r = client.get("/metrics")
    assert r.status == 200, r
    assert r.headers["content-type"].startswith("text/plain; version=")
    values = {}
    for family in text_string_to_metric_families(r.text):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return values, r.text


def value(values, name, **labels):
    return values.get((name, tuple(sorted(labels.items()))), 0.0)


def requests(values, route, status, method="GET"):
    return value(values, "cps_http_requests_total", method=method, route=route, status=status)


# --- off by default, and on in one process (the test client) -------------------------


def test_metrics_are_off_by_default(client, key):
    r = client.get("/metrics")
    assert_error(r, 404, "not_found")
    assert_error(client.get("/metrics", headers={"X-API-Key": key}), 404, "not_found")


@pytest.fixture
def metrics_client(database):
    app = create_app({"TESTING": True, "DATABASE": database, "METRICS": True})
    with app.app_context():
        init_db()
    yield app.test_client()
    with app.app_context():
        dispose_db()


def test_metrics_in_one_process_count_route_templates(metrics_client):
    for _ in range(3):
        assert metrics_client.get(f"{POSTS}-item/{uuid.uuid4()}").status_code == 401
    r = metrics_client.get("/metrics")
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    values = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.get_data(as_text=True))
        for s in family.samples
    }
    assert requests(values, ITEM_ROUTE, "401") == 3
    assert value(values, "cps_auth_failures_total", reason="missing") == 3
    assert value(values, "cps_database_size_bytes") > 0


# --- against gunicorn ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    """gunicorn with 3 workers and metrics on, as `make run` starts it (no
    PROMETHEUS_MULTIPROC_DIR: it makes its own)."""
    tmp = tmp_path_factory.mktemp("metrics")
    env = {**SERVER_ENV}
    with live_database_for(live_backend) as database:
        with serve(tmp, workers=3, env=env, log=tmp / "server.log", database=database) as server:
            server.tmp = tmp
            server.backend = live_backend
            yield server


def parallel(url, count, threads, send):
    """send(client) `count` times over `threads` threads, each with its own
    connections; the statuses it returned, counted."""
    statuses = []

    def run(n):
        with Client(url, timeout=30) as client:
            for _ in range(n):
                statuses.append(send(client))

    workers = [
        threading.Thread(target=run, args=(count // threads + (i < count % threads),))
        for i in range(threads)
    ]
    for t in workers:
        t.start()
    for t in workers:
        t.join(60)
    return Counter(statuses)


def test_requests_are_counted_by_route_template_over_every_worker(server):
    key = create_key(server.database, user=f"m-{uuid.uuid4().hex[:8]}")
    client = Client(server.url, key, timeout=30)
    ids = [
        client.post(POSTS, {"type": "personal", "content": f"post {i}"}).json["id"]
        for i in range(5)
    ]
    before, _ = scrape(server.url)
    # 30 reads from 3 threads, again until they have reached more than one
    # worker: serve() returns once the first worker answers, and the others
    # may still be booting while a quick batch is over.
    reads, got = 0, Counter()
    while reads == 0 or (len(item_read_pids(server)) < 2 and reads < 300):
        got += parallel(
            server.url,
            30,
            3,
            lambda c: c.get(f"{POSTS}-item/{ids[secrets.randbelow(5)]}", key=key).status,
        )
        reads += 30
    assert got == {200: reads}
    unknown = parallel(server.url, 4, 2, lambda c: c.get(f"/nothing/{uuid.uuid4()}").status)
    assert unknown == {404: 4}

    after, text = scrape(server.url)
    assert requests(after, ITEM_ROUTE, "200") - requests(before, ITEM_ROUTE, "200") == reads
    assert requests(after, "unmatched", "404") - requests(before, "unmatched", "404") == 4
    duration = "cps_http_request_duration_seconds"
    counted = value(after, f"{duration}_count", method="GET", route=ITEM_ROUTE)
    assert counted - value(before, f"{duration}_count", method="GET", route=ITEM_ROUTE) == reads
    assert value(after, f"{duration}_bucket", method="GET", route=ITEM_ROUTE, le="+Inf") == counted
    assert value(after, f"{duration}_sum", method="GET", route=ITEM_ROUTE) > 0
    # Ids never become labels: one series per template, whatever the path.
    assert not [i for i in ids if i in text] and "/nothing/" not in text
    # Any worker answers a scrape with the same totals (the sum of every worker's files).
    again, _ = scrape(server.url)
    assert requests(again, ITEM_ROUTE, "200") == requests(after, ITEM_ROUTE, "200")
    # ... and the reads really were spread over several workers.
    pids = item_read_pids(server)
    assert len(pids) >= 2, pids


def item_read_pids(server):
    """The workers whose access log lines show a read of a post (whole lines
    only: a worker may be writing the last one)."""
    lines = (server.tmp / "server.log").read_text().split("\n")[:-1]
    return {
        line["pid"]
        for line in map(json.loads, filter(str.strip, lines))
        if line.get("logger") == "gunicorn.access" and "/api-v2-posts-item/" in line["request"]
    }


def read_json_lines(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_authentication_failures_are_counted_by_reason(server):
    user = f"m-{uuid.uuid4().hex[:8]}"
    revoked = create_key(server.database, user=user)
    flask_cli(server.database, "keys", "revoke", revoked)
    # The CLI makes no key that has expired already, and it is a subprocess
    # that can take seconds to start on a busy machine: if it started too late
    # for the first expiry, it is asked again with a longer one.
    for lead in (4, 20):
        expiry = ahead(lead)
        try:
            expired = flask_cli(
                server.database,
                *("keys", "create", "--user", user, "--scope", "posts:read"),
                *("--expires-at", expiry),
            ).splitlines()[-1]
            break
        except RuntimeError as e:
            assert "is not in the future" in str(e), e
    wait_past(expiry)
    sent = {
        "missing": (None, 1),
        "malformed": ("svc_live_short", 2),
        "unknown": ("svc_live_" + "x" * 40, 3),
        "revoked": (revoked, 1),
        "expired": (expired, 2),
    }
    before, _ = scrape(server.url)
    anonymous = Client(server.url, timeout=30)
    for key, times in sent.values():
        for _ in range(times):
            headers = {"X-API-Key": key} if key else {}
            assert anonymous.get(POSTS, headers=headers).status == 401
    after, text = scrape(server.url)
    for reason, (_, times) in sent.items():
        failures = value(after, "cps_auth_failures_total", reason=reason)
        assert failures - value(before, "cps_auth_failures_total", reason=reason) == times, reason
    assert requests(after, "/functions/v1/api-v2-posts", "401") - requests(
        before, "/functions/v1/api-v2-posts", "401"
    ) == sum(times for _, times in sent.values())
    assert "svc_live_" not in text


def test_metrics_need_no_key_and_show_none(server):
    key = create_key(server.database, user=f"m-{uuid.uuid4().hex[:8]}")
    with Client(server.url, key, timeout=10) as client:  # a key sent anyway changes nothing
        r = client.get("/metrics")
    assert r.status == 200 and key not in r.text and "svc_live_" not in r.text
    assert r.headers["cache-control"] == "no-store"


def test_database_size_grows_with_the_data(server):
    key = create_key(server.database, user=f"m-{uuid.uuid4().hex[:8]}")
    client = Client(server.url, key, timeout=30)
    before, _ = scrape(server.url)
    for _ in range(40):  # 120 kB of text that does not compress
        r = client.post(POSTS, {"type": "personal", "content": secrets.token_hex(1500)})
        assert r.status == 201, r
    after, _ = scrape(server.url)
    grown = value(after, "cps_database_size_bytes") - value(before, "cps_database_size_bytes")
    assert value(before, "cps_database_size_bytes") > 0
    assert grown >= 60_000, grown
    if server.backend == "sqlite":  # the file and its -wal, as the operator's `du` sees them
        files = [server.database, Path(f"{server.database}-wal")]
        assert value(after, "cps_database_size_bytes") == sum(
            f.stat().st_size for f in files if f.exists()
        )


def test_outbox_backlog_and_delivery_outcomes_come_from_the_database(server):
    """Deliveries are made by the dispatcher, another process: what it did
    shows at the next scrape of any worker."""
    key = create_key(server.database, user=f"m-{uuid.uuid4().hex[:8]}")
    client = Client(server.url, key, timeout=30)
    with (
        Receiver() as ok,
        Receiver(script=lambda arrival: Answer(410)) as gone,
    ):
        for receiver in (ok, gone):
            r = client.post(
                "/functions/v1/webhooks", {"url": receiver.url, "events": ["article.published"]}
            )
            assert r.status == 201, r
            receiver.secrets.append(r.json["secret"])
        before, _ = scrape(server.url)
        article = client.post("/functions/v1/articles-api", {"title": "Metrics"}).json
        r = client.patch(
            f"/functions/v1/articles-api-item/{article['id']}", {"status": "Published"}
        )
        assert r.status == 200, r
        waiting, _ = scrape(server.url)
        assert value(waiting, "cps_outbox_backlog") - value(before, "cps_outbox_backlog") == 2
        assert value(waiting, "cps_webhook_deliveries", outcome="pending") == value(
            waiting, "cps_outbox_backlog"
        )

        dispatcher = Dispatcher(
            server.database,
            name=f"metrics-{uuid.uuid4().hex[:6]}",
            log=server.tmp / "dispatcher.log",
            env={"FLASK_WEBHOOK_ALLOW_PRIVATE": "1", "FLASK_PUBLIC_URL": server.url},
        )
        with dispatcher:
            ok.wait_for(lambda arrivals: len(arrivals) == 1)
            gone.wait_for(lambda arrivals: len(arrivals) == 1)
            deadline = time.monotonic() + 15
            while True:  # the dispatcher records the outcome just after the answer
                done, _ = scrape(server.url)
                if value(done, "cps_outbox_backlog") == value(before, "cps_outbox_backlog"):
                    break
                assert time.monotonic() < deadline, "the deliveries were never recorded"
                time.sleep(0.1)

    def grew(outcome):
        return value(done, "cps_webhook_deliveries", outcome=outcome) - value(
            before, "cps_webhook_deliveries", outcome=outcome
        )

    assert grew("delivered") == 1 and grew("failed") == 1  # a 410 ends a delivery at once


# --- the multiprocess directory -------------------------------------------------------------


def metrics_directory(server):
    found = re.search(r"metrics: workers write them to (\S+?)\"", server.log_text())
    assert found, server.log_text()[-2000:]
    return Path(found.group(1))


def health_count(url):
    values, _ = scrape(url)
    return requests(values, "/health", "200")


def wait_for_new_worker(server, dead, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = server.worker_pids()
        if pids and dead not in pids:
            with Client(server.url, timeout=5) as client:
                if client.get("/health").status == 200:
                    return pids
        time.sleep(0.1)
    raise AssertionError("gunicorn did not replace the killed worker")


@pytest.mark.sqlite_only
def test_a_dead_workers_counts_stay_and_a_restart_starts_from_zero(tmp_path, monkeypatch):
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    log = tmp_path / "first.log"
    with serve(tmp_path, workers=1, env=SERVER_ENV, log=log) as server:
        directory = metrics_directory(server)
        start = health_count(server.url)  # serve() polled /health until it answered
        with Client(server.url, timeout=10) as client:
            for _ in range(5):
                assert client.get("/health").status == 200
        (worker,) = server.worker_pids()
        assert (directory / f"gauge_livesum_{worker}.db").exists()
        os.kill(worker, signal.SIGKILL)
        wait_for_new_worker(server, worker)
        # child_exit: the dead worker's in-progress gauge is gone, its counts are not.
        assert not (directory / f"gauge_livesum_{worker}.db").exists()
        assert (directory / f"counter_{worker}.db").exists()
        assert health_count(server.url) >= start + 5 + 1
        kept = tmp_path / "kept"
        kept.mkdir()
        for counts in directory.glob("*.db"):  # a directory left over by an earlier run
            shutil.copy(counts, kept)
    assert not directory.exists(), "gunicorn did not remove the directory it made"

    env = {**SERVER_ENV, "PROMETHEUS_MULTIPROC_DIR": str(kept)}
    with Gunicorn(server.database, workers=1, env=env, log=tmp_path / "second.log") as again:
        assert metrics_directory(again) == kept
        assert health_count(again.url) <= 2  # its own start-up polls only, not the last run's
    assert kept.is_dir(), "a directory the operator gave must stay"


def test_gunicorn_refuses_a_metrics_directory_it_cannot_write(tmp_path):
    env = {
        **SERVER_ENV,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "missing"),
        "PATH": "/usr/bin:/bin",
    }
    result = Gunicorn(tmp_path / "g.sqlite", env=env, inherit_env=False).run_to_exit(timeout=30)
    assert result.code == 1
    assert result.error_lines() == [
        f"error: cannot start: PROMETHEUS_MULTIPROC_DIR {tmp_path / 'missing'} "
        "is not a writable directory"
    ]
