"""LinkedIn's length limit: 3,000 characters of escaped commentary, counted in
UTF-16 code units (docs/linkedin.md#length). A post over it cannot be
Scheduled by any path (a PATCH, the queue, an import), and a post over it
that is Scheduled already (scheduled before the limit was checked) is never
handed over by a claim or a post.due push: it becomes Failed, saying why.
Drafts may be longer. The preview's over_length warning counts the same way.
The claim and push against real gunicorn are in the second half."""

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from content_publishing.store.db import execute, transaction
from content_publishing.timestamps import later, now_text
from harness import Client, Receiver
from harness.api import API, CHANNELS, CLAIM, DELIVERIES, HISTORY, HOOKS, IMPORT, ITEM, POSTS, QUEUE
from tests.conftest import assert_error
from tests.dispatch_support import (
    add_endpoint,
    dispatch_server,
    dispatcher_starter,
    new_user,
    server_store,
    wait_until,
)

PREVIEW = f"{API}/api-v2-posts-preview"
ROCKET = "🚀"  # outside the BMP: one code point, two UTF-16 code units

# (content, its escaped length in UTF-16 code units): each within the 3,000
# characters a create takes, each over LinkedIn's limit once escaped
TOO_LONG = [
    ("(" * 1501, 3002),
    ("_" * 1000 + "x" * 1001, 3001),
    (ROCKET * 1501, 3002),
    ("a" * 2999 + ROCKET, 3001),  # 3,000 code points: over only in UTF-16
    ("@[Ann](urn:li:person:a1) " + "*" * 1490, 3005),
]
# ... and each exactly at the limit or under it
FITS = [
    ("(" * 1500, 3000),
    ("x" * 3000, 3000),
    (ROCKET * 1500, 3000),
    ("a" * 2998 + ROCKET, 3000),
    ("see https://x.example/abc" + "a_(b)" * 595, 3000),  # a URL is not escaped
]


def soon(seconds=3600):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def draft(api, content, **fields):
    r = api.post(POSTS, json={"type": "personal", "content": content, **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def assert_refused_for_length(response, escaped):
    error = assert_error(response, 400, "validation_error")
    assert list(error["details"]) == ["content"], error
    (message,) = error["details"]["content"]
    assert f"{escaped} characters" in message and "3000" in message
    return error


def unchanged(api, post):
    """The stored post is exactly as it was: a refused write changed nothing."""
    assert api.get(ITEM + post["id"]).get_json() == post


# --- drafts may be longer; counting --------------------------------------------------------


@pytest.mark.parametrize("content, escaped", TOO_LONG + FITS)
def test_a_draft_takes_any_text_a_create_takes_and_the_preview_counts_it(api, content, escaped):
    assert draft(api, content)["content"] == content
    edited = api.patch(ITEM + draft(api, "short")["id"], json={"content": content})
    assert edited.status_code == 200 and edited.get_json()["status"] == "Draft"
    body = api.post(PREVIEW, json={"type": "personal", "content": content}).get_json()
    warned = "over_length" in [w["code"] for w in body["warnings"]]
    assert warned is (escaped > 3000)
    assert body["characters"] == len(content.encode("utf-16-le")) // 2
    commentary = body["linkedin_request"]["body"]["commentary"]
    assert len(commentary.encode("utf-16-le")) // 2 == escaped


def test_the_create_limit_is_unchanged(api):
    """3,000 characters (code points) of raw text, as before."""
    assert draft(api, ROCKET * 3000)["status"] == "Draft"
    error = assert_error(
        api.post(POSTS, json={"type": "personal", "content": "x" * 3001}), 400, "validation_error"
    )
    assert "content" in error["details"]


# --- every way into Scheduled refuses -------------------------------------------------------


@pytest.mark.parametrize("content, escaped", TOO_LONG)
def test_a_draft_over_the_limit_cannot_be_scheduled(api, content, escaped):
    post = draft(api, content, scheduled_at=soon())
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled"}, headers={"If-Match": '"1"'})
    assert_refused_for_length(r, escaped)
    unchanged(api, post)


@pytest.mark.parametrize("content, escaped", FITS)
def test_a_draft_at_the_limit_is_scheduled(api, content, escaped):
    post = draft(api, content, scheduled_at=soon())
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled", r.get_json()


def scheduled(api, content="fits", seconds=3600):
    post = draft(api, content, scheduled_at=soon(seconds))
    r = api.patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def failed(api):
    post = scheduled(api)
    r = api.patch(ITEM + post["id"], json={"status": "Failed", "last_error": "no token"})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


LONG, LONG_ESCAPED = TOO_LONG[0]

STANDING = {
    "Draft": lambda api: draft(api, "fits", scheduled_at=soon()),
    "Scheduled": scheduled,
    "Failed": failed,
}
# (how the post stands, a PATCH that would leave it Scheduled over the limit)
BAD_SCHEDULING_PATCHES = [
    ("Draft", {"status": "Scheduled", "content": LONG}),
    ("Scheduled", {"content": LONG}),
    ("Scheduled", {"content": LONG, "scheduled_at": soon(7200)}),
    ("Scheduled", {"content": TOO_LONG[3][0], "media_urls": ["https://cdn.example.com/a.png"]}),
    ("Failed", {"status": "Scheduled", "content": LONG}),
]


@pytest.mark.parametrize("standing, body", BAD_SCHEDULING_PATCHES)
def test_no_patch_leaves_a_post_scheduled_over_the_limit(api, standing, body):
    post = STANDING[standing](api)
    r = api.patch(ITEM + post["id"], json=body)
    assert_refused_for_length(r, TOO_LONG[3][1] if body["content"] != LONG else LONG_ESCAPED)
    unchanged(api, post)


def test_a_long_post_can_still_leave_scheduled(api, app):
    """Unscheduling or failing a post scheduled before the limit was
    checked is never refused for its length."""
    for to in ({"status": "Draft"}, {"status": "Failed", "last_error": "too long"}):
        post = draft(api, LONG, scheduled_at=soon())
        legacy = scheduled_before_the_limit(app, api, post)
        r = api.patch(ITEM + post["id"], json=to)
        assert r.status_code == 200 and r.get_json()["status"] == to["status"], r.get_json()
        assert r.get_json()["version"] == legacy["version"] + 1


def test_queueing_a_long_post_is_refused(api):
    r = api.post(
        CHANNELS,
        json={"type": "personal", "name": "Me", "slots": [{"day": "mon", "time": "09:00"}]},
    )
    assert r.status_code == 201, r.get_json()
    long = draft(api, LONG)
    assert_refused_for_length(api.post(QUEUE, json={"post_id": long["id"]}), LONG_ESCAPED)
    unchanged(api, long)
    fits = draft(api, FITS[0][0])
    r = api.post(QUEUE, json={"post_id": fits["id"]})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled", r.get_json()


def row(content, **fields):
    return {"type": "personal", "content": content, **fields}


@pytest.mark.parametrize(
    "rows, bad",
    [
        ([row(LONG, scheduled_at=soon())], ["1"]),
        ([row("fits", scheduled_at=soon()), row(LONG, queue=True)], ["2"]),
        ([row(LONG), row(TOO_LONG[3][0], scheduled_at=soon()), row(LONG, queue=True)], ["2", "3"]),
    ],
)
def test_an_import_that_would_schedule_a_long_post_imports_nothing(api, rows, bad):
    api.post(
        CHANNELS,
        json={"type": "personal", "name": "Me", "slots": [{"day": "tue", "time": "09:00"}]},
    )
    error = assert_error(api.post(IMPORT, json={"posts": rows}), 400, "validation_error")
    assert sorted(error["details"]["rows"]) == bad
    for n in bad:
        assert list(error["details"]["rows"][n]) == ["content"]
        assert "3000" in error["details"]["rows"][n]["content"][0]
    assert api.get(POSTS).get_json()["total"] == 0


def test_an_import_keeps_long_drafts(api):
    r = api.post(IMPORT, json={"posts": [row(LONG), row(FITS[0][0], scheduled_at=soon())]})
    assert r.status_code == 201, r.get_json()
    assert [p["status"] for p in r.get_json()["data"]] == ["Draft", "Scheduled"]


# --- a long post Scheduled already is never handed over -------------------------------------


def scheduled_before_the_limit(app, api, post, seconds=-60):
    """`post` (a Draft) as a post scheduled before the limit was checked:
    Scheduled, due `seconds` from now, its version moved on as a schedule
    would. Written straight into the database, as no request can."""
    with app.app_context():
        with transaction():
            execute(
                "UPDATE posts SET status = 'Scheduled', scheduled_at = ?, version = version + 1"
                " WHERE id = ?",
                (later(now_text(), seconds), post["id"]),
            )
    return api.get(ITEM + post["id"]).get_json()


def refused_entry(api, post):
    entries = api.get(HISTORY + post["id"]).get_json()["data"]
    (entry,) = [e for e in entries if e["action"] == "refused"]
    return entry


def test_a_claim_fails_a_long_post_and_hands_over_the_next(api, app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    long = scheduled_before_the_limit(app, api, draft(api, LONG), seconds=-120)
    fits = scheduled(api, "fits", seconds=-60)
    claimed = api.post(CLAIM, json={"limit": 1}).get_json()["data"]
    assert [p["id"] for p in claimed] == [fits["id"]]  # the next due post took its place
    after = api.get(ITEM + long["id"]).get_json()
    assert after["status"] == "Failed" and after["handoff_count"] == 0
    assert after["last_error"].startswith("Not handed to the automation.")
    assert f"{LONG_ESCAPED} characters" in after["last_error"]
    entry = refused_entry(api, long)
    assert (entry["status_from"], entry["status_to"], entry["key_prefix"]) == (
        "Scheduled",
        "Failed",
        None,
    )
    assert api.post(CLAIM, json={}).get_json()["data"] == []
    # it can be shortened and scheduled again
    r = api.patch(ITEM + long["id"], json={"status": "Scheduled", "content": "shorter"})
    assert r.status_code == 200, r.get_json()
    assert [p["id"] for p in api.post(CLAIM, json={}).get_json()["data"]] == [long["id"]]


def test_a_claim_with_only_long_posts_due_hands_over_nothing(api, app):
    longs = [scheduled_before_the_limit(app, api, draft(api, content)) for content, _ in TOO_LONG]
    assert api.post(CLAIM, json={"limit": 2}).get_json()["data"] == []
    assert {api.get(ITEM + p["id"]).get_json()["status"] for p in longs} == {"Failed"}


def test_a_long_post_not_due_yet_is_left_alone(api, app):
    long = scheduled_before_the_limit(app, api, draft(api, LONG), seconds=3600)
    assert api.post(CLAIM, json={}).get_json()["data"] == []
    unchanged(api, long)


def test_a_refused_post_is_a_post_failed_event(api, app, runner):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    with Receiver() as receiver:
        hook = api.post(HOOKS, json={"url": receiver.url, "events": ["post.failed"]}).get_json()
        receiver.secrets.append(hook["secret"])
        long = scheduled_before_the_limit(app, api, draft(api, LONG))
        assert api.post(CLAIM, json={}).get_json()["data"] == []
        result = runner.invoke(args=["dispatch", "--seconds", "1"])
        assert result.exit_code == 0, result.output
        (arrival,) = receiver.wait_for(lambda arrivals: arrivals, what="post.failed")
    assert arrival.type == "post.failed" and arrival.json["data"]["id"] == long["id"]
    assert arrival.json["data"]["last_error"].startswith("Not handed to the automation.")


def test_a_refused_occurrence_ends_its_series(api, app):
    long = draft(api, LONG, repeat="FREQ=DAILY;COUNT=5")
    scheduled_before_the_limit(app, api, long)
    assert api.post(CLAIM, json={}).get_json()["data"] == []
    after = api.get(ITEM + long["id"]).get_json()
    assert after["status"] == "Failed" and "The series stopped" in after["last_error"]
    assert api.get(f"{POSTS}?series_id={long['series_id']}").get_json()["total"] == 1


def test_a_push_fails_a_long_post_and_pushes_the_rest(api, app, runner):
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    with Receiver() as receiver:
        hook = api.post(HOOKS, json={"url": receiver.url, "events": ["post.due"]}).get_json()
        receiver.secrets.append(hook["secret"])
        long = scheduled_before_the_limit(app, api, draft(api, LONG), seconds=-120)
        fits = scheduled(api, FITS[1][0], seconds=-60)
        result = runner.invoke(args=["dispatch", "--seconds", "1"])
        assert result.exit_code == 0, result.output
        (arrival,) = receiver.wait_for(lambda arrivals: arrivals, what="the post.due delivery")
    assert arrival.json["data"]["post"]["id"] == fits["id"]
    after = api.get(ITEM + long["id"]).get_json()
    assert after["status"] == "Failed" and f"{LONG_ESCAPED} characters" in after["last_error"]
    assert refused_entry(api, long)["key_prefix"] is None
    assert [d["event_type"] for d in api.get(DELIVERIES).get_json()["data"]] == ["post.due"]


# --- against real gunicorn ------------------------------------------------------------------

FITTING, LONGS, CLAIMERS = 60, 12, 8


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with dispatch_server(tmp_path_factory, live_backend) as server:
        yield server


def test_claims_racing_a_push_never_hand_over_a_long_post(server):
    """Claimers and the dispatcher's push take posts as they fall due, over
    a few seconds: every post that fits goes to exactly one of them, and
    every long one to none, each failed exactly once."""
    user = new_user(server)
    with Receiver() as receiver, dispatcher_starter(server) as start:
        hook = add_endpoint(user, receiver.url, ["post.due"])
        receiver.secrets.append(hook["secret"])
        start()
        made = user.post(
            IMPORT,
            {
                "posts": [row(f"fits {i}", scheduled_at=soon(1 + i / 20)) for i in range(FITTING)]
                + [row(LONG + str(i)) for i in range(LONGS)]
            },
        )
        assert made.status == 201, made
        fitting = {p["id"] for p in made.json["data"][:FITTING]}
        longs = [p["id"] for p in made.json["data"][FITTING:]]
        with server_store(server):
            for n, post_id in enumerate(longs):  # scheduled before the limit was checked
                execute(
                    "UPDATE posts SET status = 'Scheduled', scheduled_at = ? WHERE id = ?",
                    (later(now_text(), 1 + n / 4), post_id),
                )
        claimed, errors, lock = [], [], threading.Lock()

        def claimer():
            with Client(server.url, user.key, timeout=30) as client:
                while client.get(f"{POSTS}?status=Scheduled&limit=1").json["total"]:
                    r = client.post(CLAIM, {"limit": 3})
                    with lock:
                        if r.status != 200:
                            errors.append(r)
                            return
                        claimed.extend(p["id"] for p in r.json["data"])
                    time.sleep(0.25)

        threads = [threading.Thread(target=claimer) for _ in range(CLAIMERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors[:3]
        wait_until(
            lambda: user.get(f"{POSTS}?status=Scheduled&limit=1").json["total"] == 0,
            what="nothing due left",
        )

        def pushed():  # one post per post.due event (a retry repeats its webhook-id)
            due = receiver.of_type("post.due")
            return list({a.webhook_id: a.json["data"]["post"]["id"] for a in due}.values())

        wait_until(lambda: len(claimed) + len(pushed()) >= FITTING, what="every delivery")
    handed = claimed + pushed()
    assert sorted(handed) == sorted(fitting)  # each post that fits exactly once
    assert set(handed).isdisjoint(longs)
    for post_id in longs:
        post = user.get(ITEM + post_id).json
        assert post["status"] == "Failed" and post["handoff_count"] == 0
        assert post["last_error"].startswith("Not handed to the automation.")
        actions = [e["action"] for e in user.get(HISTORY + post_id).json["data"]]
        assert actions.count("refused") == 1 and "claimed" not in actions
