"""One sign-in link sent by 12 clients at once, against real gunicorn with
four workers, on both backends: exactly one gets a session (the link is
taken up by one conditional update: accounts/links.py), the others a 410
`link_used`, none a 5xx; and the one session works on every worker."""

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import Client, create_key
from harness.flask_cli import flask_cli
from tests.conftest import live_server

# The single use of a link is the store's conditional update: proven on both backends.
pytestmark = pytest.mark.both_backends

CLIENTS = 12
LINK_USE = "/functions/v1/session-link-use"
MEMBERS = "/functions/v1/members"
ME = "/functions/v1/me"


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "signin-races", workers=4) as server:
        yield server


def test_twelve_sign_ins_with_one_link_make_one_session(server):
    owner = create_key(server.database, user="signin-races")
    with Client(server.url, owner) as client:
        r = client.post(MEMBERS, {"name": "dana", "email": "dana@example.com", "role": "editor"})
        assert r.status == 201, r
    printed = flask_cli(server.database, "accounts", "link", "dana@example.com")
    token = re.search(r"#/link/(\S+)", printed)[1]
    start = threading.Barrier(CLIENTS, timeout=60)

    def sign_in(_):
        with Client(server.url) as stranger:
            start.wait()
            answer = stranger.post(LINK_USE, {"token": token})
            return answer.status, answer.headers.get("set-cookie", "")

    with ThreadPoolExecutor(CLIENTS) as pool:
        outcomes = list(pool.map(sign_in, range(CLIENTS)))
    statuses = sorted(status for status, _ in outcomes)
    assert statuses == [201] + [410] * (CLIENTS - 1), statuses
    cookie = next(c for status, c in outcomes if status == 201).split(";", 1)[0]
    for _ in range(8):  # every worker knows the one session
        with Client(server.url) as browser:
            me = browser.get(ME, headers={"Cookie": cookie})
            assert me.status == 200, me
            assert me.json["member"]["name"] == "dana"
