"""The service's own collection of stats, on both backends, against the
LinkedIn stand-in with the service's clock moved: a post of a connected
channel is read at 1 hour, 24 hours, 7 days and 30 days after it went out
(a page's through organizationalEntityShareStatistics, a member's through
socialActions), each read kept as a snapshot taken then, and nothing after
30 days. One failing call never stops the others and is tried again later,
a few times; another owner's posts and unconnected channels are untouched.
What a client reads is GET /api-v2-posts-stats/{id}.

The publisher's rounds run here, in process (the dispatcher runs the same
`round` in its loop), so that the clock can move by days between them."""

import logging
import queue
import threading
from datetime import timedelta

import pytest

from content_publishing import timestamps
from content_publishing.analytics import collection
from content_publishing.publisher.loop import Publisher
from content_publishing.schemas import media_refs
from harness.api import CALLBACK, IMPORT, ITEM, POSTS, STATS
from harness.linkedin_accounts import OPEN_SCOPES
from tests.linkedin_support import (
    CALLBACK as LINKEDIN_CALLBACK,
)
from tests.linkedin_support import (
    CHANNEL,
    CHANNELS,
    CLIENT_ID,
    CLIENT_SECRET,
    CONNECT,
    authorize,
    leaked,
    linkedin_for,
    settings,
)

PUBLIC = "http://cps.test"
PAGE = "urn:li:organization:2414183"
HOUR, DAY = 3600, 86400
AGES = [HOUR, DAY, 7 * DAY, 30 * DAY]


@pytest.fixture
def linkedin(app):
    with linkedin_for(PUBLIC) as standin:
        # An app LinkedIn approved for r_member_social: a member's figures are readable.
        standin.accounts.add_app(
            CLIENT_ID, CLIENT_SECRET, PUBLIC + LINKEDIN_CALLBACK, OPEN_SCOPES | {"r_member_social"}
        )
        app.config.update(settings(standin, PUBLIC))
        app.config.update(LINKEDIN_MEMBER_POSTS_READABLE=True, LINKEDIN_TIMEOUT_SECONDS=2)
        yield standin


@pytest.fixture(autouse=True)
def no_token_in_the_logs(request, caplog):
    caplog.set_level(logging.DEBUG)
    standin = request.getfixturevalue("linkedin") if "linkedin" in request.fixturenames else None
    yield
    if standin is not None:
        assert not leaked(standin, caplog.text)


@pytest.fixture
def publisher(app, linkedin):
    found = Publisher.of(app, "test-dispatcher", threading.Event())
    assert found is not None
    return found


def run(app, publisher):
    """One round of the publisher, its work done here and now, as its
    threads would; how many jobs it took."""
    jobs = 0
    with app.app_context():
        media_refs.PUBLIC_URL.set(PUBLIC)
        publisher.round()
        while True:
            try:
                job, item = publisher.tasks.get_nowait()
            except queue.Empty:
                return jobs
            jobs += 1
            try:
                job(item)
            finally:
                with publisher.lock:
                    publisher.in_flight -= 1


def connect(api, linkedin, channel_id, **fields):
    r = api.post(CHANNELS, json=fields)
    assert r.status_code == 201, r.get_json()
    r = api.post(CONNECT + channel_id)
    assert r.status_code == 200, r.get_json()
    status, back = authorize(linkedin, r.get_json()["authorize_url"])
    assert status == 302, back
    assert api.client.get(back).status_code == 303
    channel = api.get(CHANNEL + channel_id).get_json()
    assert channel["connection"]["status"] == "connected", channel
    return channel


def brand(api, linkedin):
    return connect(
        api, linkedin, "acme", type="brand", brand_id="acme", name="Acme", author_urn=PAGE
    )


def personal(api, linkedin):
    return connect(api, linkedin, "personal", type="personal", name="Me")


def published_by_the_service(app, api, publisher, clock, content, brand_id=None):
    """A post scheduled a little ahead, then, with the clock moved past its
    time, published by the service's own publisher."""
    lead = app.config["SCHEDULE_MIN_LEAD_SECONDS"] + 1
    body = {
        "type": "brand" if brand_id else "personal",
        "content": content,
        "scheduled_at": timestamps.later(timestamps.now_text(), lead),
    }
    if brand_id:
        body["brand_id"] = brand_id
    r = api.post(POSTS, json=body)
    assert r.status_code == 201, r.get_json()
    r = api.patch(ITEM + r.get_json()["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    clock.advance(lead + 1)
    run(app, publisher)
    post = api.get(ITEM + r.get_json()["id"]).get_json()
    assert post["status"] == "Published", post
    return post


def reported(api, content, urn, brand_id=None):
    """A post an automation published and reported through the callback."""
    row = {"type": "brand", "brand_id": brand_id} if brand_id else {"type": "personal"}
    scheduled = timestamps.later(timestamps.now_text(), 3600)
    r = api.post(IMPORT, json={"posts": [{**row, "content": content, "scheduled_at": scheduled}]})
    assert r.status_code == 201, r.get_json()
    [made] = r.get_json()["data"]
    r = api.post(CALLBACK, json={"post_id": made["id"], "linkedin_post_id": urn})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def at_age(clock, post, seconds, after=1):
    """The service's clock `after` seconds past `seconds` after the post went out."""
    moment = timestamps.parse(post["published_at"]) + timedelta(seconds=seconds + after)
    clock.advance((moment - timestamps.now()).total_seconds())
    return timestamps.to_text(moment)


def stats(api, post):
    r = api.get(f"{STATS}/{post['id']}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def near(text, moment, seconds=5):
    return abs((timestamps.parse(text) - timestamps.parse(moment)).total_seconds()) < seconds


def figures(n):
    """Figures that grow with n."""
    return {
        "impressions": 100 * n,
        "members_reached": 80 * n,
        "reactions": 10 * n,
        "comments": 3 * n,
        "reshares": n,
        "clicks": 5 * n,
    }


# --- the four ages ----------------------------------------------------------------------------


def test_a_pages_post_is_collected_at_the_four_ages_then_never_again(
    app, api, linkedin, publisher, clock
):
    brand(api, linkedin)
    post = published_by_the_service(app, api, publisher, clock, "Figures to come", brand_id="acme")
    urn = post["linkedin_post_id"]
    assert run(app, publisher) == 0  # nothing due before the first hour
    assert not linkedin.statistics_calls()
    moments = []
    for n, age in enumerate(AGES, start=1):
        at_age(clock, post, age, after=-60)
        assert run(app, publisher) == 0  # a minute early: nothing
        linkedin.set_figures(urn, **figures(n))
        moments.append(at_age(clock, post, age))
        assert run(app, publisher) == 1
        assert run(app, publisher) == 0  # read once per age
    shown = stats(api, post)
    assert [s["impressions"] for s in shown["data"]] == [100, 200, 300, 400]
    for snapshot, moment in zip(shown["data"], moments, strict=True):
        assert near(snapshot["taken_at"], moment)
    assert shown["latest"] == {
        **shown["data"][-1],
        **figures(4),
        "engagement": (40 + 12 + 4 + 20) / 400,
    }
    assert api.get(ITEM + post["id"]).get_json()["stats"]["impressions"] == 400
    calls = linkedin.statistics_calls(urn)
    assert len(calls) == 4
    for call in calls:
        assert call.path == "/rest/organizationalEntityShareStatistics"
        assert call.query == (
            "q=organizationalEntity&organizationalEntity=urn%3Ali%3Aorganization%3A2414183"
            f"&shares=List({urn.replace(':', '%3A')})"
        )
        assert call.headers["x-restli-protocol-version"] == "2.0.0"
        assert call.headers["linkedin-version"] == app.config["LINKEDIN_VERSION"]
        assert call.status == 200
    with app.app_context():
        assert collection.of_post(post["id"]) is None  # its schedule ended
    for later in (31 * DAY, 60 * DAY):
        at_age(clock, post, later)
        assert run(app, publisher) == 0
    assert len(linkedin.statistics_calls(urn)) == 4
    assert len(stats(api, post)["data"]) == 4


def test_a_members_post_gets_its_likes_and_comments(app, api, linkedin, publisher, clock):
    personal(api, linkedin)
    post = published_by_the_service(app, api, publisher, clock, "A member's own words")
    urn = post["linkedin_post_id"]
    linkedin.set_figures(urn, reactions=7, comments=2, impressions=999)
    moment = at_age(clock, post, HOUR)
    assert run(app, publisher) == 1
    [call] = linkedin.statistics_calls(urn)
    assert call.path == "/rest/socialActions/" + urn.replace(":", "%3A") and call.status == 200
    [snapshot] = stats(api, post)["data"]
    assert near(snapshot["taken_at"], moment)
    assert (snapshot["reactions"], snapshot["comments"]) == (7, 2)
    assert snapshot["impressions"] is None and snapshot["clicks"] is None  # LinkedIn gives none
    assert snapshot["engagement"] is None


def test_a_members_post_without_r_member_social_is_not_read(app, api, linkedin, publisher, clock):
    app.config["LINKEDIN_MEMBER_POSTS_READABLE"] = False  # most apps: no r_member_social
    personal(api, linkedin)
    post = published_by_the_service(app, api, publisher, clock, "Nobody may count these")
    at_age(clock, post, HOUR)
    run(app, publisher)
    assert not linkedin.statistics_calls()
    assert stats(api, post)["data"] == []
    with app.app_context():
        assert collection.of_post(post["id"]) is None
    at_age(clock, post, DAY)
    assert run(app, publisher) == 0


def test_a_post_an_automation_reported_on_a_connected_channel_is_collected(
    app, api, linkedin, publisher, clock
):
    brand(api, linkedin)
    r = api.patch(CHANNEL + "acme", json={"publisher": "automation"})
    assert r.status_code == 200, r.get_json()
    urn = linkedin.made_elsewhere(PAGE, "Posted by the automation")
    post = reported(api, "Posted by the automation", urn, brand_id="acme")
    linkedin.set_figures(urn, **figures(1))
    at_age(clock, post, HOUR)
    assert run(app, publisher) == 1
    assert stats(api, post)["latest"]["impressions"] == 100


# --- failures --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message"),
    [(500, "Internal Server Error"), (429, "Too many requests"), (403, "Not enough permissions")],
)
def test_one_failing_call_never_stops_the_others_and_is_tried_again(
    app, api, linkedin, publisher, clock, status, message
):
    brand(api, linkedin)
    first = published_by_the_service(app, api, publisher, clock, "First of three", brand_id="acme")
    second = published_by_the_service(
        app, api, publisher, clock, "Second of three", brand_id="acme"
    )
    third = published_by_the_service(app, api, publisher, clock, "Third of three", brand_id="acme")
    for post in (first, second, third):
        linkedin.set_figures(post["linkedin_post_id"], **figures(1))
    linkedin.fail_statistics_for(second["linkedin_post_id"], status, message, times=1)
    at_age(clock, third, HOUR)
    assert run(app, publisher) == 3
    assert stats(api, first)["latest"]["impressions"] == 100
    assert stats(api, third)["latest"]["impressions"] == 100
    assert stats(api, second)["data"] == []
    with app.app_context():
        schedule = collection.of_post(second["id"])
    assert schedule["age"] == 0 and schedule["tries"] == 1
    assert schedule["last_error"] == f"LinkedIn answered {status}: {message}"
    assert run(app, publisher) == 0  # not at once: after a while
    clock.advance(collection.RETRY_DELAYS[0] + 1)
    assert run(app, publisher) == 1
    [snapshot] = stats(api, second)["data"]
    assert snapshot["impressions"] == 100
    with app.app_context():
        assert collection.of_post(second["id"])["age"] == 1
    assert len(linkedin.statistics_calls(second["linkedin_post_id"])) == 2


def test_an_expired_connection_is_a_failed_try_not_a_stop(app, api, linkedin, publisher, clock):
    brand(api, linkedin)
    post = published_by_the_service(app, api, publisher, clock, "Token trouble", brand_id="acme")
    urn = post["linkedin_post_id"]
    linkedin.set_figures(urn, **figures(2))
    linkedin.accounts.revoke_all()  # the member removed the app: 401, and no refresh
    at_age(clock, post, HOUR)
    assert run(app, publisher) == 1
    assert stats(api, post)["data"] == []
    with app.app_context():
        schedule = collection.of_post(post["id"])
    assert schedule["last_error"] == "LinkedIn connection expired: reconnect the channel"
    assert [c.status for c in linkedin.statistics_calls(urn)] == [401]


def test_an_age_that_keeps_failing_is_given_up_for_the_next(app, api, linkedin, publisher, clock):
    brand(api, linkedin)
    post = published_by_the_service(
        app, api, publisher, clock, "Trouble for hours", brand_id="acme"
    )
    urn = post["linkedin_post_id"]
    linkedin.set_figures(urn, **figures(3))
    linkedin.fail_statistics_for(urn, 503, "Service Unavailable", times=None)
    at_age(clock, post, HOUR)
    for delay in (0, *collection.RETRY_DELAYS):
        clock.advance(delay + 1)
        assert run(app, publisher) == 1
    assert len(linkedin.statistics_calls(urn)) == collection.TRIES
    with app.app_context():
        schedule = collection.of_post(post["id"])
    assert schedule["age"] == 1 and schedule["tries"] == 0  # on to 24 hours
    assert run(app, publisher) == 0
    linkedin.on.statistics_failures.clear()
    at_age(clock, post, DAY)
    assert run(app, publisher) == 1
    assert [s["impressions"] for s in stats(api, post)["data"]] == [300]


def test_a_dispatcher_away_for_days_reads_once_and_goes_on_to_the_next_age(
    app, api, linkedin, publisher, clock
):
    brand(api, linkedin)
    post = published_by_the_service(app, api, publisher, clock, "Read late", brand_id="acme")
    at_age(clock, post, 8 * DAY)  # past the 1 hour, 24 hours and 7 days ages
    assert run(app, publisher) == 1
    assert run(app, publisher) == 0
    with app.app_context():
        assert collection.of_post(post["id"])["age"] == 3
    at_age(clock, post, 30 * DAY)
    assert run(app, publisher) == 1
    assert len(stats(api, post)["data"]) == 2


# --- whose posts -----------------------------------------------------------------------------


def test_other_owners_and_unconnected_channels_are_untouched(
    app, api, linkedin, publisher, clock, caller
):
    brand(api, linkedin)
    mine = published_by_the_service(app, api, publisher, clock, "Alice's post", brand_id="acme")
    bob = caller("bob")
    r = bob.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Bob's Acme"})
    assert r.status_code == 201
    urn = linkedin.made_elsewhere(PAGE, "Bob's post")  # even one at the same page
    bobs = reported(bob, "Bob's post", urn, brand_id="acme")
    unconnected = reported(api, "On a channel never connected", "urn:li:share:77")
    for post in (mine, bobs):
        linkedin.set_figures(post["linkedin_post_id"], **figures(5))
    for age in AGES:
        at_age(clock, mine, age)
        run(app, publisher)
    assert len(stats(api, mine)["data"]) == 4
    assert stats(bob, bobs)["data"] == [] and stats(api, unconnected)["data"] == []
    assert not linkedin.statistics_calls(urn) and not linkedin.statistics_calls("urn:li:share:77")
    with app.app_context():
        assert collection.of_post(bobs["id"]) is None
        assert collection.of_post(unconnected["id"]) is None
