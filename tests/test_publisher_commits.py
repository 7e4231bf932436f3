"""The publisher's threads' writes committed together (publisher/commits.py),
on both backends: writes from many threads come back each with its own
result once committed, and are durable; one write that raises fails its
own thread alone, and what it wrote is undone while the others of its
group are kept. Each write here is a PATCH of a post's content through the
domain (posts.update), read back through the API."""

import threading

from content_publishing import auth, posts, timestamps
from content_publishing.publisher.commits import GroupCommit, _Write
from content_publishing.store import keys as key_store
from content_publishing.store import posts as post_store
from harness.api import ITEM, POSTS


def drafts(api, n):
    made = []
    for i in range(n):
        r = api.post(POSTS, json={"type": "personal", "content": f"Draft {i}"})
        assert r.status_code == 201, r.get_json()
        made.append(r.get_json())
    return made


def content_write(post, text, fail=False):
    """A write as the publisher's threads hand one over: the post's content
    changed through the domain (inside the committer's transaction); with
    `fail`, it raises after writing."""

    def write():
        ws = post["workspace_id"]
        locked = post_store.lock_post(ws, post["id"])
        done = posts.update(ws, locked, {"content": text}, auth.SCOPES, 0, timestamps.now_text())
        if fail:
            raise ValueError(f"refused {text}")
        return done["content"]

    return write


def workspace_of(app, key):
    """The workspace of the test's key."""
    with app.app_context():
        return key_store.find_key(auth.hash_key(key))["workspace_id"]


def test_writes_of_many_threads_each_get_their_result_once_committed(app, api, key):
    made = drafts(api, 12)
    workspace = workspace_of(app, key)
    commit = GroupCommit()
    results, errors = {}, []

    def one(post, i):
        with app.app_context():
            try:
                results[post["id"]] = commit(
                    content_write({**post, "workspace_id": workspace}, f"Changed {i}")
                )
            except Exception as error:  # the test reports it
                errors.append(error)

    threads = [threading.Thread(target=one, args=(p, i)) for i, p in enumerate(made)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert results == {p["id"]: f"Changed {i}" for i, p in enumerate(made)}
    for i, post in enumerate(made):
        shown = api.get(ITEM + post["id"]).get_json()
        assert (shown["content"], shown["version"]) == (f"Changed {i}", 2)


def test_a_write_that_raises_fails_alone_and_its_change_is_undone(app, api, key):
    first, bad, last = drafts(api, 3)
    workspace = workspace_of(app, key)
    group = [
        _Write(content_write({**first, "workspace_id": workspace}, "Kept first")),
        _Write(content_write({**bad, "workspace_id": workspace}, "Never kept", fail=True)),
        _Write(content_write({**last, "workspace_id": workspace}, "Kept last")),
    ]
    with app.app_context():
        GroupCommit()._commit(group)  # one group, as the committer takes them
    assert all(job.done.is_set() for job in group)
    assert [job.result for job in group] == ["Kept first", None, "Kept last"]
    assert group[0].error is None and group[2].error is None
    assert isinstance(group[1].error, ValueError)
    assert api.get(ITEM + first["id"]).get_json()["content"] == "Kept first"
    assert api.get(ITEM + last["id"]).get_json()["content"] == "Kept last"
    unchanged = api.get(ITEM + bad["id"]).get_json()
    assert (unchanged["content"], unchanged["version"]) == ("Draft 1", 1)
