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
import sqlite3
import time
import uuid
from datetime import datetime
from urllib.parse import urlsplit

import psycopg
import pytest
from PIL import Image

from harness import Client, Receiver, free_port, read_posts, serve
from harness.api import (
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


def due(user, content, brand_id=None, seconds=-1, **fields):
    body = {
        "type": "brand" if brand_id else "personal",
        "content": content,
        "scheduled_at": at(seconds),
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


def test_429_gives_the_post_back_until_retry_after(server, user, linkedin, dispatchers):
    personal(user, linkedin)
    linkedin.rate_limit_on("Throttled once", retry_after=2, times=1)
    dispatchers()
    post = due(user, "Throttled once, then fine")
    done = settled(user, post, timeout=30)
    assert done["status"] == "Published"
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
    [(on, comment_urn, body)] = [c for c in linkedin.comments if c[0] == made.urn]
    assert body["message"]["text"] == "The link: https://example.com/notes_(v2)"
    done = wait_until(lambda: (p := user.get(ITEM + post["id"]).json)["first_comment_urn"] and p)
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
