"""Approvals and comments (docs/api.md, "Approvals and comments"), on both
backends: the workspace's setting, the approval table row by row (self-
approval refused, an edit after an approval), every path to Scheduled
(PATCH, the queue, an import, a series' next occurrence), the statuses a
workspace without approvals never shows, comments with their mentions, and
isolation by workspace."""

import io

import pytest
from PIL import Image

from harness.api import CALLBACK, POSTS
from tests.conftest import Caller, assert_error
from tests.test_members import add_member

WORKSPACE = "/functions/v1/workspace"
REVIEW = "/functions/v1/api-v2-posts-review/{}".format
COMMENTS = "/functions/v1/api-v2-posts-comments/{}".format
ITEM = "/functions/v1/api-v2-posts-item/{}".format
HISTORY = "/functions/v1/api-v2-posts-history/{}".format
QUEUE = "/functions/v1/api-v2-posts-queue"
IMPORT = "/functions/v1/api-v2-posts-import"
CHANNELS = "/functions/v1/channels"
MEDIA = "/functions/v1/media"
MEDIA_ITEM = "/functions/v1/media-item/{}".format
FUTURE = "2099-01-05T10:00:00.000000Z"
SCHEDULE = {"status": "Scheduled", "scheduled_at": FUTURE}


@pytest.fixture
def team(client, runner, make_key):
    """Workspace acme with its owner and a member of each other role (two
    editors), as {name: Caller}; each caller's member id is `.member`."""
    found = {"owner": Caller(client, make_key("acme"))}
    found["owner"].member = found["owner"].get("/functions/v1/me").get_json()["member"]["id"]
    for name, role in [
        ("admin", "admin"),
        ("editor", "editor"),
        ("editor2", "editor"),
        ("contributor", "contributor"),
        ("contributor2", "contributor"),
        ("viewer", "viewer"),
    ]:
        member, key = add_member(runner, "acme", name, role)
        found[name] = Caller(client, key)
        found[name].member = member
    return found


@pytest.fixture
def required(team):
    """acme requires approvals."""
    r = team["owner"].patch(WORKSPACE, json={"approvals": "required"})
    assert r.status_code == 200, r.get_json()
    return team


def draft(api, content="hello team"):
    r = api.post(POSTS, json={"type": "personal", "content": content})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def review(api, post, action, comment=None, if_match=None):
    body = {"action": action} if comment is None else {"action": action, "comment": comment}
    headers = {"If-Match": if_match} if if_match else None
    return api.post(REVIEW(post["id"]), json=body, headers=headers)


def reviewed(api, post, action, comment=None):
    r = review(api, post, action, comment)
    assert r.status_code == 200, r.get_json()
    assert r.headers["ETag"] == f'"{r.get_json()["post"]["version"]}"'
    return r.get_json()["post"]


def read(api, post):
    return api.get(ITEM(post["id"])).get_json()


def approved(team, author="contributor", approver="editor", content="hello team"):
    post = draft(team[author], content)
    reviewed(team[author], post, "submit")
    return reviewed(team[approver], post, "approve")


# --- the workspace's setting ---------------------------------------------------------------


def test_approvals_are_off_until_an_owner_or_admin_requires_them(team):
    found = team["viewer"].get(WORKSPACE)
    assert found.status_code == 200
    body = found.get_json()
    assert body["approvals"] == "off" and body["name"] == "acme"
    assert found.headers["ETag"] == f'"{body["version"]}"'
    for name in ("editor", "contributor", "viewer"):
        err = assert_error(
            team[name].patch(WORKSPACE, json={"approvals": "required"}), 403, "forbidden"
        )
        assert err["details"]["role"] == name.rstrip("2")
    r = team["admin"].patch(
        WORKSPACE, json={"approvals": "required"}, headers={"If-Match": found.headers["ETag"]}
    )
    assert r.status_code == 200 and r.get_json()["approvals"] == "required"
    assert r.get_json()["version"] == body["version"] + 1
    stale = team["owner"].patch(
        WORKSPACE, json={"approvals": "off"}, headers={"If-Match": found.headers["ETag"]}
    )
    assert_error(stale, 412, "precondition_failed")
    assert team["owner"].get(WORKSPACE).get_json()["approvals"] == "required"


BAD_SETTINGS = [
    ({"approvals": "on"}, "approvals"),
    ({"approvals": None}, "approvals"),
    ({"approvals": True}, "approvals"),
    ({"name": ""}, "name"),
    ({"name": None}, "name"),
    ({"name": "a\nb"}, "name"),
    ({"name": "x" * 101}, "name"),
    ({"timezone": "Mars/Olympus"}, "timezone"),
    ({"chat_events": ["post.exploded"]}, "chat_events.0"),
    ({"version": 9}, "version"),
]


@pytest.mark.parametrize(("body", "field"), BAD_SETTINGS)
def test_bad_settings_are_refused_naming_the_field(team, body, field):
    err = assert_error(team["owner"].patch(WORKSPACE, json=body), 400, "validation_error")
    assert field in err["details"]
    after = team["owner"].get(WORKSPACE).get_json()
    assert after["approvals"] == "off" and after["version"] == 1


# --- the approval table, row by row --------------------------------------------------------


def test_draft_to_in_review_by_its_author_or_an_editor(required):
    team = required
    mine = draft(team["contributor"])
    post = reviewed(team["contributor"], mine, "submit")
    assert post["status"] == "In review" and post["approved_by"] is None
    theirs = draft(team["contributor"], "another")
    assert reviewed(team["editor"], theirs, "submit")["status"] == "In review"
    # another contributor may not submit it, nor a viewer (no posts:write)
    other = draft(team["contributor"], "a third")
    err = assert_error(review(team["contributor2"], other, "submit"), 403, "forbidden")
    assert err["details"]["role"] == "contributor"
    assert_error(review(team["viewer"], other, "submit"), 403, "forbidden")
    assert read(team["owner"], other)["status"] == "Draft"
    # only a Draft is submitted
    err = assert_error(review(team["contributor"], mine, "submit"), 409, "conflict")
    assert err["details"] == {"status": "In review", "action": "submit"}


def test_in_review_to_approved_by_an_editor_never_the_author(required):
    team = required
    post = draft(team["editor"])
    reviewed(team["editor"], post, "submit")
    err = assert_error(review(team["editor"], post, "approve"), 403, "forbidden")
    assert "own post" in err["message"] and err["details"]["role"] == "editor"
    err = assert_error(review(team["contributor"], post, "approve"), 403, "forbidden")
    assert err["details"]["role"] == "contributor"
    still = read(team["owner"], post)
    assert still["status"] == "In review" and still["approved_by"] is None
    done = reviewed(team["editor2"], post, "approve")
    assert done["status"] == "Approved"
    assert done["approved_by"] == {"id": team["editor2"].member, "name": "editor2"}
    assert done["reviewer"] == done["approved_by"] and done["approved_at"]
    assert done["author"] == {"id": team["editor"].member, "name": "editor"}
    assert read(team["viewer"], post) == done
    # only an In review post is approved
    assert_error(review(team["owner"], post, "approve"), 409, "conflict")


CHANGES_OF_WHAT_IS_REVIEWED = [
    {"content": "the editor's own words"},
    {"media_urls": ["https://cdn.example.com/a.png"]},
    {"media_urls": ["https://cdn.example.com/a.png"], "media_alt": ["a chart"]},
    {"first_comment": "a first comment"},
    {"type": "brand", "brand_id": "acme-page"},
]


@pytest.mark.parametrize("change", CHANGES_OF_WHAT_IS_REVIEWED)
def test_a_member_who_changed_the_post_may_not_approve_it(required, change):
    """Four eyes: editor changes editor2's draft, submits it and would
    approve it; refused, as for every member who changed what is reviewed."""
    team = required
    post = draft(team["editor2"])
    r = team["editor"].patch(ITEM(post["id"]), json=change)
    assert r.status_code == 200, r.get_json()
    submitted = reviewed(team["editor"], post, "submit")
    err = assert_error(review(team["editor"], post, "approve"), 403, "forbidden")
    assert err["details"]["role"] == "editor" and err["details"]["changed"]
    assert set(err["details"]["changed"]) & set(change)
    assert_error(review(team["editor2"], post, "approve"), 403, "forbidden")  # its author
    still = read(team["owner"], post)
    assert still["status"] == "In review" and still["approved_by"] is None
    assert still["version"] == submitted["version"]
    assert_error(team["editor"].patch(ITEM(post["id"]), json=SCHEDULE), 409, "approval_required")
    # a member who changed nothing of it approves it
    assert reviewed(team["admin"], post, "approve")["approved_by"]["name"] == "admin"


def test_a_request_for_changes_does_not_wash_an_edit_out(required):
    team = required
    post = draft(team["contributor"])
    team["editor"].patch(ITEM(post["id"]), json={"content": "the editor's version"})
    reviewed(team["contributor"], post, "submit")
    review(team["editor2"], post, "request_changes", "a word more")
    team["contributor"].patch(ITEM(post["id"]), json={"content": "the editor's version, and"})
    reviewed(team["contributor"], post, "submit")
    assert_error(review(team["editor"], post, "approve"), 403, "forbidden")
    assert read(team["owner"], post)["status"] == "In review"
    assert reviewed(team["editor2"], post, "approve")["status"] == "Approved"


def test_changes_already_approved_by_another_do_not_bar_the_next_approval(required):
    """Changes approved by someone else were seen by a second pair of eyes:
    only the changes since the last approval count; and a change of what is
    not reviewed (the time) bars no one."""
    team = required
    post = draft(team["contributor"])
    team["editor"].patch(ITEM(post["id"]), json={"content": "the editor's version"})
    team["editor2"].patch(ITEM(post["id"]), json={"scheduled_at": FUTURE})
    reviewed(team["contributor"], post, "submit")
    reviewed(team["editor2"], post, "approve")
    team["contributor"].patch(ITEM(post["id"]), json={"content": "the author's version"})
    reviewed(team["contributor"], post, "submit")
    assert reviewed(team["editor"], post, "approve")["approved_by"]["name"] == "editor"
    # the approver who then edits it may not approve their own edit
    edited = team["editor"].patch(ITEM(post["id"]), json={"content": "the approver's edit"})
    assert edited.get_json()["status"] == "Draft"
    reviewed(team["contributor"], post, "submit")
    assert_error(review(team["editor"], post, "approve"), 403, "forbidden")


def test_in_review_to_draft_by_a_request_for_changes_with_its_comment(required):
    team = required
    post = draft(team["contributor"])
    reviewed(team["contributor"], post, "submit")
    err = assert_error(review(team["editor"], post, "request_changes"), 400, "validation_error")
    assert "comment" in err["details"]
    assert_error(review(team["editor"], post, "request_changes", "   "), 400, "validation_error")
    err = assert_error(review(team["contributor"], post, "request_changes", "x"), 403, "forbidden")
    assert read(team["owner"], post)["status"] == "In review"
    r = review(team["editor"], post, "request_changes", "Shorter, please @contributor")
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["post"]["status"] == "Draft" and body["post"]["reviewer"]["name"] == "editor"
    assert body["comment"]["body"] == "Shorter, please @contributor"
    assert body["comment"]["member"] == {"id": team["editor"].member, "name": "editor"}
    assert body["comment"]["mentions"] == [team["contributor"].member]
    thread = team["viewer"].get(COMMENTS(post["id"])).get_json()["data"]
    assert thread == [body["comment"]]


def test_approved_to_scheduled_and_only_an_approved_post(required):
    team = required
    unapproved = draft(team["editor"])
    err = assert_error(
        team["editor"].patch(ITEM(unapproved["id"]), json=SCHEDULE), 409, "approval_required"
    )
    assert err["details"]["status"] == "Draft"
    reviewed(team["editor"], unapproved, "submit")
    assert_error(
        team["editor"].patch(ITEM(unapproved["id"]), json=SCHEDULE), 409, "approval_required"
    )
    assert read(team["owner"], unapproved)["status"] == "In review"
    post = approved(team)
    # a contributor never schedules, approved or not
    assert_error(team["contributor"].patch(ITEM(post["id"]), json=SCHEDULE), 403, "forbidden")
    r = team["editor"].patch(ITEM(post["id"]), json=SCHEDULE)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "Scheduled"
    assert r.get_json()["approved_by"]["name"] == "editor"


@pytest.mark.parametrize(
    "change",
    [
        {"content": "changed after the review"},
        {"first_comment": "a first comment"},
        {"media_urls": ["https://cdn.example.com/a.png"]},
        {"type": "brand", "brand_id": "acme-page"},
    ],
)
def test_an_edit_after_the_approval_takes_it_back_to_draft(required, change):
    team = required
    post = approved(team)
    r = team["contributor"].patch(ITEM(post["id"]), json=change)
    assert r.status_code == 200, r.get_json()
    edited = r.get_json()
    assert edited["status"] == "Draft" and edited["approved_by"] is None
    assert_error(team["editor"].patch(ITEM(post["id"]), json=SCHEDULE), 409, "approval_required")
    assert read(team["owner"], post)["status"] == "Draft"
    # In review goes back to Draft the same way
    reviewed(team["contributor"], edited, "submit")
    again = team["contributor"].patch(ITEM(post["id"]), json={"content": "once more"}).get_json()
    assert again["status"] == "Draft"


def test_an_edit_of_an_approved_scheduled_post_unschedules_it(required):
    team = required
    post = approved(team)
    team["editor"].patch(ITEM(post["id"]), json=SCHEDULE)
    # rescheduling keeps the approval; a new text does not
    moved = team["editor"].patch(ITEM(post["id"]), json={"scheduled_at": "2099-01-06T10:00:00Z"})
    assert moved.get_json()["status"] == "Scheduled"
    r = team["editor"].patch(ITEM(post["id"]), json={"content": "not what was approved"})
    assert r.get_json()["status"] == "Draft" and r.get_json()["approved_by"] is None
    # and an edit sent with the schedule is refused whole
    post = approved(team, content="second")
    r = team["editor"].patch(ITEM(post["id"]), json={**SCHEDULE, "content": "sneaked in"})
    assert_error(r, 409, "approval_required")
    assert read(team["owner"], post)["content"] == "second"


def uploaded(api, colour="red"):
    out = io.BytesIO()
    Image.new("RGB", (12, 10), colour).save(out, "PNG")
    r = api.post(MEDIA, data=out.getvalue(), headers={"Content-Type": "image/png"})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_a_library_alt_text_change_withdraws_the_approvals_of_posts_that_take_it(required):
    """The plan of an approved post carried the new alt text and the post
    kept its approval: now the change is the post's, and ends it."""
    team = required
    image = uploaded(team["contributor"])
    ref = f"media:{image['id']}"

    def approved_with(media_alt=None, content="with the picture"):
        body = {"type": "personal", "content": content, "media_urls": [ref]}
        post = team["contributor"].post(POSTS, json={**body, "media_alt": media_alt}).get_json()
        reviewed(team["contributor"], post, "submit")
        return reviewed(team["editor"], post, "approve")

    scheduled = approved_with(content="scheduled")
    assert team["editor"].patch(ITEM(scheduled["id"]), json=SCHEDULE).status_code == 200
    approved_post = approved_with(content="approved")
    own_alt = approved_with(["its own words"], content="its own alt text")
    waiting = (
        team["contributor"]
        .post(POSTS, json={"type": "personal", "content": "waiting", "media_urls": [ref]})
        .get_json()
    )
    reviewed(team["contributor"], waiting, "submit")

    r = team["contributor"].patch(MEDIA_ITEM(image["id"]), json={"alt_text": "A red field"})
    assert r.status_code == 200, r.get_json()
    for post in (scheduled, approved_post, waiting):
        now = read(team["owner"], post)
        assert now["status"] == "Draft" and now["approved_by"] is None, now
        last = team["owner"].get(HISTORY(post["id"])).get_json()["data"][-1]
        assert last["member"]["name"] == "contributor" and "media_alt" in last["fields"]
        assert image["id"] in last["detail"]
    assert_error(
        team["editor"].patch(ITEM(scheduled["id"]), json=SCHEDULE), 409, "approval_required"
    )
    kept = read(team["owner"], own_alt)
    assert kept["status"] == "Approved" and kept["approved_by"]["name"] == "editor"
    # an editor who changes the alt text has changed the post: another approves it
    reviewed(team["contributor"], approved_post, "submit")
    reviewed(team["editor2"], approved_post, "approve")
    assert (
        team["editor"].patch(MEDIA_ITEM(image["id"]), json={"alt_text": "A field"}).status_code
        == 200
    )
    reviewed(team["contributor"], approved_post, "submit")
    assert_error(review(team["editor"], approved_post, "approve"), 403, "forbidden")
    assert reviewed(team["editor2"], approved_post, "approve")["status"] == "Approved"


def test_unscheduling_keeps_the_approval_only_back_to_approved(required):
    team = required
    post = approved(team)
    team["editor"].patch(ITEM(post["id"]), json=SCHEDULE)
    back = team["editor"].patch(ITEM(post["id"]), json={"status": "Approved"})
    assert back.status_code == 200, back.get_json()
    assert back.get_json()["status"] == "Approved" and back.get_json()["approved_by"]
    assert team["editor"].patch(ITEM(post["id"]), json=SCHEDULE).get_json()["status"] == "Scheduled"
    # a Failed post keeps its approval: a retry needs no second review
    failed = team["editor"].patch(ITEM(post["id"]), json={"status": "Failed", "last_error": "x"})
    assert failed.get_json()["approved_by"]["name"] == "editor"
    again = team["editor"].patch(ITEM(post["id"]), json=SCHEDULE)
    assert again.status_code == 200 and again.get_json()["status"] == "Scheduled"
    # to Draft, the approval is gone, and so is the way back to Scheduled
    draft_again = team["editor"].patch(ITEM(post["id"]), json={"status": "Draft"}).get_json()
    assert draft_again["status"] == "Draft" and draft_again["approved_by"] is None
    assert_error(team["editor"].patch(ITEM(post["id"]), json=SCHEDULE), 409, "approval_required")
    # a post never approved cannot go back to Approved
    other = draft(team["editor"], "never approved")
    err = assert_error(
        team["editor"].patch(ITEM(other["id"]), json={"status": "Approved"}), 409, "conflict"
    )
    assert err["details"]["review"].startswith("/functions/v1/api-v2-posts-review/")
    assert read(team["owner"], other)["status"] == "Draft"


def test_the_queue_takes_only_an_approved_post(required, client):
    team = required
    r = team["editor"].post(
        CHANNELS,
        json={"type": "personal", "name": "Me", "slots": [{"day": "mon", "time": "09:00"}]},
    )
    assert r.status_code in (200, 201), r.get_json()
    post = draft(team["editor"])
    assert_error(team["editor"].post(QUEUE, json={"post_id": post["id"]}), 409, "approval_required")
    assert read(team["owner"], post)["status"] == "Draft"
    post = approved(team)
    r = team["editor"].post(QUEUE, json={"post_id": post["id"]})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "Scheduled"


def test_the_callback_never_publishes_a_post_under_review(required):
    team = required
    waiting = draft(team["contributor"])
    reviewed(team["contributor"], waiting, "submit")
    for post in (waiting, approved(team, content="approved, not scheduled")):
        body = {"post_id": post["id"], "linkedin_post_id": "urn:li:share:9"}
        err = assert_error(team["owner"].post(CALLBACK, json=body), 409, "conflict")
        assert err["details"]["status"] in ("In review", "Approved")
        assert read(team["owner"], post)["published_at"] is None


def test_an_approved_series_next_occurrence_keeps_the_approval(required):
    team = required
    post = draft(team["contributor"])
    team["contributor"].patch(ITEM(post["id"]), json={"repeat": "FREQ=WEEKLY;COUNT=3"})
    reviewed(team["contributor"], post, "submit")
    reviewed(team["editor"], post, "approve")
    team["editor"].patch(ITEM(post["id"]), json=SCHEDULE)
    r = team["owner"].post(
        CALLBACK, json={"post_id": post["id"], "linkedin_post_id": "urn:li:share:1"}
    )
    assert r.status_code == 200, r.get_json()
    series = team["owner"].get(
        POSTS, query_string={"series_id": read(team["owner"], post)["series_id"]}
    )
    following = [p for p in series.get_json()["data"] if p["id"] != post["id"]]
    assert len(following) == 1 and following[0]["status"] == "Scheduled"
    assert following[0]["approved_by"]["name"] == "editor"


def test_an_unapproved_series_stops_when_approvals_are_required(team):
    post = draft(team["editor"])
    team["editor"].patch(ITEM(post["id"]), json={**SCHEDULE, "repeat": "FREQ=WEEKLY;COUNT=3"})
    team["owner"].patch(WORKSPACE, json={"approvals": "required"})
    team["owner"].post(CALLBACK, json={"post_id": post["id"], "linkedin_post_id": "urn:li:share:2"})
    series = team["owner"].get(
        POSTS, query_string={"series_id": read(team["owner"], post)["series_id"]}
    )
    assert [p["id"] for p in series.get_json()["data"]] == [post["id"]]
    assert "requires approvals" in read(team["owner"], post)["last_error"]


def test_an_import_never_schedules_while_approvals_are_required(required):
    team = required
    rows = [
        {"type": "personal", "content": "row one", "scheduled_at": FUTURE},
        {"type": "personal", "content": "row two", "scheduled_at": FUTURE, "submit": True},
        {"type": "personal", "content": "row three", "queue": True},
    ]
    r = team["editor"].post(IMPORT, json={"posts": rows})
    assert r.status_code == 201, r.get_json()
    made = r.get_json()["data"]
    assert [p["status"] for p in made] == ["Draft", "In review", "Draft"]
    assert [p["scheduled_at"] for p in made] == [FUTURE, FUTURE, None]
    csv = "type,content,scheduled_at,submit\npersonal,from csv," + FUTURE + ",true\n"
    r = team["editor"].post(IMPORT, data=csv, headers={"Content-Type": "text/csv"})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["data"][0]["status"] == "In review"


def test_submit_in_an_import_without_approvals_is_a_row_error(team):
    rows = [{"type": "personal", "content": "x", "submit": True}]
    err = assert_error(team["editor"].post(IMPORT, json={"posts": rows}), 400, "validation_error")
    assert "submit" in err["details"]["rows"]["1"]
    assert team["owner"].get(POSTS).get_json()["total"] == 0


# --- a workspace without approvals never shows their statuses ------------------------------


def test_without_approvals_nothing_is_reviewed_and_no_post_shows_their_statuses(team):
    post = draft(team["editor"])
    err = assert_error(review(team["editor"], post, "submit"), 409, "conflict")
    assert err["details"] == {"approvals": "off"}
    err = assert_error(
        team["editor"].patch(ITEM(post["id"]), json={"status": "In review"}), 409, "conflict"
    )
    r = team["editor"].patch(ITEM(post["id"]), json=SCHEDULE)
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled"
    err = assert_error(
        team["editor"].patch(ITEM(post["id"]), json={"status": "Approved"}), 409, "conflict"
    )
    assert err["details"] == {"approvals": "off"}
    assert read(team["owner"], post)["status"] == "Scheduled"
    other = draft(team["editor"], "other")
    err = assert_error(
        team["editor"].patch(ITEM(other["id"]), json={"status": "Failed"}), 409, "conflict"
    )
    assert err["details"]["allowed"] == ["Scheduled"]


def test_turning_approvals_off_takes_posts_under_review_back_to_draft(required):
    team = required
    waiting = draft(team["contributor"])
    reviewed(team["contributor"], waiting, "submit")
    done = approved(team, content="approved one")
    r = team["owner"].patch(WORKSPACE, json={"approvals": "off"})
    assert r.status_code == 200
    for post in (waiting, done):
        now = read(team["owner"], post)
        assert now["status"] == "Draft" and now["approved_by"] is None
        assert team["owner"].get(HISTORY(post["id"])).get_json()["data"][-1]["action"] == (
            "returned_to_draft"
        )
    assert team["owner"].get(POSTS, query_string={"status": "In review"}).get_json()["total"] == 0


# --- history names each member -------------------------------------------------------------


def test_history_records_each_review_with_the_members_name(required):
    team = required
    post = draft(team["contributor"])
    reviewed(team["contributor"], post, "submit")
    review(team["editor"], post, "request_changes", "More detail")
    team["contributor"].patch(ITEM(post["id"]), json={"content": "more detail"})
    reviewed(team["contributor"], post, "submit")
    reviewed(team["editor2"], post, "approve")
    entries = team["viewer"].get(HISTORY(post["id"])).get_json()["data"]
    assert [(e["action"], e["member"]["name"], e["status_to"]) for e in entries] == [
        ("created", "contributor", "Draft"),
        ("submitted", "contributor", "In review"),
        ("changes_requested", "editor", "Draft"),
        ("updated", "contributor", "Draft"),
        ("submitted", "contributor", "In review"),
        ("approved", "editor2", "Approved"),
    ]


# --- comments ------------------------------------------------------------------------------


def test_every_member_comments_and_mentions_are_recognised(team):
    post = draft(team["editor"])
    r = team["viewer"].post(
        COMMENTS(post["id"]),
        json={"body": "@editor2 and @Contributor, see this; @contributor22 is no one"},
    )
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert made["mentions"] == [team["editor2"].member, team["contributor"].member]
    assert made["member"] == {"id": team["viewer"].member, "name": "viewer"}
    assert made["post_id"] == post["id"] and made["created_at"]
    # a member mentioning themselves is no mention
    own = team["editor"].post(COMMENTS(post["id"]), json={"body": "note to @editor"}).get_json()
    assert own["mentions"] == []
    thread = team["contributor"].get(COMMENTS(post["id"])).get_json()["data"]
    assert [c["id"] for c in thread] == [made["id"], own["id"]]


BAD_COMMENTS = [
    ({}, "body"),
    ({"body": ""}, "body"),
    ({"body": " \u200b "}, "body"),
    ({"body": "x" * 5001}, "body"),
    ({"body": "bell\x07"}, "body"),
    ({"body": 5}, "body"),
    ({"body": "ok", "mentions": [1]}, "mentions"),
]


@pytest.mark.parametrize(("body", "field"), BAD_COMMENTS)
def test_bad_comments_are_refused_naming_the_field(team, body, field):
    post = draft(team["editor"])
    err = assert_error(
        team["viewer"].post(COMMENTS(post["id"]), json=body), 400, "validation_error"
    )
    assert field in err["details"]
    assert team["viewer"].get(COMMENTS(post["id"])).get_json()["data"] == []


def test_a_comment_of_5000_characters_is_kept(team):
    post = draft(team["editor"])
    r = team["viewer"].post(COMMENTS(post["id"]), json={"body": "é" * 5000})
    assert r.status_code == 201 and r.get_json()["body"] == "é" * 5000


def test_comments_are_deleted_with_their_post_and_kept_within_the_workspace(
    team, caller, count_rows
):
    post = draft(team["editor"])
    team["viewer"].post(COMMENTS(post["id"]), json={"body": "first"})
    outsider = caller("elsewhere")
    # a name of another workspace mentions no one here
    ghost = team["viewer"].post(COMMENTS(post["id"]), json={"body": "hi @elsewhere"})
    assert ghost.get_json()["mentions"] == []
    assert_error(outsider.get(COMMENTS(post["id"])), 404, "not_found")
    assert_error(outsider.post(COMMENTS(post["id"]), json={"body": "hi"}), 404, "not_found")
    assert_error(outsider.post(REVIEW(post["id"]), json={"action": "submit"}), 404, "not_found")
    assert len(team["owner"].get(COMMENTS(post["id"])).get_json()["data"]) == 2
    r = team["owner"].client.delete(ITEM(post["id"]), headers={"X-API-Key": team["owner"].key})
    assert r.status_code == 204
    assert count_rows("post_comments") == 0
    assert_error(team["owner"].get(COMMENTS(post["id"])), 404, "not_found")
