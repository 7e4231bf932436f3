"""An approve racing an edit, against real gunicorn with four workers, on
both backends: with If-Match, an approval never approves a text that was
not the one reviewed (posts/reviews.py: If-Match, and the write
conditional on that version in SQL).

Each round, the author submits a post and the reviewer reads it; then at
once the author edits it and submits it again, while the reviewer approves
the version read. Whichever lands first, a post that ends approved holds
the text the reviewer read, and an approve that was answered 2xx approved
that text.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import Client, create_key
from harness.api import POSTS
from tests.conftest import live_server, setup_command_in_process

# The PostgreSQL half of the live tests runs in make test too: an approve racing an edit: If-Match and the conditional write in each store.
pytestmark = pytest.mark.both_backends

ROUNDS = 18  # six at a time, each on its own post
ITEM = "/functions/v1/api-v2-posts-item/{}".format
REVIEW = "/functions/v1/api-v2-posts-review/{}".format


def member_key(database, name, role):
    out = setup_command_in_process(  # in the test's process, as create_key's setup is
        database, "members", "add", "--workspace", "race", "--name", name, "--role", role
    )
    return out.strip().splitlines()[-1]


def test_an_approve_racing_an_edit_never_approves_unreviewed_text(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "approval-race", workers=4) as server:
        owner = create_key(server.database, user="race")
        author_key = member_key(server.database, "author", "contributor")
        reviewer_key = member_key(server.database, "reviewer", "editor")
        with Client(server.url, owner) as client:
            assert client.patch("/functions/v1/workspace", {"approvals": "required"}).ok
        broken = []
        with ThreadPoolExecutor(6) as pool:
            outcomes = list(
                pool.map(
                    lambda n: one_round(server.url, author_key, reviewer_key, n, broken),
                    range(ROUNDS),
                )
            )
        with Client(server.url, owner) as client:
            posts = client.get(POSTS + "?limit=100").json["data"]
    assert not broken, broken
    approved = [p for p in posts if p["approved_by"] is not None]
    assert all(p["content"].endswith("as reviewed") for p in approved), approved
    assert len(posts) == ROUNDS and set(outcomes) <= {200, 409, 412}, outcomes
    print(f"approves: {sorted((s, outcomes.count(s)) for s in set(outcomes))}")


def one_round(url, author_key, reviewer_key, n, broken):
    """One race; the approve's status."""
    with Client(url, author_key) as author:
        post = author.post(POSTS, {"type": "personal", "content": f"round {n} as reviewed"}).json
        post = author.post(REVIEW(post["id"]), {"action": "submit"}).json["post"]
    with Client(url, reviewer_key) as reviewer:
        read = reviewer.get(ITEM(post["id"]))
    start = threading.Barrier(2, timeout=60)
    answers = {}

    def edit():
        with Client(url, author_key) as author:
            start.wait()
            author.patch(ITEM(post["id"]), {"content": f"round {n} edited after"})
            answers["resubmit"] = author.post(REVIEW(post["id"]), {"action": "submit"})

    def approve():
        with Client(url, reviewer_key) as reviewer:
            start.wait()
            answers["approve"] = reviewer.post(
                REVIEW(post["id"]),
                {"action": "approve"},
                headers={"If-Match": read.headers["etag"]},
            )

    threads = [threading.Thread(target=edit), threading.Thread(target=approve)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    answer = answers["approve"]
    if answer.ok and answer.json["post"]["content"] != f"round {n} as reviewed":
        broken.append(answer.json["post"])
    if answer.status is None or answer.status >= 500:
        broken.append(answer.text)
    return answer.status
