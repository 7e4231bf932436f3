"""The service's own publisher against real gunicorn, a real dispatcher and
the LinkedIn stand-in, on both backends: due posts of `publisher: linkedin`
channels are published by the service once, never claimed or pushed; and
every row of LinkedIn's answers: 201, 401 with a refresh and one retry, a
refused refresh, 429 with Retry-After, another 4xx, a 5xx, a timeout and a
dropped connection (unknown outcomes, settled at LinkedIn, never sent again
blind), a LinkedIn-Version LinkedIn does not serve; the tokens' upkeep; and
FLASK_LINKEDIN_PUBLISH=0; and a published post's figures, read by the
dispatcher when they are due (the ages themselves, with the clock moved:
test_stats_collect.py). No token shows in any answer, log, event or history."""

import io
import itertools
import sqlite3
import time
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import psycopg
import pytest
from cryptography.fernet import Fernet
from PIL import Image

from harness import Client, Receiver, free_port, read_posts, serve
from harness.api import (
    API,
    CALLBACK,
    CHANNELS,
    CLAIM,
    DELIVERIES,
    HISTORY,
    ITEM,
    ME,
    MEDIA,
    POSTS,
    STATS,
)
from harness.claims import past, schedule_posts
from harness.smtp_sink import SmtpSink
from tests.conftest import live_database_for
from tests.dispatch_support import (
    SERVER_ENV,
    add_endpoint,
    at,
    dispatcher_starter,
    new_user,
    wait_until,
)
from tests.linkedin_support import (
    ADA,
    CHANNEL,
    connect_live,
    environment,
    leaked,
    linkedin_for,
)
from tests.test_notifications_live import mailed

PUBLISHER_ENV = {
    "FLASK_LINKEDIN_TIMEOUT_SECONDS": "2",
    "FLASK_LINKEDIN_CHECK_DELAY_SECONDS": "0.5",
    "FLASK_DISPATCH_POLL_SECONDS": "0.1",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    tmp = tmp_path_factory.mktemp("publish")
    with linkedin_for(url) as standin, live_database_for(live_backend) as database:
        env = {**SERVER_ENV, **environment(standin, url), "FLASK_METRICS": "1"}
        with serve(
            tmp, workers=2, env=env, log=tmp / "server.log", database=database, port=port
        ) as server:
            server.tmp, server.linkedin = tmp, standin
            yield server


@pytest.fixture
def linkedin(server):
    standin = server.linkedin
    standin.on.__init__()  # each test's behaviours alone
    standin.accounts.access_lifetime = 60 * 86400
    standin.accounts.refresh_lifetime = 365 * 86400
    return standin


@pytest.fixture
def user(server):
    return new_user(server)


@pytest.fixture
def dispatchers(server, linkedin):
    with dispatcher_starter(server) as start:

        def started(**env):
            return start(**environment(linkedin, server.url), **PUBLISHER_ENV, **env)

        yield started


@pytest.fixture(autouse=True)
def no_token_leaks(server, linkedin, request):
    """After each test: no token the stand-in issued is in the server's or a
    dispatcher's log, or in the metrics."""
    yield
    logs = [p.read_text(errors="replace") for p in server.tmp.glob("*.log")]
    with Client(server.url) as client:
        metrics = client.get("/metrics").text
    assert "cps_http_requests_total" in metrics
    assert not leaked(linkedin, *logs, metrics)


def personal(user, linkedin):
    r = user.post(CHANNELS, {"type": "personal", "name": "Me"})
    assert r.status == 201, r
    return connect_live(user, linkedin, "personal")


def brand(user, linkedin, brand_id="acme", author="urn:li:organization:2414183"):
    r = user.post(
        CHANNELS, {"type": "brand", "brand_id": brand_id, "name": "Acme", "author_urn": author}
    )
    assert r.status == 201, r
    return connect_live(user, linkedin, brand_id)


# Due posts go out at distinct minutes of the day before, in the order they
# are made: no two posts of a channel share a minute.
DUE_FROM = datetime.now(UTC) - timedelta(days=1)
DUE_MINUTES = itertools.count()


def due(user, content, brand_id=None, seconds=None, **fields):
    when = DUE_FROM + timedelta(minutes=next(DUE_MINUTES))
    body = {
        "type": "brand" if brand_id else "personal",
        "content": content,
        "scheduled_at": at(seconds) if seconds is not None else when.isoformat(),
        **fields,
    }
    if brand_id:
        body["brand_id"] = brand_id
    r = user.post(POSTS, body)
    assert r.status == 201, r
    r = user.patch(ITEM + r.json["id"], {"status": "Scheduled"})
    assert r.status == 200, r
    return r.json


def settled(user, post, status=("Published", "Failed"), timeout=20):
    return wait_until(
        lambda: (p := user.get(ITEM + post["id"]).json)["status"] in status and p,
        timeout=timeout,
        what=f"post {status}",
    )


def history(user, post):
    return user.get(HISTORY + post["id"]).json["data"]


def answers_of(user, *posts):
    """The text of what a client reads about these posts and its events."""
    texts = [user.get(ITEM + p["id"]).text + user.get(HISTORY + p["id"]).text for p in posts]
    texts.append(user.get(f"{DELIVERIES}?limit=100").text)
    texts.append(user.get(CHANNELS).text)
    return texts


# --- published once --------------------------------------------------------------------------


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_a_due_post_is_published_by_the_service_once(server, user, linkedin, dispatchers):
    channel = personal(user, linkedin)
    assert channel["publisher"] == "linkedin"
    with Receiver() as receiver:
        add_endpoint(user, receiver.url, ["post.due", "post.published"])
        dispatchers()
        post = due(user, "Launch day (finally) for the service's own publisher")
        done = settled(user, post)
        assert done["status"] == "Published", done
        [made] = linkedin.posts_with("service's own publisher")
        assert made.status == 201 and made.body["author"] == f"urn:li:person:{ADA}"
        assert made.body["commentary"] == "Launch day \\(finally\\) for the service's own publisher"
        assert done["linkedin_post_id"] == made.urn
        assert done["live_url"] == f"https://www.linkedin.com/feed/update/{made.urn}/"
        steps = history(user, post)
        assert [e["action"] for e in steps] == ["created", "scheduled", "claimed", "published"]
        claimed = steps[2]
        assert claimed["key_prefix"] is None and "service's own publisher" in claimed["detail"]
        assert steps[3]["key_prefix"] is None and steps[3]["detail"] == made.urn
        published = receiver.wait_for(lambda a: any(x.type == "post.published" for x in a))
        assert not any(a.type == "post.due" for a in published)  # never pushed
        time.sleep(0.5)
        assert len(linkedin.posts_with("service's own publisher")) == 1
        assert not leaked(linkedin, *answers_of(user, post), *(a.body for a in receiver.arrivals))


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_claims_never_take_a_post_the_service_publishes(server, user, linkedin):
    personal(user, linkedin)
    post = due(user, "Not for the automation")
    r = user.post(CLAIM, {"limit": 10})
    assert r.status == 200 and r.json["data"] == []
    assert user.get(ITEM + post["id"]).json["status"] == "Scheduled"


def test_publish_0_publishes_nothing(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    dispatchers(FLASK_LINKEDIN_PUBLISH="0")
    post = due(user, "Held by FLASK_LINKEDIN_PUBLISH=0")
    time.sleep(1.5)
    assert user.get(ITEM + post["id"]).json["status"] == "Scheduled"
    assert not linkedin.posts_with("Held by FLASK_LINKEDIN_PUBLISH")


def colleague(server, owner, name, role="editor"):
    """A member of `owner`'s workspace, invited and taken up: their client."""
    r = owner.post(f"{API}/members", {"name": name, "email": None, "role": role})
    assert r.status == 201, r
    token = r.json["invite_url"].split("#/invite/")[1]
    answer = Client(server.url).post(f"{API}/invites-accept", {"token": token})
    assert answer.status == 201, answer
    return Client(server.url, answer.json["key"], timeout=30)


def test_two_colleagues_posts_go_out_each_through_their_own_connection(
    server, user, linkedin, dispatchers
):
    """Ada (the workspace's first member) and Bo each connect their own
    profile; Bo's post goes out as Bo, and the one Bo wrote for Ada goes out
    as Ada once she approved it, each through its own channel's token."""
    personal(user, linkedin)  # signed in to LinkedIn as Ada
    bo = colleague(server, user, f"bo-{uuid.uuid4().hex[:6]}")
    if "bo-5ub" not in linkedin.accounts.members:
        linkedin.accounts.add_member("bo-5ub", "Bo Berg")
    linkedin.accounts.sign_in("bo-5ub")  # Bo's browser, signed in to LinkedIn as Bo
    try:
        r = bo.post(CHANNELS, {"type": "personal", "name": "Bo"})
        assert r.status == 201, r
        bos = connect_live(bo, linkedin, r.json["id"])
    finally:
        linkedin.accounts.sign_in(ADA)
    assert (bos["publisher"], bos["author_urn"]) == ("linkedin", "urn:li:person:bo-5ub")
    dispatchers()
    his = due(bo, "Bo's own words, as Bo")
    assert his["channel_id"] == bos["id"]
    r = bo.post(POSTS, {"channel_id": "personal", "content": "Written by Bo, as Ada"})
    for_ada = r.json
    r = bo.patch(ITEM + for_ada["id"], {"status": "Scheduled", "scheduled_at": at(-1)})
    assert r.status == 409 and r.json["error"]["code"] == "owner_approval_required", r
    review = f"{API}/api-v2-posts-review/{for_ada['id']}"
    assert bo.post(review, {"action": "submit"}).status == 200
    assert user.post(review, {"action": "approve"}).status == 200
    r = bo.patch(ITEM + for_ada["id"], {"status": "Scheduled", "scheduled_at": at(-1)})
    assert r.status == 200, r
    for post in (his, for_ada):
        assert settled(bo, post)["status"] == "Published"
    [as_bo] = linkedin.posts_with("Bo's own words")
    [as_ada] = linkedin.posts_with("Written by Bo, as Ada")
    assert (as_bo.status, as_bo.body["author"]) == (201, "urn:li:person:bo-5ub")
    assert (as_ada.status, as_ada.body["author"]) == (201, f"urn:li:person:{ADA}")
    # each through its own channel's token (the stand-in lets a token post as its member only)
    assert as_bo.headers["authorization"] != as_ada.headers["authorization"]


# --- LinkedIn's answers ------------------------------------------------------------------------


def test_401_refreshes_once_and_retries(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    linkedin.accounts.expire_access_tokens()  # the stored token ends (unknown to the service)
    dispatchers()
    post = due(user, "After a refresh")
    done = settled(user, post)
    assert done["status"] == "Published", done
    tries = linkedin.posts_with("After a refresh")
    assert [t.status for t in tries] == [401, 201]
    assert tries[0].headers["authorization"] != tries[1].headers["authorization"]
    assert any(
        r.path == "/oauth/v2/accessToken" and "refresh_token" in r.raw for r in linkedin.received
    )
    assert user.get(CHANNEL + "personal").json["connection"]["status"] == "connected"


def test_a_refused_refresh_fails_the_post_and_disconnects_the_channel(
    server, user, linkedin, dispatchers
):
    personal(user, linkedin)
    with Receiver() as receiver, Receiver() as chat, SmtpSink() as sink:
        add_endpoint(user, receiver.url, ["channel.disconnected", "post.failed"])
        address, mail_env = mailed(user, sink, chat)
        linkedin.accounts.revoke_all()  # the member removed the app at LinkedIn
        dispatchers(**mail_env)
        post = due(user, "Never sent with a dead token")
        done = settled(user, post)
        assert done["status"] == "Failed"
        assert done["last_error"] == "LinkedIn connection expired: reconnect the channel"
        assert [e["action"] for e in history(user, post)][-1] == "publish_failed"
        channel = user.get(CHANNEL + "personal").json
        assert channel["connection"]["status"] == "expired" and channel["publisher"] == "linkedin"
        arrivals = receiver.wait_for(
            lambda a: {x.type for x in a} >= {"channel.disconnected", "post.failed"}
        )
        [event] = [a for a in arrivals if a.type == "channel.disconnected"]
        assert event.json["data"]["id"] == "personal"
        assert event.json["data"]["connection"]["status"] == "expired"
        assert [t.status for t in linkedin.posts_with("Never sent with a dead token")] == [401]
        # The next due post fails at once, without asking LinkedIn.
        later = settled(user, due(user, "Also not sent"))
        assert later["last_error"] == "LinkedIn connection expired: reconnect the channel"
        assert not linkedin.posts_with("Also not sent")
        time.sleep(0.3)
        assert [a.type for a in receiver.arrivals].count("channel.disconnected") == 1
        # The owner (an admin and up) is mailed of both, once each; the chat hears of both.
        subjects = sorted(
            m["Subject"]
            for m in sink.wait_for(lambda m: len(m) >= 3 and m, what="the owner's mail")
        )
        assert [m.envelope_to for m in sink.messages] == [[address]] * 3
        assert subjects == [
            f"[{user.get(ME).json['workspace']['name']}] A post failed to publish",
        ] * 2 + [f"[{user.get(ME).json['workspace']['name']}] The channel Me was disconnected"]
        texts = [a.json["text"] for a in chat.wait_for(lambda a: len(a) >= 3)]
        assert sum("The channel Me was disconnected" in t for t in texts) == 1


def test_a_key_that_cannot_open_the_token_fails_the_post_and_breaks_the_connection(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin, brand_id="sealed")
    text = f"Sealed with another key {uuid.uuid4().hex[:8]}"
    with SmtpSink() as sink:
        address, mail_env = mailed(user, sink)
        # A dispatcher whose secrets key is not the one that sealed the token.
        dispatchers(FLASK_SECRETS_KEY=Fernet.generate_key().decode(), **mail_env)
        post = due(user, text, brand_id="sealed")
        done = settled(user, post)
        assert done["status"] == "Failed", done
        assert "cannot be read with the service's secrets key" in done["last_error"]
        assert "reconnect the channel" in done["last_error"]
        time.sleep(1)
        actions = [e["action"] for e in history(user, post)]
        assert actions[-1] == "publish_failed" and "given_back" not in actions  # no loop
        connection = user.get(CHANNEL + "sealed").json["connection"]
        assert connection["status"] == "broken"
        name = user.get(ME).json["workspace"]["name"]
        subjects = sorted(
            m["Subject"]
            for m in sink.wait_for(lambda m: len(m) >= 2 and m, what="the owner's mail")
        )
        assert subjects == [
            f"[{name}] A post failed to publish",
            f"[{name}] The channel Acme was disconnected",
        ]
        assert {a for m in sink.messages for a in m.envelope_to} == {address}
    assert not linkedin.posts_with(text)


def test_429_gives_the_post_back_until_retry_after(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    linkedin.rate_limit_on("Throttled once", retry_after=2, times=1)
    dispatchers()
    post = due(user, "Throttled once, then fine")
    waiting = None  # while it waits, its status says why, when it tries again, and how often
    for _ in range(300):
        waiting = user.get(ITEM + post["id"]).json
        if waiting["retrying"]:
            break
        time.sleep(0.02)
    assert waiting["status"] == "Scheduled", waiting  # given back for 2 s: seen within them
    assert "429" in waiting["retrying"]["cause"] and waiting["retrying"]["tries"] == 1
    assert waiting["retrying"]["next_try_at"] > waiting["scheduled_at"]
    done = settled(user, post, timeout=30)
    assert done["status"] == "Published" and done["retrying"] is None
    first, second = linkedin.posts_with("Throttled once")
    assert (first.status, second.status) == (429, 201)
    assert second.at - first.at >= 1.9
    actions = [e["action"] for e in history(user, post)]
    assert actions == ["created", "scheduled", "claimed", "given_back", "claimed", "published"]
    given_back = history(user, post)[3]
    assert "429" in given_back["detail"] and "tried again after 2 s" in given_back["detail"]


def test_another_4xx_fails_with_linkedins_message(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    linkedin.fail_on("Refused by LinkedIn", 422, "Content is duplicate of urn:li:share:1")
    dispatchers()
    done = settled(user, due(user, "Refused by LinkedIn"))
    assert done["status"] == "Failed"
    assert done["last_error"] == (
        "LinkedIn refused the post. LinkedIn answered 422: Content is duplicate of urn:li:share:1"
    )
    assert len(linkedin.posts_with("Refused by LinkedIn")) == 1


def test_a_linkedin_version_linkedin_does_not_serve_fails_the_post(
    server, user, linkedin, dispatchers
):
    personal(user, linkedin)
    dispatchers(FLASK_LINKEDIN_VERSION="202001")
    done = settled(user, due(user, "An old version"))
    assert done["status"] == "Failed"
    assert (
        "426" in done["last_error"]
        and "Requested version 20200101 is not active" in done["last_error"]
    )


def test_a_5xx_is_checked_and_failed_when_the_post_is_not_there(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    linkedin.fail_on("Server trouble", 500, "Internal Server Error")
    dispatchers()
    post = due(user, "Server trouble at LinkedIn", brand_id="acme")
    done = settled(user, post)
    assert done["status"] == "Failed"
    assert (
        "outcome of publishing at LinkedIn was unknown (LinkedIn answered 500" in done["last_error"]
    )
    assert "not among the newest posts of urn:li:organization:2414183" in done["last_error"]
    assert len(linkedin.posts_with("Server trouble")) == 1  # never sent again blind
    lists = [r for r in linkedin.received if r.method == "GET" and r.path == "/rest/posts"]
    assert lists and "author=urn%3Ali%3Aorganization%3A2414183" in lists[-1].query
    assert history(user, post)[-1]["detail"] == "unknown outcome, not found on LinkedIn"


def test_a_timeout_is_checked_and_published_when_the_post_is_there(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    linkedin.delay_on("Slow LinkedIn", 4)  # made at once, answered after the 2 s timeout
    dispatchers()
    post = due(user, "Slow LinkedIn made it", brand_id="acme")
    done = settled(user, post, timeout=30)
    assert done["status"] == "Published", done
    [made] = linkedin.posts_with("Slow LinkedIn")
    assert done["linkedin_post_id"] == made.urn
    last = history(user, post)[-1]
    assert (
        last["action"] == "published"
        and last["detail"] == f"confirmed after an unknown outcome: {made.urn}"
    )
    time.sleep(1)
    assert len(linkedin.posts_with("Slow LinkedIn")) == 1


PAGE = "urn:li:organization:2414183"


@pytest.mark.both_backends  # the store's check of who holds a URN: its PostgreSQL half in make test too
def test_an_unknown_outcome_never_takes_the_urn_another_post_holds(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    text = f"The same words twice {uuid.uuid4().hex[:8]}"
    dispatchers()
    first = settled(user, due(user, text, brand_id="acme"))
    assert first["status"] == "Published", first
    linkedin.fail_on(text, 500, "Internal Server Error")  # creates nothing
    done = settled(user, due(user, text, brand_id="acme"))
    assert done["status"] == "Failed", done
    assert done["linkedin_post_id"] is None
    assert "not among the newest posts" in done["last_error"]
    assert len(linkedin.posts_with(text)) == 2  # each sent once; only the first was made


def test_an_unknown_outcome_never_takes_a_post_made_before_it_was_sent(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    text = f"Made by hand at LinkedIn {uuid.uuid4().hex[:8]}"
    linkedin.made_elsewhere(PAGE, text, seconds_ago=60)
    linkedin.fail_on(text, 500, "Internal Server Error")
    dispatchers()
    done = settled(user, due(user, text, brand_id="acme"))
    assert done["status"] == "Failed", done
    assert done["linkedin_post_id"] is None
    assert "not among the newest posts" in done["last_error"]


def test_two_candidates_after_an_unknown_outcome_fail_the_post_naming_both(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    text = f"Which one is mine {uuid.uuid4().hex[:8]}"
    linkedin.delay_on(text, 4)  # made at once, answered after the 2 s timeout
    dispatchers()
    post = due(user, text, brand_id="acme")
    [sent] = wait_until(lambda: linkedin.posts_with(text), what="the post sent")
    other = linkedin.made_elsewhere(PAGE, text)  # while the service waits for its answer
    done = settled(user, post, timeout=30)
    assert done["status"] == "Failed", done
    wait_until(lambda: sent.urn, what="the stand-in's answer")
    assert sent.urn in done["last_error"] and other in done["last_error"]
    assert "cannot tell which" in done["last_error"]
    detail = history(user, post)[-1]["detail"]
    assert detail.startswith("unknown outcome, 2 candidates on LinkedIn") and other in detail
    assert len(linkedin.posts_with(text)) == 1


def test_a_dropped_connection_is_checked_never_resent(server, user, linkedin, dispatchers):
    brand(user, linkedin)
    linkedin.drop_on("Dropped on the way")
    dispatchers()
    done = settled(user, due(user, "Dropped on the way", brand_id="acme"))
    assert done["status"] == "Failed" and "not among the newest posts" in done["last_error"]
    assert len(linkedin.posts_with("Dropped on the way")) == 1


def test_an_unknown_outcome_on_a_personal_channel_cannot_be_checked(
    server, user, linkedin, dispatchers
):
    personal(user, linkedin)
    linkedin.fail_on("Personal trouble", 503, "Service Unavailable")
    dispatchers()
    done = settled(user, due(user, "Personal trouble"))
    assert done["status"] == "Failed"
    assert "could not be checked" in done["last_error"] and "r_member_social" in done["last_error"]
    assert len(linkedin.posts_with("Personal trouble")) == 1
    assert not any(
        r.path == "/rest/posts" and r.method == "GET" for r in linkedin.received if "ada" in r.query
    )


# --- the tokens' lifetime ------------------------------------------------------------------------


def test_a_token_near_its_end_is_refreshed_ahead(server, user, linkedin, dispatchers):
    linkedin.accounts.access_lifetime = 3 * 86400  # within 7 days from the start
    before = personal(user, linkedin)["connection"]["expires_at"]
    refreshes = len([r for r in linkedin.received if "grant_type=refresh_token" in r.raw])
    dispatchers()
    wait_until(
        lambda: (
            len([r for r in linkedin.received if "grant_type=refresh_token" in r.raw]) > refreshes
        ),
        what="a refresh ahead",
    )
    after = user.get(CHANNEL + "personal").json["connection"]
    assert after["status"] == "connected"
    moved = datetime.fromisoformat(after["expires_at"]) - datetime.fromisoformat(before)
    assert abs(moved.total_seconds()) < 3  # still the refresh token's end: a year away


def test_a_token_that_cannot_be_refreshed_warns_once_as_expiring(
    server, user, linkedin, dispatchers
):
    linkedin.accounts.access_lifetime = 3 * 86400
    linkedin.accounts.refresh_lifetime = None  # most apps get no refresh token
    with Receiver() as receiver:
        add_endpoint(user, receiver.url, ["channel.expiring", "channel.disconnected"])
        channel = personal(user, linkedin)
        assert channel["connection"]["status"] == "expiring"  # shown as it is at once
        dispatchers()
        [event] = receiver.wait_for(lambda a: len(a) >= 1)
        assert (
            event.type == "channel.expiring"
            and event.json["data"]["connection"]["status"] == "expiring"
        )
        dispatchers()  # a second dispatcher, a second look: still one event
        time.sleep(1.5)
        assert [a.type for a in receiver.arrivals] == ["channel.expiring"]


# --- several dispatchers ----------------------------------------------------------------------


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_two_dispatchers_publish_200_due_posts_once_each(server, user, linkedin, dispatchers):
    """The database holds the rule: each post is taken by one dispatcher and
    marked sending once, so LinkedIn gets each exactly once."""
    personal(user, linkedin)
    tag = f"Two dispatchers {uuid.uuid4().hex[:8]}"
    names = {dispatchers(FLASK_LINKEDIN_PUBLISH_WORKERS="8").name for _ in range(2)}
    ids = schedule_posts(server.url, user.key, [past(i) for i in range(200)], content=tag)
    wait_until(
        lambda: all(p["status"] == "Published" for p in read_posts(user).values()),
        timeout=120,
        what="200 posts Published",
    )
    made = linkedin.posts_with(tag)
    assert len(made) == 200 and all(m.status == 201 for m in made)
    assert sorted(m.commentary for m in made) == sorted(f"{tag} {i}" for i in range(200))
    posts = read_posts(user)
    assert {p["linkedin_post_id"] for p in posts.values()} == {m.urn for m in made}
    takers = set()
    for post_id in ids:
        steps = user.get(HISTORY + post_id).json["data"]
        actions = [e["action"] for e in steps]
        assert actions.count("claimed") == 1 and actions.count("published") == 1, actions
        [claimed] = [e for e in steps if e["action"] == "claimed"]
        takers |= {name for name in names if f"({name})" in claimed["detail"]}
    assert takers == names  # both took a share


# --- the whole plan: media and a first comment --------------------------------------------------


def picture(color="red"):
    out = io.BytesIO()
    Image.new("RGB", (12, 8), color).save(out, "PNG")
    return out.getvalue()


def library(user, data, content_type="image/png"):
    r = user.post(MEDIA, data, headers={"Content-Type": content_type})
    assert r.status == 201, r
    return r.json


def test_an_image_post_with_a_first_comment_is_published_whole(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    data = picture()
    image = library(user, data)
    dispatchers()
    post = due(
        user,
        "A picture (with a comment)",
        media_urls=[image["url"]],
        media_alt=["A red rectangle"],
        first_comment="The link: https://example.com/notes_(v2)",
    )
    done = settled(user, post)
    assert done["status"] == "Published", done
    [made] = linkedin.posts_with("A picture")
    urn = made.body["content"]["media"]["id"]
    assert made.body["content"]["media"] == {"id": urn, "altText": "A red rectangle"}
    kept = user.get(urlsplit(image["url"]).path).body  # the library's file, as written anew
    assert linkedin.uploads[urn].data == kept and kept.startswith(data[:8])
    assert linkedin.uploads[urn].owner == f"urn:li:person:{ADA}"
    # The comment is sent once the post is Published: wait for the post to
    # keep its URN, then it was made, once
    done = wait_until(lambda: (p := user.get(ITEM + post["id"]).json)["first_comment_urn"] and p)
    [(on, comment_urn, body)] = [c for c in linkedin.comments if c[0] == made.urn]
    assert body["message"]["text"] == "The link: https://example.com/notes_(v2)"
    assert done["first_comment_urn"] == comment_urn and done["first_comment_error"] is None
    assert [e["action"] for e in history(user, post)][-2:] == ["published", "commented"]


def test_a_comment_linkedin_refuses_leaves_the_post_published(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    linkedin.fail_comment_on("Refused comment", 422, "Comment text is not allowed")
    dispatchers()
    post = due(user, "Post with a refused comment", first_comment="Refused comment here")
    done = wait_until(
        lambda: (p := user.get(ITEM + post["id"]).json)["first_comment_error"] and p,
        what="the comment's outcome",
    )
    assert done["status"] == "Published"
    assert "Comment text is not allowed" in done["first_comment_error"]
    assert [e["action"] for e in history(user, post)][-1] == "comment_failed"
    assert len(linkedin.posts_with("Post with a refused comment")) == 1


def test_an_upload_linkedin_refuses_posts_nothing(server, user, linkedin, dispatchers):
    brand(user, linkedin, brand_id="pictures")
    linkedin.refuse_uploads_for("urn:li:organization:2414183", 403, "No uploads for this page")
    image = library(user, picture("blue"))
    dispatchers()
    post = due(user, "Never without its image", brand_id="pictures", media_urls=[image["url"]])
    done = settled(user, post)
    assert done["status"] == "Failed"
    assert done["last_error"].startswith("Nothing was posted: LinkedIn refused the image")
    assert "No uploads for this page" in done["last_error"]
    assert not linkedin.posts_with("Never without its image")


@pytest.mark.both_backends  # raced against the store: its PostgreSQL half in make test too
def test_nobody_ends_a_handoff_the_service_is_sending(server, user, linkedin, dispatchers):
    """While the service sends a post, no report (give back, Failed, the
    callback) may end its handoff: it would be sent again, or shown Failed
    while live."""
    personal(user, linkedin)
    hold = linkedin.hold_on("Held while the service sends it")
    dispatchers()
    post = due(user, "Held while the service sends it")
    try:
        assert hold.holding.wait(15)
        sending = user.get(ITEM + post["id"]).json
        assert sending["status"] == "Publishing"
        for change in ({"status": "Scheduled"}, {"status": "Failed", "last_error": "no"}):
            r = user.patch(ITEM + post["id"], change)
            assert r.status == 409 and r.json["error"]["details"]["publisher"] == "linkedin", r
        r = user.post(CALLBACK, {"post_id": post["id"], "linkedin_post_id": "urn:li:share:1"})
        assert r.status == 409, r
        assert user.get(ITEM + post["id"]).json == sending  # nothing changed
    finally:
        hold.release()
    done = settled(user, post)
    assert done["status"] == "Published"
    assert len(linkedin.posts_with("Held while the service sends it")) == 1


# --- a publisher killed between the post and its first comment ---------------------------------


def comments_on(linkedin, urn):
    return [c for c in linkedin.comments if c[0] == urn]


@pytest.mark.both_backends  # the store's conditional marks: its PostgreSQL half in make test too
def test_a_publisher_killed_after_linkedins_201_resumes_the_first_comment_once(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    text = f"Killed after the 201 {uuid.uuid4().hex[:8]}"
    hold = linkedin.hold_on(text)  # made at LinkedIn, its 201 held
    doomed = dispatchers()
    post = due(user, text, brand_id="acme", first_comment="The link: https://example.com/more")
    try:
        assert hold.holding.wait(15)
        doomed.kill()  # SIGKILL: LinkedIn has the post, the service has no URN
    finally:
        hold.release()
    dispatchers()  # the restart
    done = wait_until(
        lambda: (p := user.get(ITEM + post["id"]).json)["first_comment_urn"] and p,
        timeout=60,
        what="the first comment resumed",
    )
    [made] = linkedin.posts_with(text)
    assert done["status"] == "Published" and done["linkedin_post_id"] == made.urn
    [(_, comment_urn, body)] = comments_on(linkedin, made.urn)
    assert done["first_comment_urn"] == comment_urn and done["first_comment_error"] is None
    assert body["message"]["text"] == "The link: https://example.com/more"
    assert [e["action"] for e in history(user, post)][-2:] == ["published", "commented"]
    time.sleep(12)  # past another round's grace: never sent again
    assert len(comments_on(linkedin, made.urn)) == 1
    assert len(linkedin.posts_with(text)) == 1


@pytest.mark.both_backends  # the store's conditional marks: its PostgreSQL half in make test too
def test_a_publisher_killed_while_sending_the_comment_never_sends_it_twice(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin)
    text = f"Killed while commenting {uuid.uuid4().hex[:8]}"
    hold = linkedin.hold_comment_on("held comment")  # made at LinkedIn, its 201 held
    doomed = dispatchers()
    post = due(user, text, brand_id="acme", first_comment="A held comment")
    try:
        assert hold.holding.wait(15)
        doomed.kill()
    finally:
        hold.release()
    dispatchers()
    done = wait_until(
        lambda: (p := user.get(ITEM + post["id"]).json)["first_comment_error"] and p,
        timeout=60,
        what="the comment's outcome kept",
    )
    [made] = linkedin.posts_with(text)
    assert done["status"] == "Published" and done["first_comment_urn"] is None
    assert "stopped while sending the first comment" in done["first_comment_error"]
    assert [e["action"] for e in history(user, post)][-1] == "comment_failed"
    time.sleep(12)
    assert len(comments_on(linkedin, made.urn)) == 1  # LinkedIn's one, never sent again


# --- its posts' figures ------------------------------------------------------------------------


def bring_forward(database, post_id):
    """The post's next stats collection due now, as if its hour had passed
    (the dispatcher runs in a process of its own, on the wall clock)."""
    sql = "UPDATE stats_collections SET due_at = '2000-01-01T00:00:00.000000Z' WHERE post_id = ?"
    if str(database).startswith("postgres"):
        with psycopg.connect(str(database), autocommit=True) as conn:
            assert conn.execute(sql.replace("?", "%s"), (post_id,)).rowcount == 1
    else:
        with sqlite3.connect(database, timeout=30) as conn:
            assert conn.execute(sql, (post_id,)).rowcount == 1
        conn.close()


def test_the_dispatcher_reads_a_posts_figures_when_they_are_due(
    server, user, linkedin, dispatchers
):
    brand(user, linkedin, brand_id="figures")
    dispatchers()
    post = settled(user, due(user, "Figures the dispatcher reads", brand_id="figures"))
    assert post["status"] == "Published", post
    urn = post["linkedin_post_id"]
    linkedin.set_figures(urn, impressions=321, members_reached=300, reactions=7, clicks=2)
    time.sleep(0.5)
    assert user.get(f"{STATS}/{post['id']}").json["data"] == []  # not before its hour
    assert not linkedin.statistics_calls(urn)
    bring_forward(server.database, post["id"])
    read = wait_until(
        lambda: (s := user.get(f"{STATS}/{post['id']}").json)["latest"] and s,
        what="the figures read",
    )
    assert read["latest"]["impressions"] == 321 and read["latest"]["clicks"] == 2
    time.sleep(0.5)
    assert len(linkedin.statistics_calls(urn)) == 1  # once: the next read is a day away
    assert len(user.get(f"{STATS}/{post['id']}").json["data"]) == 1
