"""A recurring post across a restart of real gunicorn: its lease runs out
while the service is down, and the series goes on from now, skipping the
instants that passed (tests/test_recurrence.py has the rest)."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from harness import Client, Gunicorn, create_key, serve
from harness.api import CLAIM, ITEM, POSTS
from tests.conftest import live_database_for


@pytest.fixture
def live(tmp_path, live_backend):
    with live_database_for(live_backend) as database:
        yield tmp_path, database


def test_a_series_survives_a_restart_and_its_lease_expiry_continues_it(live):
    tmp, database = live
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-999999999"}
    with serve(tmp, workers=1, env=env, database=database) as server:
        key = create_key(server.database)
        client = Client(server.url, key)
        post = client.post(
            POSTS,
            {
                "type": "personal",
                "content": "x",
                "scheduled_at": "2020-06-02T09:00:00Z",
                "repeat": "FREQ=DAILY",
            },
        ).json
        assert client.patch(ITEM + post["id"], {"status": "Scheduled"}).status == 200
        assert client.post(CLAIM, {"lease_seconds": 1}).json["data"][0]["id"] == post["id"]
        database_path = server.database
    time.sleep(1.2)  # the lease runs out while the service is down
    with Gunicorn(database_path, workers=1, env={"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "1"}) as server:
        client = Client(server.url, key)
        listed = client.get(f"{POSTS}?series_id={post['series_id']}&order=scheduled_at").json[
            "data"
        ]
    assert [p["status"] for p in listed] == ["Failed", "Scheduled"]
    following = datetime.fromisoformat(listed[1]["scheduled_at"])
    assert following > datetime.now(UTC) - timedelta(minutes=1)  # not a day in 2020
    assert following.time() == datetime(2020, 6, 2, 9, 0).time()
