"""Approvals that work with the planner (docs/planning.md, "Approvals and
the queue"), on both backends: a post submitted with a time
or for the queue keeps that intent and is scheduled or queued the moment
it is approved; approve and schedule or queue in one step; the channel's
own approval rule beside the workspace's; the bulk review, in the order
given, each refusal in words for people; an import of rows for the queue
where approvals are on; one mail per person for one review; the
workspace's name, zone and chat events."""

from datetime import UTC, datetime

import pytest

from content_publishing import settings
from harness.api import CHANNELS, IMPORT, ITEM, POSTS, QUEUE
from tests.conftest import Caller, assert_error
from tests.test_members import add_member
from tests.test_notifications import outbox
from tests.test_queue import lead_until

WORKSPACE = "/functions/v1/workspace"
REVIEW = "/functions/v1/api-v2-posts-review/{}".format
BULK = "/functions/v1/api-v2-posts-review-bulk"
CHANNEL = "/functions/v1/channels-item/{}".format
MONDAY = datetime(2031, 3, 3, 0, tzinfo=UTC)
SLOTS = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri")]
LATER = "2031-03-20T15:00:00.000000Z"
ROUTE = "/functions/"


@pytest.fixture
def team(client, runner, make_key, app):
    """acme requires approvals; its owner, an editor (who approves) and a
    contributor (who writes); a brand channel acme with weekday slots."""
    found = {"owner": Caller(client, make_key("acme"))}
    for name, role in [("editor", "editor"), ("contributor", "contributor")]:
        member, key = add_member(runner, "acme", name, role, email=f"{name}@acme.test")
        found[name] = Caller(client, key)
        found[name].member = member
    owner = found["owner"]
    assert owner.patch(WORKSPACE, json={"approvals": "required"}).status_code == 200
    body = {"type": "brand", "brand_id": "acme", "name": "Acme", "slots": SLOTS}
    assert owner.post(CHANNELS, json=body).status_code == 201
    lead_until(app, MONDAY)
    return found


def draft(api, content="hello", **fields):
    r = api.post(POSTS, json={"type": "brand", "brand_id": "acme", "content": content, **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def review(api, post, action, **body):
    return api.post(
        REVIEW(post["id"]),
        json={"action": action, **body},
        headers={"If-Match": f'"{post["version"]}"'},
    )


def reviewed(api, post, action, **body):
    r = review(api, post, action, **body)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def read(api, post):
    return api.get(ITEM + post["id"]).get_json()


# --- the intent ---------------------------------------------------------------------------------


def test_a_post_submitted_for_the_queue_is_queued_the_moment_it_is_approved(team):
    post = draft(team["contributor"])
    submitted = reviewed(team["contributor"], post, "submit", queue=True)["post"]
    assert submitted["status"] == "In review"
    assert submitted["intent"] == {"queue": True, "scheduled_at": None}
    done = reviewed(team["editor"], submitted, "approve")
    assert done["not_planned"] is None
    after = done["post"]
    assert after["status"] == "Scheduled" and after["intent"] is None
    assert after["scheduled_at"] == "2031-03-03T09:00:00.000000Z"
    assert after["approved_by"]["id"] == team["editor"].member
    history = team["owner"].get(f"/functions/v1/api-v2-posts-history/{post['id']}").get_json()
    assert [e["action"] for e in history["data"]][-2:] in (
        ["approved", "queued"],
        ["queued", "approved"],
    )


def test_a_post_submitted_with_a_time_is_scheduled_for_it_when_approved(team):
    post = draft(team["contributor"])
    submitted = reviewed(team["contributor"], post, "submit", scheduled_at=LATER)["post"]
    assert submitted["intent"] == {"queue": False, "scheduled_at": LATER}
    after = reviewed(team["editor"], submitted, "approve")["post"]
    assert after["status"] == "Scheduled" and after["scheduled_at"] == LATER


def test_a_request_for_changes_keeps_the_intent_for_the_next_submit(team):
    post = draft(team["contributor"])
    submitted = reviewed(team["contributor"], post, "submit", queue=True)["post"]
    back = reviewed(team["editor"], submitted, "request_changes", comment="shorter")["post"]
    assert back["status"] == "Draft" and back["intent"]["queue"] is True
    again = reviewed(team["contributor"], back, "submit")["post"]  # keeps it
    assert again["intent"]["queue"] is True
    assert reviewed(team["editor"], again, "approve")["post"]["status"] == "Scheduled"


def test_an_intent_that_cannot_be_kept_leaves_the_post_approved_saying_why(team, app):
    post = draft(team["contributor"])
    submitted = reviewed(team["contributor"], post, "submit", scheduled_at=LATER)["post"]
    lead_until(app, datetime(2031, 3, 21, tzinfo=UTC))  # the time has passed by approval
    done = reviewed(team["editor"], submitted, "approve")
    assert done["post"]["status"] == "Approved"
    assert done["not_planned"].startswith("Approved, but not scheduled as it was submitted")
    assert ROUTE not in done["not_planned"]
    assert read(team["owner"], post)["status"] == "Approved"


def test_approve_and_queue_in_one_step_and_approve_and_schedule(team):
    first = reviewed(team["contributor"], draft(team["contributor"]), "submit")["post"]
    assert first["intent"] is None
    queued = reviewed(team["editor"], first, "approve", queue=True)["post"]
    assert queued["status"] == "Scheduled"
    assert queued["scheduled_at"] == "2031-03-03T09:00:00.000000Z"
    second = reviewed(team["contributor"], draft(team["contributor"]), "submit")["post"]
    timed = reviewed(team["editor"], second, "approve", scheduled_at=LATER)["post"]
    assert timed["status"] == "Scheduled" and timed["scheduled_at"] == LATER


def test_approve_and_schedule_at_a_taken_minute_is_refused_whole(team):
    first = reviewed(team["contributor"], draft(team["contributor"]), "submit")["post"]
    reviewed(team["editor"], first, "approve", scheduled_at=LATER)
    second = reviewed(team["contributor"], draft(team["contributor"]), "submit")["post"]
    err = assert_error(
        review(team["editor"], second, "approve", scheduled_at=LATER), 409, "schedule_conflict"
    )
    assert err["details"]["rule"] == "same_minute"
    assert read(team["owner"], second)["status"] == "In review"  # not even approved


BAD_REVIEWS = [
    ({"action": "submit", "queue": True, "scheduled_at": LATER}, "queue"),
    ({"action": "submit", "scheduled_at": "2000-01-01T00:00:00Z"}, "scheduled_at"),
    ({"action": "submit", "queue": "sometimes"}, "queue"),
    ({"action": "request_changes", "comment": "no", "queue": True}, "queue"),
]


@pytest.mark.parametrize(("body", "field"), BAD_REVIEWS)
def test_a_bad_intent_is_refused_naming_the_field(team, body, field):
    post = draft(team["contributor"])
    if body["action"] == "request_changes":
        post = reviewed(team["contributor"], post, "submit")["post"]
    err = assert_error(team["editor"].post(REVIEW(post["id"]), json=body), 400, "validation_error")
    assert field in err["details"]
    again = read(team["owner"], post)
    assert again["version"] == post["version"] and again["intent"] is None


# --- the channel's own rule ---------------------------------------------------------------------


def test_a_channel_may_need_approvals_where_the_workspace_does_not(team):
    owner = team["owner"]
    assert owner.patch(WORKSPACE, json={"approvals": "off"}).status_code == 200
    r = owner.patch(CHANNEL("acme"), json={"approvals": "required"})
    assert r.status_code == 200 and r.get_json()["approvals"] == "required"
    brand = draft(team["contributor"])
    err = assert_error(
        team["editor"].patch(
            ITEM + brand["id"], json={"status": "Scheduled", "scheduled_at": LATER}
        ),
        409,
        "approval_required",
    )
    assert ROUTE not in err["message"]
    # a profile of the same workspace needs none
    mine = team["editor"].post(
        POSTS, json={"type": "personal", "content": "mine", "scheduled_at": LATER}
    )
    r = team["editor"].patch(ITEM + mine.get_json()["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    # and the brand post goes through its review
    submitted = reviewed(team["contributor"], brand, "submit", queue=True)["post"]
    assert reviewed(team["editor"], submitted, "approve")["post"]["status"] == "Scheduled"


def test_a_channel_may_need_none_where_the_workspace_requires_them(team):
    r = team["owner"].patch(CHANNEL("acme"), json={"approvals": "off"})
    assert r.status_code == 200
    post = draft(team["contributor"])
    queued = team["editor"].post(QUEUE, json={"post_id": post["id"]})
    assert queued.status_code == 200 and queued.get_json()["status"] == "Scheduled"
    err = assert_error(
        review(team["contributor"], draft(team["contributor"]), "submit"), 409, "conflict"
    )
    assert ROUTE not in err["message"]


@pytest.mark.parametrize("role", ["editor", "contributor"])
def test_only_owners_and_admins_set_a_channels_approvals(team, role):
    err = assert_error(
        team[role].patch(CHANNEL("acme"), json={"approvals": "off"}), 403, "forbidden"
    )
    assert err["details"]["role"] == role
    assert team["owner"].get(CHANNEL("acme")).get_json()["approvals"] == "workspace"


@pytest.mark.parametrize("value", ["sometimes", None, True])
def test_a_bad_channel_approvals_is_refused(team, value):
    err = assert_error(
        team["owner"].patch(CHANNEL("acme"), json={"approvals": value}), 400, "validation_error"
    )
    assert "approvals" in err["details"]
    assert team["owner"].get(CHANNEL("acme")).get_json()["approvals"] == "workspace"


# --- the bulk review ----------------------------------------------------------------------------


def bulk(api, action, posts, **body):
    items = [{"id": p["id"], "version": p["version"]} for p in posts]
    r = api.post(BULK, json={"action": action, "posts": items, **body})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["data"]


def test_ten_imported_rows_for_the_queue_are_submitted_then_approved_and_queued_in_row_order(
    team,
):
    rows = [{"channel": "acme", "content": f"row {n}", "queue": True} for n in range(1, 11)]
    r = team["editor"].post(IMPORT, json={"posts": rows})
    assert r.status_code == 201, r.get_json()
    made = r.get_json()["data"]
    assert {p["status"] for p in made} == {"Draft"}
    assert all(p["intent"] == {"queue": True, "scheduled_at": None} for p in made)
    submitted = bulk(team["editor"], "submit", made)
    assert [o["error"] for o in submitted] == [None] * 10
    assert [o["id"] for o in submitted] == [p["id"] for p in made]
    approved = bulk(team["owner"], "approve", [o["post"] for o in submitted], queue=True)
    assert [o["error"] for o in approved] == [None] * 10
    times = [o["post"]["scheduled_at"][:10] for o in approved]
    assert times == sorted(times) and len(set(times)) == 10  # the first row the first slot
    assert times[0] == "2031-03-03"
    assert [o["post"]["content"] for o in approved] == [f"row {n}" for n in range(1, 11)]


def test_each_refused_row_of_a_bulk_review_says_why_in_words(team):
    mine = draft(team["editor"], "the editor's own")
    other = draft(team["contributor"], "a contributor's")
    stale = draft(team["contributor"], "changed since")
    for post in (mine, other, stale):
        reviewed(team["editor"] if post is mine else team["contributor"], post, "submit")
    mine, other, stale = (read(team["owner"], p) for p in (mine, other, stale))
    team["contributor"].patch(ITEM + stale["id"], json={"content": "changed"})
    outcomes = bulk(team["editor"], "approve", [mine, other, stale, draft(team["owner"])])
    assert [o["error"] and o["error"]["code"] for o in outcomes] == [
        "forbidden",
        None,
        "precondition_failed",
        "conflict",
    ]
    for outcome in outcomes:
        if outcome["error"]:
            assert ROUTE not in outcome["error"]["message"]
            assert "version" not in outcome["error"]["message"]
    assert outcomes[1]["post"]["status"] == "Approved"
    assert read(team["owner"], mine)["status"] == "In review"


BAD_BULK = [
    ({"action": "submit", "posts": []}, "posts"),
    ({"action": "publish", "posts": [{"id": "x", "version": 1}]}, "action"),
    ({"action": "submit", "posts": [{"id": "x"}]}, "posts.0.version"),
    ({"action": "submit", "posts": [{"id": "x", "version": 1}] * 101}, "posts"),
]


@pytest.mark.parametrize(("body", "field"), BAD_BULK)
def test_a_bad_bulk_review_is_refused_naming_the_field(team, body, field):
    err = assert_error(team["editor"].post(BULK, json=body), 400, "validation_error")
    assert field in err["details"] or any(k.startswith(field) for k in err["details"])


def test_bulk_request_changes_needs_a_comment_and_sends_one_mail_each(team, app):
    post = reviewed(team["contributor"], draft(team["contributor"]), "submit")["post"]
    workspace = team["owner"].get(WORKSPACE).get_json()["id"]
    before = {m["id"] for m in outbox(app, workspace)}
    (refused,) = bulk(team["editor"], "request_changes", [post])
    assert refused["error"]["code"] == "validation_error"
    (done,) = bulk(
        team["editor"], "request_changes", [post], comment="@contributor shorter, please"
    )
    assert done["post"]["status"] == "Draft"
    mails = [m for m in outbox(app, workspace) if m["kind"] == "email" and m["id"] not in before]
    assert [(m["member_id"], m["event"]) for m in mails] == [
        (team["contributor"].member, "post.changes_requested")
    ]


# --- the workspace's own settings ---------------------------------------------------------------


def test_the_workspace_is_renamed_given_a_zone_and_chat_events(team, make_key):
    r = team["owner"].patch(
        WORKSPACE,
        json={"name": "Acme Marketing", "timezone": "Europe/Paris", "chat_events": ["post.failed"]},
    )
    assert r.status_code == 200, r.get_json()
    body = team["owner"].get(WORKSPACE).get_json()
    assert body["name"] == "Acme Marketing" and body["timezone"] == "Europe/Paris"
    assert body["chat_events"] == ["post.failed"]
    make_key("other")
    err = assert_error(team["owner"].patch(WORKSPACE, json={"name": "other"}), 409, "conflict")
    assert "another name" in err["message"]
    assert team["owner"].get(WORKSPACE).get_json()["name"] == "Acme Marketing"


def test_an_imports_rows_are_made_in_row_order(team):
    rows = [{"channel": "acme", "content": f"row {n}"} for n in range(1, 6)]
    made = team["editor"].post(IMPORT, json={"posts": rows}).get_json()["data"]
    times = [p["created_at"] for p in made]
    assert times == sorted(times) and len(set(times)) == 5
    newest_first = team["editor"].get(f"{POSTS}?status=Draft").get_json()["data"]
    assert [p["content"] for p in newest_first] == [f"row {n}" for n in range(5, 0, -1)]


def test_a_test_message_goes_to_the_chat_only_where_there_is_one(team, app):
    owner = team["owner"]
    err = assert_error(owner.post("/functions/v1/workspace-chat-test"), 409, "conflict")
    assert ROUTE not in err["message"]
    assert_error(team["editor"].post("/functions/v1/workspace-chat-test"), 403, "forbidden")
    app.config["WEBHOOK_ALLOWED_PRIVATE"] = settings.allow_list("127.0.0.1/32:1-65535")
    url = "http://127.0.0.1:9/hooks/acme"
    assert owner.patch(WORKSPACE, json={"chat_webhook_url": url}).status_code == 200
    r = owner.post("/functions/v1/workspace-chat-test")
    assert r.status_code == 202 and r.get_json() == {"queued": True}
    workspace = owner.get(WORKSPACE).get_json()["id"]
    (message,) = [m for m in outbox(app, workspace) if m["event"] == "chat.test"]
    assert (message["kind"], message["recipient"]) == ("chat", url)
