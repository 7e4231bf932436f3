"""Connecting a channel to LinkedIn, against the LinkedIn stand-in: the
authorize URL, LinkedIn's consent, the callback that keeps the connection
and finds the author, the channel's `connection` and `publisher`, and
disconnecting. The refusals: no LinkedIn app set up, a state missing,
replayed, expired or foreign, a cancelled consent, a code LinkedIn refuses,
and a publisher or author a connection does not allow. No token the
stand-in issues ever shows in an answer or in the database in the clear."""

import logging

import pytest

from content_publishing.auth import SCOPES
from harness import Client
from harness.paths import ROOT
from tests.conftest import Caller, assert_error
from tests.linkedin_support import (
    ADA,
    CALLBACK,
    CHANNEL,
    CHANNELS,
    CONNECT,
    authorize,
    callback_args,
    leaked,
    linkedin_for,
    settings,
)
from tests.test_accounts import account, writes
from tests.test_members import add_member

PUBLIC = "http://cps.test"
DASHBOARD = f"{PUBLIC}/functions/v1/dashboard#/channels?"


@pytest.fixture
def linkedin(app):
    with linkedin_for(PUBLIC) as standin:
        app.config.update(settings(standin, PUBLIC))
        yield standin


@pytest.fixture(autouse=True)
def no_token_in_the_logs(request, caplog):
    """Whatever a test does, no token the stand-in issued reaches a log line."""
    caplog.set_level(logging.DEBUG)
    standin = request.getfixturevalue("linkedin") if "linkedin" in request.fixturenames else None
    yield
    if standin is not None:
        assert not leaked(standin, caplog.text)


@pytest.fixture
def answers():
    """Every answer a test read, to look for tokens in."""
    return []


def channel(api, **fields):
    body = {"type": "personal", "name": "Me", **fields}
    r = api.post(CHANNELS, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def start(api, channel_id, answers=None, **headers):
    r = api.post(CONNECT + channel_id, headers=headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    if answers is not None:
        answers.append(r.get_data(as_text=True))
    return r.get_json()["authorize_url"]


def come_back(client, path_and_query, answers=None):
    r = client.get(path_and_query)
    if answers is not None:
        answers.append(r.get_data(as_text=True) + str(r.headers))
    return r


def connect(api, linkedin, channel_id, answers=None):
    status, back = authorize(linkedin, start(api, channel_id, answers))
    assert status == 302, back
    return come_back(api.client, back, answers)


def read(api, channel_id):
    return api.get(CHANNEL + channel_id).get_json()


# --- connecting --------------------------------------------------------------------------


def test_a_personal_channel_connects_as_its_member(
    api, linkedin, answers, stored, runner, tmp_path
):
    channel(api, author_urn="urn:li:person:typed-by-hand")
    url = start(api, "personal", answers)
    assert url.startswith(f"{linkedin.url}/oauth/v2/authorization?response_type=code&")
    args = callback_args(url)
    assert args["client_id"] == "cps-test-app"
    assert args["redirect_uri"] == f"{PUBLIC}{CALLBACK}"
    assert args["scope"] == "openid profile w_member_social"
    assert len(args["state"]) >= 43

    status, back = authorize(linkedin, url)
    assert status == 302 and back.startswith(CALLBACK + "?code=")
    r = come_back(api.client, back, answers)
    assert r.status_code == 303
    assert r.headers["Location"] == DASHBOARD + "channel=personal&connected=personal"
    assert r.headers["Referrer-Policy"] == "no-referrer"

    shown = read(api, "personal")
    answers.append(str(shown))
    assert shown["author_urn"] == f"urn:li:person:{ADA}"  # no URN typed by a person
    assert shown["publisher"] == "linkedin"  # connecting is meant to publish
    connection = shown["connection"]
    assert connection["status"] == "connected" and connection["member_name"] == "Ada Lovelace"
    assert connection["organizations"] == []
    assert connection["expires_at"] > "2027"  # the refresh token's year
    assert shown["version"] == 2
    assert not leaked(linkedin, *answers)
    assert not leaked(linkedin, stored().decode("latin-1"))  # sealed at rest
    backup = tmp_path / "backup.db"
    assert runner.invoke(args=["backup", str(backup)]).exit_code == 0
    assert backup.stat().st_size > 0
    assert not leaked(linkedin, backup.read_bytes().decode("latin-1"))  # and in a backup


def test_a_brand_channel_with_one_page_takes_it_as_its_author(api, linkedin):
    linkedin.accounts.members[ADA].pages = {"777": ("Solo Page", "ADMINISTRATOR")}
    channel(api, type="brand", brand_id="solo", name="Solo")
    url = start(api, "solo")
    assert callback_args(url)["scope"] == (
        "r_organization_admin w_organization_social r_organization_social"
    )
    status, back = authorize(linkedin, url)
    assert come_back(api.client, back).status_code == 303
    shown = read(api, "solo")
    assert shown["author_urn"] == "urn:li:organization:777"
    assert shown["connection"]["organizations"] == [
        {"urn": "urn:li:organization:777", "name": "Solo Page"}
    ]
    assert shown["connection"]["member_name"] is None


def test_several_pages_keep_the_channels_own_page_or_ask(api, linkedin):
    channel(api, type="brand", brand_id="acme", name="Acme", author_urn="urn:li:organization:90210")
    channel(api, type="brand", brand_id="other", name="Other")
    assert connect(api, linkedin, "acme").status_code == 303
    assert connect(api, linkedin, "other").status_code == 303
    acme, other = read(api, "acme"), read(api, "other")
    assert acme["author_urn"] == "urn:li:organization:90210"  # among the pages: kept
    assert other["author_urn"] is None  # the dashboard asks which
    assert {p["urn"] for p in other["connection"]["organizations"]} == {
        "urn:li:organization:2414183",
        "urn:li:organization:90210",
    }
    # The person picks one of them; no other page is taken.
    r = api.patch(CHANNEL + "other", json={"author_urn": "urn:li:organization:1234"})
    assert assert_error(r, 400, "validation_error")["details"].keys() == {"author_urn"}
    assert read(api, "other")["author_urn"] is None
    r = api.patch(CHANNEL + "other", json={"author_urn": "urn:li:organization:2414183"})
    assert r.status_code == 200 and r.get_json()["author_urn"] == "urn:li:organization:2414183"


def test_a_member_without_pages_connects_no_brand_channel(api, linkedin):
    linkedin.accounts.members[ADA].pages = {}
    channel(api, type="brand", brand_id="acme", name="Acme")
    r = connect(api, linkedin, "acme")
    assert r.status_code == 303 and "error=no_pages" in r.headers["Location"]
    assert read(api, "acme")["connection"]["status"] == "none"
    assert all(grant.revoked for grant in linkedin.accounts.grants)  # its token given back


def test_a_connected_personal_channel_keeps_its_member_as_author(api, linkedin):
    channel(api)
    connect(api, linkedin, "personal")
    r = api.patch(CHANNEL + "personal", json={"author_urn": "urn:li:person:someone-else"})
    assert assert_error(r, 400, "validation_error")["details"].keys() == {"author_urn"}
    assert read(api, "personal")["author_urn"] == f"urn:li:person:{ADA}"


def test_the_publisher_can_be_chosen_once_connected(api, linkedin):
    channel(api)
    r = api.patch(CHANNEL + "personal", json={"publisher": "linkedin"})
    error = assert_error(r, 409, "conflict")
    assert error["details"] == {"connection": "none"} and "channels-connect" in error["message"]
    assert read(api, "personal")["publisher"] == "automation"
    connect(api, linkedin, "personal")
    r = api.patch(CHANNEL + "personal", json={"publisher": "automation"})
    assert r.status_code == 200 and r.get_json()["publisher"] == "automation"
    # A reconnection keeps the person's choice.
    connect(api, linkedin, "personal")
    assert read(api, "personal")["publisher"] == "automation"
    r = api.patch(CHANNEL + "personal", json={"publisher": "linkedin"})
    assert r.status_code == 200 and r.get_json()["publisher"] == "linkedin"


@pytest.mark.backend_independent
@pytest.mark.parametrize("publisher", ["robot", "", None, 1, "LinkedIn"])
def test_a_publisher_that_is_none_of_the_two_is_refused(api, publisher):
    channel(api)
    r = api.patch(CHANNEL + "personal", json={"publisher": publisher})
    assert assert_error(r, 400, "validation_error")["details"].keys() == {"publisher"}
    assert read(api, "personal")["publisher"] == "automation"


def test_a_new_channel_cannot_start_published_by_the_service(api, linkedin):
    r = api.post(CHANNELS, json={"type": "personal", "name": "Me", "publisher": "linkedin"})
    assert assert_error(r, 409, "conflict")["details"] == {"connection": "none"}
    assert api.get(CHANNELS).get_json()["data"] == []


def test_disconnecting_revokes_the_token_and_gives_the_channel_back(api, linkedin, answers):
    channel(api)
    connect(api, linkedin, "personal", answers)
    [token] = [g.access_token for g in linkedin.accounts.grants]
    r = api.client.delete(CONNECT + "personal", headers={"X-API-Key": api.key})
    assert r.status_code == 200
    shown = r.get_json()
    answers.append(r.get_data(as_text=True))
    assert shown["connection"]["status"] == "revoked" and shown["publisher"] == "automation"
    assert shown["connection"]["expires_at"] is None
    assert shown["author_urn"] == f"urn:li:person:{ADA}"
    with Client(linkedin.url) as client:  # LinkedIn no longer takes it
        refused = client.get("/v2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert refused.status == 401 and refused.json["code"] == "REVOKED_ACCESS_TOKEN"
    assert any(r.path == "/oauth/v2/revoke" for r in linkedin.received)
    # Twice is the same answer; the service can be connected again.
    again = api.client.delete(CONNECT + "personal", headers={"X-API-Key": api.key})
    assert again.status_code == 200 and again.get_json()["connection"]["status"] == "revoked"
    connect(api, linkedin, "personal")
    assert read(api, "personal")["connection"]["status"] == "connected"
    assert read(api, "personal")["publisher"] == "linkedin"
    assert not leaked(linkedin, *answers)


def test_deleting_a_channel_revokes_its_token(api, linkedin):
    channel(api)
    connect(api, linkedin, "personal")
    r = api.client.delete(CHANNEL + "personal", headers={"X-API-Key": api.key})
    assert r.status_code == 204
    assert all(grant.revoked for grant in linkedin.accounts.grants)
    assert api.get(CHANNEL + "personal").status_code == 404


# --- refused ---------------------------------------------------------------------------------


def test_without_a_linkedin_app_everything_is_a_409_naming_the_settings(api):
    channel(api)
    for r in (
        api.post(CONNECT + "personal"),
        api.client.delete(CONNECT + "personal", headers={"X-API-Key": api.key}),
        api.patch(CHANNEL + "personal", json={"publisher": "linkedin"}),
    ):
        error = assert_error(r, 409, "linkedin_not_configured")
        assert error["details"] == {
            "settings": ["FLASK_LINKEDIN_CLIENT_ID", "FLASK_LINKEDIN_CLIENT_SECRET"]
        }
        # the page that says how, and that page has that section
        assert 'docs/linkedin-connect.md, "Setting it up: a LinkedIn app"' in error["message"]
    guide = (ROOT / "docs" / "linkedin-connect.md").read_text()
    assert "\n## Setting it up: a LinkedIn app\n" in guide
    page = api.client.get(CALLBACK + "?code=x&state=y")
    assert page.status_code == 409 and "linkedin_not_configured" in page.get_data(as_text=True)
    assert read(api, "personal")["publisher"] == "automation"


def test_connecting_needs_posts_publish_and_ones_own_channel(api, linkedin, caller):
    channel(api)
    writer = caller("alice", scopes=[s for s in SCOPES if s != "posts:publish"])
    assert_error(writer.post(CONNECT + "personal"), 403, "insufficient_scope")
    bob = caller("bob")
    assert_error(bob.post(CONNECT + "personal"), 404, "not_found")
    assert_error(api.post(CONNECT + "no-such-channel"), 404, "not_found")


def test_a_replayed_state_is_refused_and_changes_nothing(api, linkedin):
    channel(api)
    status, back = authorize(linkedin, start(api, "personal"))
    assert come_back(api.client, back).status_code == 303
    before = read(api, "personal")
    page = come_back(api.client, back)
    assert page.status_code == 400 and page.mimetype == "text/html"
    assert "works once" in page.get_data(as_text=True)
    assert read(api, "personal") == before


def test_an_expired_state_is_refused_and_nothing_is_stored(api, linkedin, clock):
    channel(api)
    status, back = authorize(linkedin, start(api, "personal"))
    clock.advance(601)
    page = come_back(api.client, back)
    assert page.status_code == 400 and "10 minutes" in page.get_data(as_text=True)
    assert read(api, "personal")["connection"]["status"] == "none"


def test_foreign_and_missing_states_are_refused(api, linkedin, app):
    channel(api)
    _, back = authorize(linkedin, start(api, "personal"))
    code = callback_args(back)["code"]
    for query in (f"?code={code}&state=not-one-we-issued", f"?code={code}", "?state=&code=x"):
        page = api.client.get(CALLBACK + query)
        assert page.status_code == 400, query
    # A sign-in the dashboard started is bound to its browser: another
    # browser that brings its state back (the link was passed on) is refused.
    url = start(api, "personal", **{"Sec-Fetch-Site": "same-origin"})
    _, back = authorize(linkedin, url)
    other_browser = app.test_client()
    page = come_back(other_browser, back)
    assert page.status_code == 400 and "another browser" in page.get_data(as_text=True)
    assert read(api, "personal")["connection"]["status"] == "none"
    # The browser that started it (the test client kept the cookie) finishes it.
    url = start(api, "personal", **{"Sec-Fetch-Site": "same-origin"})
    _, back = authorize(linkedin, url)
    r = come_back(api.client, back)
    assert r.status_code == 303 and "connected=personal" in r.headers["Location"]
    assert "cps_linkedin_signin=;" in r.headers["Set-Cookie"]  # the binding is cleared


def test_a_refused_state_is_used_up(api, linkedin, app, clock):
    channel(api)
    url = start(api, "personal", **{"Sec-Fetch-Site": "same-origin"})
    _, back = authorize(linkedin, url)
    page = come_back(app.test_client(), back)  # another browser: refused
    assert page.status_code == 400 and "another browser" in page.get_data(as_text=True)
    page = come_back(api.client, back)  # then the browser that started it: too late
    assert page.status_code == 400 and "works once" in page.get_data(as_text=True)
    status, back = authorize(linkedin, start(api, "personal"))
    clock.advance(601)
    assert come_back(api.client, back).status_code == 400  # expired
    clock.advance(-601)
    page = come_back(api.client, back)
    assert page.status_code == 400 and "works once" in page.get_data(as_text=True)
    assert read(api, "personal")["connection"]["status"] == "none"


def test_a_cancelled_consent_comes_back_with_the_message(api, linkedin):
    channel(api)
    linkedin.accounts.auto_approve = False  # a person sees the page and clicks Cancel
    url = start(api, "personal")
    status, back = authorize(linkedin, url, decision="cancel")
    assert status == 302 and "error=user_cancelled_authorize" in back
    r = come_back(api.client, back)
    assert r.status_code == 303
    location = r.headers["Location"]
    assert "error=user_cancelled_authorize" in location and "You%20cancelled" in location
    assert read(api, "personal")["connection"]["status"] == "none"
    assert come_back(api.client, back).status_code == 400  # its state is spent


def test_a_person_approves_on_the_page(api, linkedin):
    channel(api)
    linkedin.accounts.auto_approve = False
    status, page = authorize(linkedin, start(api, "personal"))
    assert status == 200 and "Allow" in page and "Ada Lovelace" in page
    status, back = authorize(linkedin, start(api, "personal"), decision="approve")
    assert come_back(api.client, back).status_code == 303
    assert read(api, "personal")["connection"]["status"] == "connected"


def test_a_code_linkedin_refuses_stores_nothing(api, linkedin):
    channel(api)
    _, back = authorize(linkedin, start(api, "personal"))
    code = callback_args(back)["code"]
    with Client(linkedin.url) as client:  # the code is spent at LinkedIn meanwhile
        client.post(
            "/oauth/v2/accessToken",
            f"grant_type=authorization_code&code={code}&client_id=cps-test-app"
            "&client_secret=cps-test-app-secret-0123456789"
            f"&redirect_uri={PUBLIC}{CALLBACK}",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
    page = come_back(api.client, back)
    assert page.status_code == 400 and "authorization code" in page.get_data(as_text=True)
    assert read(api, "personal")["connection"]["status"] == "none"


def test_a_redirect_uri_linkedin_does_not_know_never_comes_back(api, linkedin, app):
    channel(api)
    app.config["PUBLIC_URL"] = "http://elsewhere.test"  # not what the app registered
    status, page = authorize(linkedin, start(api, "personal"))
    assert status == 400 and "redirect_uri does not match" in page


def test_a_connection_shows_its_end_as_time_goes_by(api, linkedin, clock):
    """Without a refresh token the connection ends with its access token:
    expiring within 7 days of that end, expired after it, as any read shows."""
    linkedin.accounts.access_lifetime = 10 * 86400
    linkedin.accounts.refresh_lifetime = None
    channel(api)
    connect(api, linkedin, "personal")
    shown = read(api, "personal")["connection"]
    assert shown["status"] == "connected"
    clock.advance(4 * 86400)
    assert read(api, "personal")["connection"]["status"] == "expiring"
    clock.advance(6 * 86400 + 1)
    assert read(api, "personal")["connection"]["status"] == "expired"
    r = api.patch(CHANNEL + "personal", json={"publisher": "linkedin"})  # it is already
    assert r.status_code == 200
    r = api.patch(CHANNEL + "personal", json={"publisher": "automation"})
    assert r.status_code == 200
    r = api.patch(CHANNEL + "personal", json={"publisher": "linkedin"})
    assert assert_error(r, 409, "conflict")["details"] == {"connection": "expired"}
    connect(api, linkedin, "personal")  # Reconnect
    assert read(api, "personal")["connection"]["status"] == "connected"


# --- a profile is its own member's ----------------------------------------------------------


def test_a_profile_is_connected_by_its_member_as_their_own_account(api, linkedin, runner):
    """Alice and Bo each have a profile: only Bo starts the sign-in of his,
    and only as his own LinkedIn account: Alice's account (connected to her
    channel) is refused, and so, once Bo is connected, is any other."""
    bo = Caller(api.client, add_member(runner, "alice", "bo", "editor")[1])
    channel(api)
    bos = channel(bo, name="Bo")["id"]
    error = assert_error(api.post(CONNECT + bos), 403, "forbidden")
    assert "only bo connects it" in error["message"]
    assert connect(api, linkedin, "personal").status_code == 303  # as Ada, Alice's account
    page = connect(bo, linkedin, bos)  # the browser is still signed in to LinkedIn as Ada
    assert page.status_code == 409 and "is connected to another member" in page.get_data(
        as_text=True
    )
    assert read(bo, bos)["connection"]["status"] == "none"
    linkedin.accounts.add_member("bo-5ub", "Bo Berg")
    linkedin.accounts.sign_in("bo-5ub")
    assert connect(bo, linkedin, bos).status_code == 303
    shown = read(bo, bos)
    assert (shown["author_urn"], shown["connection"]["member_name"]) == (
        "urn:li:person:bo-5ub",
        "Bo Berg",
    )
    gone = bo.client.delete(CONNECT + bos, headers={"X-API-Key": bo.key})
    assert gone.status_code == 200, gone.get_json()
    linkedin.accounts.add_member("carl-5ub", "Carl")
    linkedin.accounts.sign_in("carl-5ub")
    page = connect(bo, linkedin, bos)
    assert page.status_code == 409 and "connected before as another" in page.get_data(as_text=True)
    after = read(bo, bos)
    assert (
        after["connection"]["status"] == "revoked" and after["author_urn"] == "urn:li:person:bo-5ub"
    )


def test_a_member_who_leaves_has_their_profile_disconnected_and_its_token_revoked(
    api, linkedin, runner
):
    bo_id, bo_key = add_member(runner, "alice", "bo", "editor")
    bo = Caller(api.client, bo_key)
    bos = channel(bo, name="Bo")["id"]
    linkedin.accounts.add_member("bo-5ub", "Bo Berg")
    linkedin.accounts.sign_in("bo-5ub")
    assert connect(bo, linkedin, bos).status_code == 303
    assert read(api, bos)["publisher"] == "linkedin"
    r = api.client.delete(f"/functions/v1/members-item/{bo_id}", headers={"X-API-Key": api.key})
    assert r.status_code == 204
    shown = read(api, bos)
    assert (shown["connection"]["status"], shown["publisher"]) == ("revoked", "automation")
    assert shown["member"]["removed_at"] is not None
    assert all(g.revoked for g in linkedin.accounts.grants if g.member.sub == "bo-5ub")


# --- a member signed in by a session connects their own profile ------------------------------


def test_a_member_signed_in_by_a_session_connects_their_own_profile(app, api, linkedin):
    """A session has no key: the sign-in names its member, so the callback
    knows Carol began it and connects her profile as her account. A state
    altered to name another member is unknown, and connects nothing."""
    browser = app.test_client()  # Carol's, signed in by her cookie
    csrf = account(browser, app.test_cli_runner())["csrf_token"]
    same_site = {**writes(csrf), "Sec-Fetch-Site": "same-origin"}
    r = browser.post(CHANNELS, json={"type": "personal", "name": "Carol"}, headers=same_site)
    assert r.status_code == 201, r.get_json()
    carols = r.get_json()["id"]
    linkedin.accounts.add_member("carol-5ub", "Carol Chu")
    linkedin.accounts.sign_in("carol-5ub")

    forged = browser.post(CONNECT + carols, headers=same_site).get_json()["authorize_url"]
    member_id, dot, rest = callback_args(forged)["state"].partition(".")
    assert dot and member_id.isdigit()
    other = forged.replace(f"state={member_id}.", f"state={int(member_id) + 1}.")
    status, back = authorize(linkedin, other)
    assert status == 302, back
    page = come_back(browser, back)
    assert page.status_code == 400 and "unknown" in page.get_data(as_text=True)
    assert read(api, carols)["connection"]["status"] == "none"

    url = browser.post(CONNECT + carols, headers=same_site).get_json()["authorize_url"]
    status, back = authorize(linkedin, url)
    assert status == 302, back
    r = come_back(browser, back)
    assert r.status_code == 303, r.get_data(as_text=True)
    assert r.headers["Location"] == DASHBOARD + f"channel={carols}&connected={carols}"
    shown = read(api, carols)
    assert (shown["author_urn"], shown["connection"]["member_name"]) == (
        "urn:li:person:carol-5ub",
        "Carol Chu",
    )


def test_a_session_cannot_start_the_sign_in_of_another_members_profile(app, api, linkedin):
    channel(api)  # Alice's profile
    browser = app.test_client()
    csrf = account(browser, app.test_cli_runner(), role="admin")["csrf_token"]
    error = assert_error(browser.post(CONNECT + "personal", headers=writes(csrf)), 403, "forbidden")
    assert "only alice connects it" in error["message"]
    assert read(api, "personal")["connection"]["status"] == "none"
