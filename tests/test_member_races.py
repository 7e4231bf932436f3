"""An invitation taken up while a member is removed, against real gunicorn
with four workers, on both backends: the accept and the removal take their
locks in one order (the workspace's row first: workspaces/members.py), so
neither is ever a 503 (PostgreSQL found them deadlocked, and answered
`busy`), and whichever lands first, the end is what it says.

Each round: the invitee's token is taken up at the moment the invitee is
removed; or at the moment whoever invited them is removed (which ends the
invitations they made).
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import Client, create_key
from tests.conftest import live_server

# The PostgreSQL half of the live tests runs in make test too: the lock order of an accept and a removal, in each store.
pytestmark = pytest.mark.both_backends

ROUNDS = 12
MEMBERS = "/functions/v1/members"
MEMBER = "/functions/v1/members-item/{}".format
ACCEPT = "/functions/v1/invites-accept"
ME = "/functions/v1/me"


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "member-races", workers=4) as server:
        yield server


def invited(client, name, role="admin"):
    """(member id, token) of a new invitation made with `client`'s key."""
    r = client.post(MEMBERS, {"name": name, "role": role})
    assert r.status == 201, r
    return r.json["id"], r.json["invite_url"].rsplit("/", 1)[1]


def at_once(*calls):
    """Run the calls at the same moment; their answers, in order."""
    start = threading.Barrier(len(calls), timeout=60)

    def run(call):
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def test_an_accept_racing_the_invitees_removal(server):
    owner = create_key(server.database, user="races")
    outcomes = []

    def one_round(n):
        with Client(server.url, owner) as client, Client(server.url) as stranger:
            member_id, token = invited(client, f"invitee-{n}")
            accepted, removed = at_once(
                lambda: stranger.post(ACCEPT, {"token": token}),
                lambda: client.delete(MEMBER(member_id)),
            )
            assert removed.status == 204, removed
            assert accepted.status in (201, 410), accepted
            if accepted.status == 201:  # accepted first: its key went with the removal
                with Client(server.url, accepted.json["key"]) as invitee:
                    assert invitee.get(ME).status == 401
            listed = {m["id"]: m for m in client.get(MEMBERS).json["data"]}
            assert listed[member_id]["removed_at"] is not None
            return accepted.status

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(one_round, range(ROUNDS)))
    assert set(outcomes) <= {201, 410}, outcomes
    print(f"accepts: {sorted((s, outcomes.count(s)) for s in set(outcomes))}")


def test_an_accept_racing_the_removal_of_whoever_invited(server):
    owner = create_key(server.database, user="races-inviters")

    def one_round(n):
        with Client(server.url, owner) as client, Client(server.url) as stranger:
            admin_id, admin_token = invited(client, f"inviter-{n}")
            taken = stranger.post(ACCEPT, {"token": admin_token})
            assert taken.status == 201, taken
            with Client(server.url, taken.json["key"]) as admin:
                member_id, token = invited(admin, f"their-invitee-{n}")
            accepted, removed = at_once(
                lambda: stranger.post(ACCEPT, {"token": token}),
                lambda: client.delete(MEMBER(admin_id)),
            )
            assert removed.status == 204, removed
            assert accepted.status in (201, 410), accepted
            # taken up before the removal, the key stays; else the invitation is gone
            again = stranger.post(ACCEPT, {"token": token})
            assert again.status == 410, again
            if accepted.status == 201:
                with Client(server.url, accepted.json["key"]) as invitee:
                    assert invitee.get(ME).status == 200
            return accepted.status

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(one_round, range(ROUNDS)))
    assert set(outcomes) <= {201, 410}, outcomes
    print(f"accepts: {sorted((s, outcomes.count(s)) for s in set(outcomes))}")
