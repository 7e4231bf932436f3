"""Saved hashtag sets: GET/POST /hashtag-sets, GET/PATCH/DELETE
/hashtag-sets-item/{id}; names unique per owner (a 409, held by a unique
index), posts:read reads and posts:write changes."""

import threading

import pytest

from content_publishing.store.db import execute, transaction
from harness import Client, create_key
from tests.conftest import Caller, assert_error, live_server
from tests.test_members import add_member

SETS = "/functions/v1/hashtag-sets"
ITEM = "/functions/v1/hashtag-sets-item/"
GOOD = {"name": "SaaS launch", "hashtags": ["#B2B", "#Analytics", "#SaaS"]}


def delete(caller, path, headers=None):
    return caller.client.delete(path, headers=caller._headers(headers))


def made(api, **fields):
    r = api.post(SETS, json={**GOOD, **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_create_read_list_update_delete(api):
    r = api.post(SETS, json=GOOD)
    assert r.status_code == 201, r.get_json()
    saved = r.get_json()
    assert saved["name"] == GOOD["name"] and saved["hashtags"] == GOOD["hashtags"]
    assert saved["version"] == 1 and saved["created_at"] == saved["updated_at"]
    assert r.headers["Location"] == ITEM + saved["id"] and r.headers["ETag"] == '"1"'
    assert api.get(ITEM + saved["id"]).get_json() == saved
    other = made(api, name="Hiring", hashtags=["#hiring", "#jobs_2026", "#Über"])
    page = api.get(SETS).get_json()
    assert [s["id"] for s in page["data"]] == [saved["id"], other["id"]] and page["total"] == 2
    r = api.patch(ITEM + saved["id"], json={"hashtags": ["#B2B"]}, headers={"If-Match": '"1"'})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["hashtags"] == ["#B2B"] and r.get_json()["version"] == 2
    assert r.get_json()["name"] == GOOD["name"]
    assert_error(
        api.patch(ITEM + saved["id"], json={"name": "x"}, headers={"If-Match": '"1"'}),
        412,
        "precondition_failed",
    )
    assert delete(api, ITEM + saved["id"], {"If-Match": '"2"'}).status_code == 204
    assert_error(api.get(ITEM + saved["id"]), 404, "not_found")
    assert [s["id"] for s in api.get(SETS).get_json()["data"]] == [other["id"]]


def test_a_name_is_unique_per_owner(api, caller):
    first = made(api)
    error = assert_error(api.post(SETS, json={**GOOD, "hashtags": ["#Other"]}), 409, "conflict")
    assert error["details"] == {"name": GOOD["name"], "id": first["id"]}
    second = made(api, name="Other")
    error = assert_error(
        api.patch(ITEM + second["id"], json={"name": GOOD["name"]}), 409, "conflict"
    )
    assert error["details"]["id"] == first["id"]
    assert api.get(ITEM + second["id"]).get_json() == second  # nothing changed
    # Renaming a set to its own name, or another user using the name, is fine.
    assert api.patch(ITEM + first["id"], json={"name": GOOD["name"]}).status_code == 200
    assert caller("bob").post(SETS, json=GOOD).status_code == 201
    assert made(api, name="saas launch")["name"] == "saas launch"  # names match exactly
    assert api.get(SETS).get_json()["total"] == 3


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "hashtags", workers=4) as server:
        yield server


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_concurrent_creates_of_one_name_make_one_set(server):
    """The unique index holds when every request passes the read before the insert."""
    key = create_key(server.database, user="racer")
    barrier = threading.Barrier(6, timeout=60)
    answers = []

    def create():
        client = Client(server.url, key, timeout=30)
        barrier.wait()
        answers.append(client.post(SETS, GOOD).status)

    threads = [threading.Thread(target=create) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [201] + [409] * 5, answers
    assert Client(server.url, key).get(SETS).json["total"] == 1


@pytest.fixture
def crew(client, runner, make_key):
    """Workspace acme: its owner, an editor and two contributors: {name: Caller}."""
    found = {"owner": Caller(client, make_key("acme"))}
    for name, role in [("editor", "editor"), ("ann", "contributor"), ("bo", "contributor")]:
        found[name] = Caller(client, add_member(runner, "acme", name, role)[1])
    return found


def test_a_set_is_changed_only_by_its_maker_or_an_editor(crew):
    """A contributor renamed or deleted any member's set: now only their own."""
    theirs = made(crew["ann"])
    for body in ({"name": "renamed"}, {"hashtags": ["#mine"]}):
        error = assert_error(crew["bo"].patch(ITEM + theirs["id"], json=body), 403, "forbidden")
        assert error["details"] == {"role": "contributor"} and "another member" in error["message"]
    assert_error(delete(crew["bo"], ITEM + theirs["id"]), 403, "forbidden")
    assert crew["owner"].get(ITEM + theirs["id"]).get_json() == theirs  # nothing changed
    mine = made(crew["bo"], name="Bo's")
    assert crew["bo"].patch(ITEM + mine["id"], json={"name": "Bo's own"}).status_code == 200
    assert delete(crew["bo"], ITEM + mine["id"]).status_code == 204
    r = crew["ann"].patch(ITEM + theirs["id"], json={"hashtags": ["#B2B"]})
    assert r.status_code == 200 and r.get_json()["version"] == 2
    r = crew["editor"].patch(ITEM + theirs["id"], json={"name": "Edited"})
    assert r.status_code == 200 and r.get_json()["name"] == "Edited"
    assert delete(crew["owner"], ITEM + theirs["id"]).status_code == 204


def test_a_set_made_before_its_maker_was_recorded_is_an_editors_to_change(crew, app):
    old = made(crew["ann"])
    with app.app_context(), transaction():
        execute("UPDATE hashtag_sets SET created_by = NULL WHERE id = ?", (old["id"],))
    assert_error(crew["ann"].patch(ITEM + old["id"], json={"name": "x"}), 403, "forbidden")
    assert_error(delete(crew["ann"], ITEM + old["id"]), 403, "forbidden")
    assert crew["editor"].patch(ITEM + old["id"], json={"name": "x"}).status_code == 200


def test_other_users_sets_are_404(api, caller):
    saved = made(api)
    bob = caller("bob")
    assert_error(bob.get(ITEM + saved["id"]), 404, "not_found")
    assert_error(bob.patch(ITEM + saved["id"], json={"name": "mine"}), 404, "not_found")
    assert_error(delete(bob, ITEM + saved["id"]), 404, "not_found")
    assert bob.get(SETS).get_json()["total"] == 0
    assert api.get(ITEM + saved["id"]).get_json() == saved


def test_posts_read_reads_and_posts_write_changes(api, caller):
    saved = made(api)
    reader = caller("alice", scopes=["posts:read"])
    assert reader.get(SETS).status_code == 200 and reader.get(ITEM + saved["id"]).status_code == 200
    for r in (
        reader.post(SETS, json={**GOOD, "name": "new"}),
        reader.patch(ITEM + saved["id"], json={"name": "new"}),
        delete(reader, ITEM + saved["id"]),
    ):
        error = assert_error(r, 403, "insufficient_scope")
        assert error["details"]["required_scope"] == "posts:write"
    writer = caller("alice", scopes=["articles:read"])
    error = assert_error(writer.get(SETS), 403, "insufficient_scope")
    assert error["details"]["required_scope"] == "posts:read"
    assert api.get(SETS).get_json()["total"] == 1


BAD_SETS = [
    ({"hashtags": ["#a"]}, "name"),
    ({"name": "", "hashtags": ["#a"]}, "name"),
    ({"name": "   ", "hashtags": ["#a"]}, "name"),
    ({"name": "x" * 51, "hashtags": ["#a"]}, "name"),
    ({"name": "a\u0000b", "hashtags": ["#a"]}, "name"),
    ({"name": 5, "hashtags": ["#a"]}, "name"),
    ({"name": "n"}, "hashtags"),
    ({"name": "n", "hashtags": []}, "hashtags"),
    ({"name": "n", "hashtags": [f"#t{n}" for n in range(31)]}, "hashtags"),
    ({"name": "n", "hashtags": "#a #b"}, "hashtags"),
    ({"name": "n", "hashtags": ["B2B"]}, "hashtags"),
    ({"name": "n", "hashtags": ["#"]}, "hashtags"),
    ({"name": "n", "hashtags": ["#two words"]}, "hashtags"),
    ({"name": "n", "hashtags": ["##B2B"]}, "hashtags"),
    ({"name": "n", "hashtags": ["#_B2B"]}, "hashtags"),
    ({"name": "n", "hashtags": ["#B2B!"]}, "hashtags"),
    ({"name": "n", "hashtags": ["#B2B", "#b2b"]}, "hashtags"),
    ({"name": "n", "hashtags": ["#" + "a" * 100]}, "hashtags"),
    ({"name": "n", "hashtags": [5]}, "hashtags"),
    ({"name": "n", "hashtags": ["#a"], "id": "x"}, "id"),
    ({"name": "n", "hashtags": ["#a"], "colour": "red"}, "colour"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_SETS)
def test_bad_sets_are_400_naming_the_field(api, body, field):
    error = assert_error(api.post(SETS, json=body), 400, "validation_error")
    assert any(key.split(".")[0] == field for key in error["details"]), error
    saved = made(api)
    patch = {k: v for k, v in body.items() if k != "name" or field == "name"}
    if field in ("name", "hashtags") and field in patch:
        error = assert_error(
            api.patch(ITEM + saved["id"], json={field: patch[field]}), 400, "validation_error"
        )
        assert any(key.split(".")[0] == field for key in error["details"]), error
    assert api.get(SETS).get_json()["data"] == [saved]


@pytest.mark.backend_independent
def test_thirty_tags_and_fifty_characters_are_kept(api):
    body = {"name": "n" * 50, "hashtags": [f"#t{n}" for n in range(30)]}
    saved = made(api, **body)
    assert saved["name"] == body["name"] and saved["hashtags"] == body["hashtags"]
