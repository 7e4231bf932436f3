"""Every "at most one" rule is held by the database itself, proven with
concurrent requests to real gunicorn on both backends.

One enabled post.due endpoint per user: a due post is pushed to every
enabled post.due endpoint of its user, so a second one would have two
automations publish the same post. On PostgreSQL, under READ COMMITTED, a
read before the write let three of twelve concurrent saves through; the
unique index webhook_endpoints_one_post_due refuses them now.

At most daily_cap planned posts a day on a channel (here 1): every way of
scheduling into a channel locks the channel's row, and the guards count
the channel's posts by the channel they belong to; a brand_id can never be
`personal`, which once let brand posts onto the personal channel's lock
without being counted.

One personal channel per member: twelve creates of a member's profile at
once make one (the unique index channels_member), and twelve members
creating theirs at once each get one, one of them the id `personal` (its
primary key: the others take an id of their own).

One demo key, only while no key exists (`flask keys demo`, which `make run`
runs): the demo user's row is locked before the count.
"""

import importlib
import threading

import pytest

from harness import Client, create_key, flask_cli, init_database
from harness.api import CHANNELS, HOOK, HOOKS, IMPORT, ITEM, POSTS
from tests.conftest import live_database_for, live_server

# The PostgreSQL half of the live tests runs in make test too: the database's own unique indexes and row locks, raced.
pytestmark = pytest.mark.both_backends

RACERS = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "at-most-one", workers=6) as server:
        yield server


def race(url, key, requests):
    """Send `requests` [(method, path, body)] at once, one thread each, all
    released by one barrier; their statuses in order."""
    barrier = threading.Barrier(len(requests), timeout=60)
    statuses = [None] * len(requests)

    def send(i, method, path, body):
        client = Client(url, key, timeout=30)
        barrier.wait()
        statuses[i] = client.request(method, path, body).status

    threads = [
        threading.Thread(target=send, args=(i, *request)) for i, request in enumerate(requests)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def endpoint(n, events=("post.due",)):
    return {"url": f"https://93.184.215.14/hooks/{n}", "events": list(events)}


def enabled_post_due(client):
    hooks = client.get(f"{HOOKS}?limit=100").json["data"]
    return [h for h in hooks if h["enabled"] and "post.due" in h["events"]]


def test_concurrent_creates_leave_one_enabled_post_due_endpoint(server):
    key = create_key(server.database, user="creator")
    statuses = race(server.url, key, [("POST", HOOKS, endpoint(n)) for n in range(RACERS)])
    assert sorted(statuses) == [201] + [409] * (RACERS - 1), statuses
    assert len(enabled_post_due(Client(server.url, key))) == 1


def test_concurrent_enables_leave_one_enabled_post_due_endpoint(server):
    key = create_key(server.database, user="enabler")
    client = Client(server.url, key)
    ids = []
    for n in range(RACERS):  # one at a time: each is created enabled, then disabled
        r = client.post(HOOKS, endpoint(n))
        assert r.status == 201, r.json
        ids.append(r.json["id"])
        assert client.patch(HOOK + ids[-1], {"enabled": False}).status == 200
    statuses = race(server.url, key, [("PATCH", HOOK + i, {"enabled": True}) for i in ids])
    assert sorted(statuses) == [200] + [409] * (RACERS - 1), statuses
    assert len(enabled_post_due(client)) == 1


def test_concurrent_event_changes_leave_one_enabled_post_due_endpoint(server):
    """The same rule when enabled endpoints start asking for post.due."""
    key = create_key(server.database, user="subscriber")
    client = Client(server.url, key)
    ids = [
        client.post(HOOKS, endpoint(n, events=["post.failed"])).json["id"] for n in range(RACERS)
    ]
    body = {"events": ["post.failed", "post.due"]}
    statuses = race(server.url, key, [("PATCH", HOOK + i, body) for i in ids])
    assert sorted(statuses) == [200] + [409] * (RACERS - 1), statuses
    assert len(enabled_post_due(client)) == 1


def test_concurrent_schedulings_keep_a_daily_cap_of_one(server):
    key = create_key(server.database, user="capped")
    client = Client(server.url, key)
    channel = {"type": "personal", "name": "Me", "daily_cap": 1, "author_urn": "urn:li:person:me"}
    assert client.post(CHANNELS, channel).status == 201
    day = "2031-05-05"
    sneaking = {"type": "brand", "brand_id": "personal", "content": "x"}
    refused = client.post(POSTS, {**sneaking, "scheduled_at": f"{day}T09:00:00Z"})
    assert refused.status == 400 and "brand_id" in refused.json["error"]["details"]
    requests = []
    for n in range(RACERS // 2):  # Drafts of that day, scheduled by PATCH...
        body = {"type": "personal", "content": f"p{n}", "scheduled_at": f"{day}T{8 + n:02d}:00:00Z"}
        requests.append(
            ("PATCH", ITEM + client.post(POSTS, body).json["id"], {"status": "Scheduled"})
        )
    for n in range(RACERS // 2):  # ...and imported as Scheduled
        row = {"type": "personal", "content": f"i{n}", "scheduled_at": f"{day}T{14 + n:02d}:30:00Z"}
        requests.append(("POST", IMPORT, {"posts": [row]}))
    statuses = race(server.url, key, requests)
    # one gets the day; the others get 409 schedule_conflict (PATCH) or 400 (the import's row)
    assert len([s for s in statuses if s in (200, 201)]) == 1, statuses
    assert all(s in (200, 201, 400, 409) for s in statuses), statuses
    planned = client.get(
        f"{POSTS}?status=Scheduled&scheduled_after={day}T00:00:00Z"
        f"&scheduled_before={day}T23:59:59Z&limit=1"
    ).json
    assert planned["total"] == 1


def test_concurrent_demo_keys_make_one_key(tmp_path, live_backend):
    with live_database_for(live_backend) as url:
        database = init_database(url or tmp_path / "demo.sqlite")
        outputs = [None] * 8
        barrier = threading.Barrier(len(outputs), timeout=60)

        def demo(i):
            barrier.wait()
            outputs[i] = flask_cli(database, "keys", "demo")

        threads = [threading.Thread(target=demo, args=(i,)) for i in range(len(outputs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        created = [o for o in outputs if "Created demo key" in o]
        assert len(created) == 1, outputs
        assert flask_cli(database, "keys", "list").count("demo") == 1


def member_keys(server, workspace, count):
    """`flask members add` for `count` editors of `workspace`: their keys."""
    setup = importlib.import_module("harness.flask_cli")
    return [
        setup.run_setup_command(
            server.database,
            "members",
            "add",
            "--workspace",
            workspace,
            "--name",
            f"m{n}",
            "--role",
            "editor",
        )
        .strip()
        .splitlines()[-1]
        for n in range(count)
    ]


def personal_channels(client):
    return [c for c in client.get(f"{CHANNELS}?limit=100").json["data"] if c["kind"] == "personal"]


def test_concurrent_creates_of_a_members_profile_make_one(server):
    key = create_key(server.database, user="profiled")
    body = {"type": "personal", "name": "Me"}
    statuses = race(server.url, key, [("POST", CHANNELS, body)] * RACERS)
    assert sorted(statuses) == [201] + [409] * (RACERS - 1), statuses
    assert len(personal_channels(Client(server.url, key))) == 1


def test_members_creating_their_profiles_at_once_each_get_one(server):
    owner = create_key(server.database, user="team-of-twelve")
    keys = member_keys(server, "team-of-twelve", RACERS)
    barrier = threading.Barrier(RACERS, timeout=60)
    statuses = [None] * RACERS

    def send(i):
        client = Client(server.url, keys[i], timeout=30)
        barrier.wait()
        statuses[i] = client.post(CHANNELS, {"type": "personal", "name": f"m{i}"}).status

    threads = [threading.Thread(target=send, args=(i,)) for i in range(RACERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [201] * RACERS, statuses
    made = personal_channels(Client(server.url, owner))
    assert len({c["member"]["id"] for c in made}) == RACERS
    assert sum(c["id"] == "personal" for c in made) == 1
