"""Notifications sent by the dispatcher process, against real gunicorn on
both backends: a SIGKILL mid-sending loses no email and no chat message,
each recipient's still in order; a post failed by the dispatcher itself
(a push nobody acknowledged) is mailed. (A disconnected channel, and a
post the service's own publisher failed: test_linkedin_publish.py.)"""

import uuid

import pytest

from harness import Answer, Receiver
from harness.api import ME
from harness.smtp_sink import SmtpSink
from tests.dispatch_support import (
    add_endpoint,
    dispatch_server,
    dispatcher_starter,
    new_user,
    schedule,
)

MEMBER = "/functions/v1/members-item/{}"
WORKSPACE = "/functions/v1/workspace"
ITEM = "/functions/v1/api-v2-posts-item/"


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with dispatch_server(tmp_path_factory, live_backend) as server:
        yield server


@pytest.fixture
def dispatchers(server):
    with dispatcher_starter(server) as start:
        yield start


def mailed(user, sink, chat=None):
    """The user's owner gets email at an address of their own; the
    workspace's chat goes to `chat`; the dispatcher's settings for `sink`."""
    member = user.get(ME).json["member"]
    address = f"owner-{member['id']}-{user.key[-6:]}@example.test"
    r = user.patch(MEMBER.format(member["id"]), {"email": address})
    assert r.status == 200, r
    if chat is not None:
        r = user.patch(WORKSPACE, {"chat_webhook_url": chat.url})
        assert r.status == 200, r
    return address, {"FLASK_SMTP_URL": sink.url, "FLASK_MAIL_FROM": "cps@example.test"}


def fail(user, n):
    post = schedule(user, 3600, f"post number {n:02d}")
    r = user.patch(ITEM + post["id"], {"status": "Failed", "last_error": f"failure {n}"})
    assert r.status == 200, r
    return post


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_sigkill_mid_sending_loses_no_notification(server, dispatchers):
    user = new_user(server)
    with (
        SmtpSink(delay=0.25) as sink,
        Receiver(script=lambda a: Answer(200, delay=0.25)) as chat,
    ):
        address, env = mailed(user, sink, chat)
        posts = [fail(user, n) for n in range(8)]
        doomed = dispatchers("doomed", **env)
        sink.wait_for(lambda m: len(m) >= 2)
        doomed.kill()  # mid-sending: one email and one chat message in flight
        dispatchers("heir", **env)
        ids = [p["id"] for p in posts]

        def first_seen(texts):
            order = []
            for text in texts:
                found = [i for i in ids if i in text]
                if found and found[0] not in order:
                    order.append(found[0])
            return order

        mail = sink.wait_for(
            lambda m: len(first_seen(x.get_content() for x in m)) == 8 and m, timeout=30
        )
        assert {a for m in mail for a in m.envelope_to} == {address}
        # One at a time per recipient, oldest first: the posts in the order they failed.
        assert first_seen(m.get_content() for m in mail) == ids
        # A message cut by the kill arrives without its JSON: it is sent again whole.
        arrivals = chat.wait_for(
            lambda a: len(first_seen(x.json["text"] for x in a if x.json)) == 8 and a,
            timeout=30,
        )
        assert first_seen(a.json["text"] for a in arrivals if a.json) == ids


def test_a_push_nobody_acknowledged_is_mailed_as_a_failed_post(server, dispatchers):
    user = new_user(server)
    password = f"pw-{uuid.uuid4().hex}"
    with (
        Receiver(script=lambda a: Answer(500)) as due_receiver,
        SmtpSink(user="mailer", password=password) as sink,
    ):
        address, env = mailed(user, sink)
        add_endpoint(user, due_receiver.url, ["post.due"])
        dispatchers("mailing", FLASK_HANDOFF_MAX_DELAY_SECONDS="2", **env)
        post = schedule(user, -0.5, "Nobody took it")
        (message,) = sink.wait_for(lambda m: m, timeout=20)
        assert message.envelope_to == [address]
        assert message["Subject"].endswith("A post failed to publish")
        text = message.get_content()
        assert "No post.due delivery was acknowledged" in text and post["id"] in text
    # The dispatcher names where email goes when it starts, never the password.
    log = (server.tmp / "mailing.log").read_text()
    assert f"email notifications go through smtp://mailer@127.0.0.1:{sink.port}" in log
    assert password not in log


def test_without_smtp_the_dispatcher_says_email_is_off(server, dispatchers):
    dispatchers("silent").kill()
    assert "email notifications are off: FLASK_SMTP_URL is not set" in (
        (server.tmp / "silent.log").read_text()
    )
