"""Post history: every change of a post, in order, with the prefix of the key
that made it (null for the service), written with the change, never
holding a key or content, kept as long as the post."""

import pytest

from harness import Receiver
from harness.api import CALLBACK, CLAIM, HISTORY, ITEM, POSTS
from harness.clock import ahead
from tests.conftest import assert_error


@pytest.fixture(autouse=True)
def any_time(app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400


def history(api, post):
    r = api.get(HISTORY + post["id"])
    assert r.status_code == 200, r.get_json()
    return r.get_json()["data"]


def patch(api, post, body):
    r = api.patch(ITEM + post["id"], json=body)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_every_action_by_a_key_in_order(api, caller, stored, clock):
    other = caller("alice", scopes=["posts:read", "posts:write", "posts:publish"])  # a second key
    slots = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    api.post("/functions/v1/channels", json={"type": "personal", "name": "Me", "slots": slots})
    post = api.post(
        POSTS, json={"type": "personal", "content": "the secret text", "scheduled_at": ahead(-30)}
    ).get_json()
    patch(api, post, {"content": "the secret text, again"})  # updated
    patch(api, post, {"status": "Scheduled"})  # scheduled
    patch(other, post, {"status": "Draft"})  # unscheduled, by the other key
    assert (
        api.post("/functions/v1/api-v2-posts-queue", json={"post_id": post["id"]}).status_code
        == 200
    )  # queued
    patch(api, post, {"scheduled_at": ahead(-20)})  # scheduled again (rescheduled)
    (claimed,) = api.post(CLAIM, json={}).get_json()["data"]  # claimed
    patch(api, post, {"status": "Scheduled"})  # given_back
    api.post(CLAIM, json={})
    patch(api, post, {"status": "Failed", "last_error": "LinkedIn said no"})  # reported_failed
    patch(api, post, {"status": "Scheduled"})  # scheduled (a retry)
    api.post(CLAIM, json={"lease_seconds": 1})
    clock.advance(1.1)
    api.get(POSTS)  # the lease ran out: lease_expired, by the service
    body = {"post_id": post["id"], "linkedin_post_id": "urn:li:share:5"}
    assert other.post(CALLBACK, json=body).status_code == 200  # published, by the other key
    entries = history(api, post)
    actions = [e["action"] for e in entries]
    assert actions == [
        "created",
        "updated",
        "scheduled",
        "unscheduled",
        "queued",
        "scheduled",
        "claimed",
        "given_back",
        "claimed",
        "reported_failed",
        "scheduled",
        "claimed",
        "lease_expired",
        "published",
    ]
    mine, theirs = api.key[:13], other.key[:13]
    by = [e["key_prefix"] for e in entries]
    assert by == [
        mine,
        mine,
        mine,
        theirs,
        mine,
        mine,
        mine,
        mine,
        mine,
        mine,
        mine,
        mine,
        None,
        theirs,
    ]
    assert [(e["status_from"], e["status_to"]) for e in entries][:4] == [
        (None, "Draft"),
        ("Draft", "Draft"),
        ("Draft", "Scheduled"),
        ("Scheduled", "Draft"),
    ]
    assert entries[1]["fields"] == ["content"]
    assert (
        entries[6]["handoff_id"] == claimed["handoff_id"]
        and entries[7]["handoff_id"] == claimed["handoff_id"]
    )
    assert entries[-1]["detail"] == "urn:li:share:5"
    assert [e["at"] for e in entries] == sorted(e["at"] for e in entries)
    assert all(
        set(e)
        == {
            "at",
            "action",
            "status_from",
            "status_to",
            "fields",
            "key_prefix",
            "member",
            "handoff_id",
            "detail",
        }
        for e in entries
    )
    # each entry names the member whose key made it; the service's own, none
    named = [e["member"] and e["member"]["name"] for e in entries]
    assert [n is None for n in named] == [p is None for p in [e["key_prefix"] for e in entries]]
    everything = stored()
    assert b"secret text" not in b"".join(
        line for line in everything.split(b"\n") if b"post_history" in line
    )
    for e in entries:
        assert "secret" not in str(e) and api.key not in str(e)


def test_what_the_dispatcher_does_is_by_the_service(api, app, runner):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    with Receiver() as receiver:
        api.post("/functions/v1/webhooks", json={"url": receiver.url, "events": ["post.due"]})
        post = api.post(
            POSTS, json={"type": "personal", "content": "pushed", "scheduled_at": ahead(-10)}
        ).get_json()
        patch(api, post, {"status": "Scheduled"})
        result = runner.invoke(args=["dispatch", "--seconds", "1.5"])
        assert result.exit_code == 0, result.output
    entries = history(api, post)
    assert [(e["action"], e["key_prefix"]) for e in entries] == [
        ("created", api.key[:13]),
        ("scheduled", api.key[:13]),
        ("claimed", None),
        ("pushed", None),
    ]
    assert entries[2]["handoff_id"] == entries[3]["handoff_id"] is not None


def test_a_series_next_occurrence_says_so(api):
    post = api.post(
        POSTS,
        json={
            "type": "personal",
            "content": "weekly",
            "scheduled_at": "2031-01-06T09:00:00Z",
            "repeat": "FREQ=WEEKLY",
        },
    ).get_json()
    patch(api, post, {"status": "Scheduled"})
    api.post(CALLBACK, json={"post_id": post["id"], "linkedin_post_id": "urn:li:share:1"})
    following = api.get(f"{POSTS}?series_id={post['series_id']}&order=scheduled_at").get_json()[
        "data"
    ][1]
    (made,) = history(api, following)
    assert made["action"] == "occurrence_created" and made["key_prefix"] is None
    assert made["status_to"] == "Scheduled" and "occurrence 2" in made["detail"]


def test_an_import_row_is_created_by_its_key(api):
    api.post(
        "/functions/v1/api-v2-posts-import", json={"posts": [{"type": "personal", "content": "x"}]}
    )
    (post,) = api.get(POSTS).get_json()["data"]
    assert [(e["action"], e["key_prefix"]) for e in history(api, post)] == [
        ("created", api.key[:13])
    ]


def test_history_is_the_owners_and_goes_with_the_post(api, caller, count_rows):
    post = api.post(POSTS, json={"type": "personal", "content": "x"}).get_json()
    assert_error(caller("bob").get(HISTORY + post["id"]), 404, "not_found")
    assert_error(
        caller("rita", scopes=["posts:write"]).get(HISTORY + post["id"]), 403, "insufficient_scope"
    )
    assert count_rows("post_history") == 1
    assert api.client.delete(ITEM + post["id"], headers={"X-API-Key": api.key}).status_code == 204
    assert_error(api.get(HISTORY + post["id"]), 404, "not_found")
    assert count_rows("post_history") == 0


def test_a_refused_change_writes_no_history(api):
    post = api.post(POSTS, json={"type": "personal", "content": "x"}).get_json()
    assert_error(api.patch(ITEM + post["id"], json={"status": "Published"}), 409, "conflict")
    assert_error(api.patch(ITEM + post["id"], json={"content": ""}), 400, "validation_error")
    assert api.patch(ITEM + post["id"], json={"content": "x"}).status_code == 200  # nothing changes
    assert [e["action"] for e in history(api, post)] == ["created"]
