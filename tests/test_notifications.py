"""Notifications (docs/api.md, "Notifications"), on both backends: who hears
of a failed post by email (a real SMTP server, aiosmtpd, on loopback) and
in the workspace's chat (a loopback receiver), members' preferences and
who may set them, the workspace's chat URL and its SSRF guard, retries of
a refused message, one at a time per recipient, and isolation between
workspaces. The dispatcher's own sending (a SIGKILL loses nothing; a
disconnected channel) is tested against real processes in
test_notifications_live.py."""

import contextlib
import json
import socketserver
import threading
import time

import pytest

from content_publishing import settings
from content_publishing.notifications.sending import Notifier
from content_publishing.outbound import Guard, Sender
from content_publishing.store import notifications as notification_store
from content_publishing.store.db import execute, transaction
from harness import Receiver
from harness.api import CALLBACK, CLAIM, ME, POSTS
from harness.clock import ahead
from harness.smtp_sink import SmtpSink
from tests.conftest import Caller, assert_error
from tests.test_members import add_member

MEMBER = "/functions/v1/members-item/{}".format
WORKSPACE = "/functions/v1/workspace"
ITEM = "/functions/v1/api-v2-posts-item/{}".format
LATER = "2099-01-05T09:00:00Z"
EVENTS = [
    "review.requested",
    "post.approved",
    "post.changes_requested",
    "comment.mentioned",
    "post.failed",
    "post.first_comment_failed",
    "channel.disconnected",
]


@pytest.fixture
def sink():
    with SmtpSink(user="mailer", password="s3cret-pw") as found:
        yield found


@pytest.fixture
def mail(app, sink):
    """The app set up to send email to `sink`, and chat to loopback."""
    app.config.update(SMTP_URL=sink.url, MAIL_FROM="Publishing <cps@example.com>", SMTP=None)
    app.config["WEBHOOK_ALLOWED_PRIVATE"] = settings.allow_list("127.0.0.1/32:1-65535")
    app.config["WEBHOOK_RETRY_SCHEDULE"] = [0, 0, 0]
    app.config["WEBHOOK_TIMEOUT_SECONDS"] = 5
    settings.smtp(app.config)
    return sink


def send_all(app, name="test"):
    """What a dispatcher's notifier sends until nothing is ready: the ids sent."""
    notifier = Notifier(app, name, threading.Event(), Sender(5, Guard.of(app.config)))
    with app.app_context():
        while notifier.round():
            pass
    return notifier


def outbox(app, workspace_id):
    with app.app_context():
        return notification_store.list_for(workspace_id)


@pytest.fixture
def team(client, runner, make_key):
    """Workspace acme: its owner and a member of every other role, each with
    an email address, and another workspace, elsewhere, with its owner's."""
    found = {"owner": Caller(client, make_key("acme"))}
    for role in ("admin", "editor", "contributor", "viewer"):
        _, key = add_member(runner, "acme", f"{role}-person", role, email=f"{role}@acme.test")
        found[role] = Caller(client, key)
    found["stranger"] = Caller(client, make_key("elsewhere"))
    for who, address in (("owner", "owner@acme.test"), ("stranger", "owner@elsewhere.test")):
        me = found[who].get(ME).get_json()["member"]
        r = found[who].patch(MEMBER(me["id"]), json={"email": address})
        assert r.status_code == 200, r.get_json()
    return found


def me(api):
    return api.get(ME).get_json()


def fail_a_post(team, content="Launch day"):
    """The contributor's draft, scheduled by the editor, then Failed."""
    r = team["contributor"].post(POSTS, json={"type": "personal", "content": content})
    assert r.status_code == 201, r.get_json()
    post = r.get_json()
    r = team["editor"].patch(ITEM(post["id"]), json={"status": "Scheduled", "scheduled_at": LATER})
    assert r.status_code == 200, r.get_json()
    r = team["editor"].patch(
        ITEM(post["id"]), json={"status": "Failed", "last_error": "LinkedIn said no"}
    )
    assert r.status_code == 200, r.get_json()
    return post


# --- who hears of a failed post ------------------------------------------------------------


def test_a_failed_post_mails_its_author_and_editors_up_and_no_one_else(app, team, mail):
    post = fail_a_post(team)
    notifier = send_all(app)
    got = {address for m in mail.messages for address in m.envelope_to}
    assert got == {
        "contributor@acme.test",  # the author
        "editor@acme.test",
        "admin@acme.test",
        "owner@acme.test",
    }  # never the viewer, never the other workspace's owner
    assert notifier.sent == 4 and len(mail.messages) == 4
    assert mail.logins and all(ok for _, ok in mail.logins)
    (message,) = mail.to("contributor@acme.test")
    assert message["From"] == "Publishing <cps@example.com>"
    assert message["To"] == "contributor@acme.test"
    assert message["Subject"] == "[acme] A post failed to publish"
    text = message.get_content()
    assert "“Launch day”" in text and "Why: LinkedIn said no" in text
    assert f"/functions/v1/dashboard#/posts/{post['id']}" in text
    assert text.splitlines()[-1].startswith(app.config["PUBLIC_URL"].rstrip("/"))
    workspace = me(team["owner"])["workspace"]["id"]
    assert {m["outcome"] for m in outbox(app, workspace)} == {"sent"}
    assert not outbox(app, me(team["stranger"])["workspace"]["id"])


def test_a_refused_first_comment_mails_the_posts_author_alone(app, team, mail):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400
    body = {"type": "personal", "content": "Out now", "first_comment": "Link: https://x.example"}
    r = team["contributor"].post(POSTS, json={**body, "scheduled_at": ahead(-60)})
    assert r.status_code == 201, r.get_json()
    post = r.get_json()
    r = team["editor"].patch(ITEM(post["id"]), json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    r = team["owner"].post(CLAIM, json={})  # the owner's key is the automation's
    assert [p["id"] for p in r.get_json()["data"]] == [post["id"]]
    error = "LinkedIn answered 422: Comment text is not allowed"
    callback = {"post_id": post["id"], "linkedin_post_id": "urn:li:share:71"}
    r = team["owner"].post(CALLBACK, json={**callback, "first_comment_error": error})
    assert r.status_code == 200 and r.get_json()["status"] == "Published", r.get_json()
    send_all(app)
    assert {a for m in mail.messages for a in m.envelope_to} == {"contributor@acme.test"}
    (message,) = mail.messages
    assert message["Subject"] == "[acme] The first comment of your post was refused"
    text = message.get_content()
    assert f"Why: {error}" in text and f"/functions/v1/dashboard#/posts/{post['id']}" in text
    r = team["owner"].post(CALLBACK, json={**callback, "first_comment_error": error})  # again
    assert r.status_code == 200
    send_all(app)
    assert len(mail.messages) == 1  # told once


def test_preferences_are_honoured_and_members_without_an_email_hear_nothing(app, team, mail):
    editor = me(team["editor"])["member"]
    r = team["editor"].patch(MEMBER(editor["id"]), json={"notify": ["review.requested"]})
    assert r.status_code == 200 and r.get_json()["notify"] == ["review.requested"]
    admin = me(team["admin"])["member"]
    r = team["admin"].patch(MEMBER(admin["id"]), json={"email": None})
    assert r.status_code == 200 and r.get_json()["email"] is None
    fail_a_post(team)
    send_all(app)
    got = {address for m in mail.messages for address in m.envelope_to}
    assert got == {"contributor@acme.test", "owner@acme.test"}
    # null sets every event again (and the record says so)
    r = team["editor"].patch(MEMBER(editor["id"]), json={"notify": None})
    assert r.status_code == 200 and r.get_json()["notify"] == EVENTS
    fail_a_post(team, "Second try")
    send_all(app)
    assert len(mail.to("editor@acme.test")) == 1


# --- preferences: who may set them ---------------------------------------------------------

BAD_PREFERENCES = [
    ({"notify": ["post.exploded"]}, "notify"),
    ({"notify": "post.failed"}, "notify"),
    ({"notify": [1]}, "notify"),
    ({"notify": EVENTS * 3}, "notify"),
    ({"email": "not an address"}, "email"),
]


@pytest.mark.parametrize("body,field", BAD_PREFERENCES)
def test_bad_preferences_are_400_naming_the_field(team, body, field):
    member = me(team["viewer"])["member"]
    err = assert_error(
        team["viewer"].patch(MEMBER(member["id"]), json=body), 400, "validation_error"
    )
    assert {name.split(".")[0] for name in err["details"]} == {field}
    assert team["owner"].get("/functions/v1/members").get_json()["data"][-1]["notify"] == EVENTS


def test_any_member_sets_their_own_email_and_notify_and_only_managers_anyone_elses(team):
    viewer = me(team["viewer"])["member"]
    contributor = me(team["contributor"])["member"]
    r = team["viewer"].patch(MEMBER(viewer["id"]), json={"notify": [], "email": "v@acme.test"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["notify"] == [] and r.get_json()["email"] == "v@acme.test"
    err = assert_error(
        team["viewer"].patch(MEMBER(viewer["id"]), json={"role": "editor"}), 403, "forbidden"
    )
    assert "viewer" in err["message"]
    for who in ("viewer", "editor"):
        err = assert_error(
            team[who].patch(MEMBER(contributor["id"]), json={"notify": []}), 403, "forbidden"
        )
        assert who in err["message"]
    r = team["admin"].patch(MEMBER(contributor["id"]), json={"notify": ["post.failed"]})
    assert r.status_code == 200 and r.get_json()["notify"] == ["post.failed"]
    members = {m["id"]: m for m in team["owner"].get("/functions/v1/members").get_json()["data"]}
    assert members[viewer["id"]]["role"] == "viewer"  # the refused writes changed nothing
    assert members[contributor["id"]]["notify"] == ["post.failed"]
    assert_error(
        team["stranger"].patch(MEMBER(contributor["id"]), json={"notify": []}), 404, "not_found"
    )


# --- the workspace's chat ------------------------------------------------------------------


def test_the_chat_hears_of_every_event_in_its_own_workspace_only(app, team, mail):
    with Receiver() as chat, Receiver() as other_chat:
        r = team["owner"].patch(WORKSPACE, json={"chat_webhook_url": chat.url})
        assert r.status_code == 200 and r.get_json()["chat_webhook_url"] == chat.url
        r = team["stranger"].patch(WORKSPACE, json={"chat_webhook_url": other_chat.url})
        assert r.status_code == 200
        assert team["viewer"].get(WORKSPACE).get_json()["chat_webhook_url"] == chat.url
        post = fail_a_post(team)
        send_all(app)
        (arrival,) = chat.wait_for(lambda a: a)
        assert set(arrival.json) == {"text"}
        assert arrival.headers["content-type"] == "application/json"
        assert "webhook-signature" not in arrival.headers
        assert "[acme] A post failed to publish" in arrival.json["text"]
        assert post["id"] in arrival.json["text"]
        assert not other_chat.arrivals
    r = team["owner"].patch(WORKSPACE, json={"chat_webhook_url": None})
    assert r.status_code == 200 and r.get_json()["chat_webhook_url"] is None


def test_the_ssrf_guard_checks_the_chat_again_when_a_message_goes(app, team, mail):
    with Receiver() as chat:
        r = team["owner"].patch(WORKSPACE, json={"chat_webhook_url": chat.url})
        assert r.status_code == 200
        app.config["WEBHOOK_ALLOWED_PRIVATE"] = ()  # loopback no longer allowed
        for role in ("owner", "admin", "editor", "contributor"):
            team[role].patch(MEMBER(me(team[role])["member"]["id"]), json={"notify": []})
        fail_a_post(team)
        send_all(app)
        assert not chat.arrivals
    (message,) = outbox(app, me(team["owner"])["workspace"]["id"])
    assert message["kind"] == "chat" and message["outcome"] == "failed"  # tried on the schedule
    assert message["last_error"].startswith("refused by the SSRF guard")
    assert message["attempt_count"] == 3


BAD_WORKSPACE = [
    ({"chat_webhook_url": "ftp://chat.example/hook"}, "chat_webhook_url"),
    ({"chat_webhook_url": "https://u:p@chat.example/hook"}, "chat_webhook_url"),
    ({"chat_webhook_url": "http://10.1.2.3/hooks/x"}, "chat_webhook_url"),  # the SSRF guard
    ({"chat_webhook_url": "http://169.254.169.254/latest"}, "chat_webhook_url"),
    ({"name": ""}, "name"),
    ({"name": "x" * 101}, "name"),
]


@pytest.mark.parametrize("body,field", BAD_WORKSPACE)
def test_bad_workspace_settings_are_400_naming_the_field(team, body, field):
    err = assert_error(team["owner"].patch(WORKSPACE, json=body), 400, "validation_error")
    assert field in err["details"]
    assert team["owner"].get(WORKSPACE).get_json() == {
        **team["owner"].get(WORKSPACE).get_json(),
        "name": "acme",
        "chat_webhook_url": None,
    }


def test_only_owners_and_admins_set_the_chat(team):
    url = "https://chat.example.com/hooks/abc"
    for who in ("editor", "contributor", "viewer"):
        err = assert_error(
            team[who].patch(WORKSPACE, json={"chat_webhook_url": url}), 403, "forbidden"
        )
        assert who in err["message"]
    assert team["owner"].get(WORKSPACE).get_json()["chat_webhook_url"] is None


# --- delivery: retries, order, no SMTP -----------------------------------------------------


def test_a_refused_message_is_tried_again_and_a_recipient_gets_theirs_in_order(app, team, mail):
    for role in ("admin", "editor", "owner"):
        member = me(team[role])["member"]
        team[role].patch(MEMBER(member["id"]), json={"notify": []})
    fail_a_post(team, "first")
    fail_a_post(team, "second")
    mail.refuse(1)  # the first message's first attempt: 451
    app.config["WEBHOOK_RETRY_SCHEDULE"] = [0, 30, 30]
    send_all(app)
    # The first waits for its retry, and holds the second back: one at a time, in order.
    assert mail.refused == 1 and not mail.messages
    workspace = me(team["owner"])["workspace"]["id"]
    first, second = sorted(outbox(app, workspace), key=lambda m: m["id"])
    assert first["outcome"] == "pending" and first["attempt_count"] == 1
    assert first["last_error"].startswith("SMTP 451")
    assert second["outcome"] == "pending" and second["attempt_count"] == 0
    _due_now(app, first["id"])  # its retry falls due
    send_all(app)
    texts = [m.get_content() for m in mail.to("contributor@acme.test")]
    assert ["“first”" in t for t in texts] == [True, False] and "“second”" in texts[1]
    assert {m["outcome"] for m in outbox(app, workspace)} == {"sent"}


def _due_now(app, message_id):
    with app.app_context(), transaction():
        execute(
            "UPDATE notifications SET next_attempt_at = '2000-01-01T00:00:00Z' WHERE id = ?",
            (message_id,),
        )


def test_sent_messages_are_forgotten_with_the_delivery_log_and_pending_ones_kept(app, team, mail):
    fail_a_post(team)
    notifier = send_all(app)
    mail.refuse(99)
    app.config["WEBHOOK_RETRY_SCHEDULE"] = [0, 3600]
    fail_a_post(team, "still waiting")
    send_all(app)
    workspace = me(team["owner"])["workspace"]["id"]
    assert {m["outcome"] for m in outbox(app, workspace)} == {"sent", "pending"}
    with app.app_context():
        assert notifier.purge("2000-01-01T00:00:00Z") == 0  # none that old
        assert notifier.purge("2999-01-01T00:00:00Z") == 4
    assert {m["outcome"] for m in outbox(app, workspace)} == {"pending"}


def test_a_message_is_given_up_after_the_schedule(app, team, mail):
    app.config["WEBHOOK_RETRY_SCHEDULE"] = [0, 0]
    for role in ("admin", "editor", "owner"):
        member = me(team[role])["member"]
        team[role].patch(MEMBER(member["id"]), json={"notify": []})
    mail.refuse(5)
    fail_a_post(team)
    send_all(app)
    workspace = me(team["owner"])["workspace"]["id"]
    (message,) = outbox(app, workspace)
    assert message["outcome"] == "failed" and message["attempt_count"] == 2
    assert message["last_error"].endswith("gave up after 2 attempts")


def test_a_wrong_smtp_password_is_never_in_a_log_or_the_outbox(app, team, sink, caplog):
    app.config.update(
        SMTP_URL=sink.url.replace("s3cret-pw", "wrong-pw-9"), MAIL_FROM="cps@example.com", SMTP=None
    )
    settings.smtp(app.config)
    assert "wrong-pw-9" not in app.config["SMTP_URL"]
    fail_a_post(team)
    caplog.set_level("DEBUG")
    send_all(app)
    workspace = me(team["owner"])["workspace"]["id"]
    found = outbox(app, workspace)
    assert found and all(m["last_error"].startswith("SMTP login refused") for m in found)
    assert "wrong-pw-9" not in json.dumps(found) and "wrong-pw-9" not in caplog.text
    assert sink.logins and not any(ok for _, ok in sink.logins)


def test_without_smtp_email_is_not_sent_and_addresses_are_kept(app, team):
    assert app.config["SMTP"] is None
    fail_a_post(team)
    send_all(app)
    workspace = me(team["owner"])["workspace"]["id"]
    found = outbox(app, workspace)
    assert found and {m["outcome"] for m in found} == {"cancelled"}
    assert {m["last_error"] for m in found} == {
        "not sent: email is off (FLASK_SMTP_URL is not set)"
    }
    members = team["owner"].get("/functions/v1/members").get_json()["data"]
    assert "owner@acme.test" in {m["email"] for m in members}


# --- the settings --------------------------------------------------------------------------

BAD_SMTP = [
    "http://mail.example.com",
    "smtp://",
    "smtp://mail.example.com:99999",
    "smtp://mail.example.com?starttls=maybe",
    "smtps://mail.example.com?starttls=true",
    "smtp://mail.example.com?tls=1",
]


@pytest.mark.parametrize("url", BAD_SMTP)
def test_a_bad_smtp_url_stops_the_start_naming_it(url):
    config = {"SMTP_URL": url, "SMTP_PASSWORD_FILE": None, "MAIL_FROM": "a@b.example"}
    with pytest.raises(settings.SettingError, match="FLASK_SMTP_URL"):
        settings.smtp(config)


def test_smtp_settings(tmp_path):
    def parsed(**given):
        config = {"SMTP_PASSWORD_FILE": None, "MAIL_FROM": "cps@example.com", **given}
        settings.smtp(config)
        return config

    config = parsed(SMTP_URL="smtp://me%40x:p%40ss@mail.example.com:587?starttls=true")
    assert config["SMTP"] == {
        "host": "mail.example.com",
        "port": 587,
        "tls": "starttls",
        "user": "me@x",
        "password": "p@ss",
        "sender": "cps@example.com",
        "url": "smtp://me%40x@mail.example.com:587?starttls=true",
    }
    assert config["SMTP_URL"] == "smtp://me%40x@mail.example.com:587?starttls=true"
    assert parsed(SMTP_URL="smtps://mail.example.com")["SMTP"]["port"] == 465
    assert parsed(SMTP_URL="smtps://mail.example.com")["SMTP"]["tls"] == "implicit"
    assert parsed(SMTP_URL="smtp://mail.example.com")["SMTP"]["port"] == 25
    secret = tmp_path / "smtp-password"
    secret.write_text("from-a-file\n")
    config = parsed(SMTP_URL="smtp://me@mail.example.com", SMTP_PASSWORD_FILE=str(secret))
    assert config["SMTP"]["password"] == "from-a-file"
    settings.smtp(config)  # checked twice: the password is kept
    assert config["SMTP"]["password"] == "from-a-file"
    with pytest.raises(settings.SettingError, match="give it one way"):
        parsed(SMTP_URL="smtp://me:pw@mail.example.com", SMTP_PASSWORD_FILE=str(secret))
    with pytest.raises(settings.SettingError, match="FLASK_SMTP_PASSWORD_FILE"):
        parsed(SMTP_URL="smtp://me@mail.example.com", SMTP_PASSWORD_FILE=str(tmp_path / "none"))
    with pytest.raises(settings.SettingError, match="FLASK_MAIL_FROM"):
        parsed(SMTP_URL="smtp://mail.example.com", MAIL_FROM=None)
    assert parsed(SMTP_URL="")["SMTP"] is None


# --- the events of approvals and comments -------------------------------------------------

REVIEW = "/functions/v1/api-v2-posts-review/{}".format
COMMENTS = "/functions/v1/api-v2-posts-comments/{}".format


def test_review_approval_and_mention_events_reach_whom_they_concern(app, team, mail):
    r = team["owner"].patch(WORKSPACE, json={"approvals": "required"})
    assert r.status_code == 200, r.get_json()
    contributor, editor = team["contributor"], team["editor"]
    first = contributor.post(POSTS, json={"type": "personal", "content": "Ready?"}).get_json()
    second = contributor.post(POSTS, json={"type": "personal", "content": "Too long"}).get_json()
    for post in (first, second):
        r = contributor.post(REVIEW(post["id"]), json={"action": "submit"})
        assert r.status_code == 200, r.get_json()
    r = editor.post(REVIEW(first["id"]), json={"action": "approve"})
    assert r.status_code == 200, r.get_json()
    r = editor.post(REVIEW(second["id"]), json={"action": "request_changes", "comment": "Shorter"})
    assert r.status_code == 200, r.get_json()
    r = editor.post(COMMENTS(first["id"]), json={"body": "Thanks @Viewer-Person. And @editor"})
    assert r.status_code == 201, r.get_json()
    send_all(app)
    subjects = {
        address: sorted(m["Subject"] for m in mail.to(address))
        for address in {a for m in mail.messages for a in m.envelope_to}
    }
    asked = "[acme] contributor-person asks for a review of a post"
    assert subjects == {
        "editor@acme.test": [asked, asked],
        "admin@acme.test": [asked, asked],
        "owner@acme.test": [asked, asked],
        "contributor@acme.test": [
            "[acme] editor-person approved your post",
            "[acme] editor-person asked for changes to your post",
        ],
        "viewer@acme.test": ["[acme] editor-person mentioned you in a comment"],
    }  # "@editor" names no member (editor-person is the editor's name); never the stranger
    (changes,) = [m for m in mail.to("contributor@acme.test") if "changes" in m["Subject"]]
    assert "Shorter" in changes.get_content() and second["id"] in changes.get_content()


def test_a_name_with_bidi_controls_never_reaches_a_subject(app, team, mail):
    """A name stored before such names were refused (written here straight
    into the database): the override that would show the subject backwards
    is left out of it."""
    editor = me(team["editor"])["member"]
    with app.app_context(), transaction():
        execute(
            "UPDATE members SET name = ? WHERE id = ?", ("Eve\u202egnp.exe\u2066x", editor["id"])
        )
    r = team["owner"].patch(WORKSPACE, json={"approvals": "required"})
    assert r.status_code == 200, r.get_json()
    post = team["contributor"].post(POSTS, json={"type": "personal", "content": "Hi"}).get_json()
    assert (
        team["contributor"].post(REVIEW(post["id"]), json={"action": "submit"}).status_code == 200
    )
    assert team["editor"].post(REVIEW(post["id"]), json={"action": "approve"}).status_code == 200
    send_all(app)
    [approved] = mail.to("contributor@acme.test")
    assert approved["Subject"] == "[acme] Evegnp.exex approved your post"
    assert approved.get_content().startswith("[acme] Evegnp.exex approved your post\r\n")


class _Drip(socketserver.StreamRequestHandler):
    """An SMTP server that greets, then answers EHLO a byte at a time, forever."""

    def handle(self):
        self.wfile.write(b"220 slow\r\n")
        self.rfile.readline()
        with contextlib.suppress(OSError):
            while True:
                self.wfile.write(b"2")
                time.sleep(0.2)


def test_a_server_that_drips_its_answers_is_cut_at_the_timeout(app, team):
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Drip)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        app.config.update(
            SMTP_URL=f"smtp://127.0.0.1:{server.server_address[1]}",
            MAIL_FROM="cps@example.com",
            SMTP=None,
            WEBHOOK_TIMEOUT_SECONDS=1,
        )
        settings.smtp(app.config)
        for role in ("admin", "editor", "contributor"):
            team[role].patch(MEMBER(me(team[role])["member"]["id"]), json={"notify": []})
        fail_a_post(team)
        started = time.monotonic()
        notifier = Notifier(app, "t", threading.Event(), Sender(1, Guard.of(app.config)))
        with app.app_context():
            assert notifier.round()
        assert time.monotonic() - started < 2.5
        (message,) = outbox(app, me(team["owner"])["workspace"]["id"])
        assert message["last_error"] == "no answer within 1 s"
        assert message["outcome"] == "pending" and message["attempt_count"] == 1
    finally:
        server.shutdown()
        server.server_close()
