"""Accounts: passwords, signing in, sessions and their CSRF rule, links,
the limit of failed sign-ins (docs/accounts.md). Both backends."""

import re

import pytest

from content_publishing.accounts import signin
from tests.conftest import assert_error

SESSION = "/functions/v1/session"
LINK = "/functions/v1/session-link"
LINK_USE = "/functions/v1/session-link-use"
RESET = "/functions/v1/password-reset"
SESSIONS = "/functions/v1/sessions"
ME = "/functions/v1/me"
POSTS = "/functions/v1/api-v2-posts"
ORIGIN = {"Origin": "http://localhost"}
PASSWORD = "correct horse battery"


def add_member(runner, name, role="editor", email=None, workspace="alice"):
    email = email or f"{name}@example.com"
    result = runner.invoke(
        args=["members", "add", "--workspace", workspace, "--name", name, "--email", email]
        + ["--role", role]
    )
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]  # their key


def printed_link(runner, email, *extra):
    result = runner.invoke(args=["accounts", "link", email, *extra])
    assert result.exit_code == 0, result.output
    return re.search(r"#/link/(\S+)$", result.output.strip())[1]


def account(client, runner, name="carol", role="editor", password=PASSWORD, **kw):
    """A member with an account and a password, signed in on `client`: the
    sign-in's answer (its csrf_token)."""
    add_member(runner, name, role, **kw)
    token = printed_link(runner, kw.get("email") or f"{name}@example.com")
    r = client.post(LINK_USE, json={"token": token, "password": password})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def writes(csrf):
    return {"X-CSRF-Token": csrf, **ORIGIN}


@pytest.fixture
def owner(make_key):
    return make_key()  # alice's workspace and its owner's key


def test_a_member_signs_in_by_link_then_with_a_password(app, client, runner, owner):
    signed = account(client, runner)
    assert signed["account"]["email"] == "carol@example.com"
    assert signed["workspace"]["role"] == "editor"
    cookie = client.get_cookie("cps_session")
    assert cookie.http_only and cookie.same_site == "Lax" and not cookie.secure
    me = client.get(ME).get_json()
    assert me["key"] is None and me["member"]["name"] == "carol"
    assert me["session"]["csrf_token"] == signed["csrf_token"]
    client.delete(SESSION, headers=writes(signed["csrf_token"]))
    assert_error(client.get(ME), 401, "unauthorized")
    r = client.post(SESSION, json={"email": "Carol@Example.com", "password": PASSWORD})
    assert r.status_code == 200, r.get_json()
    assert client.get(ME).status_code == 200


def test_a_wrong_password_and_an_unknown_address_get_the_same_answer(client, runner, owner):
    account(client, runner)
    wrong = client.post(SESSION, json={"email": "carol@example.com", "password": "x" * 12})
    nobody = client.post(SESSION, json={"email": "nobody@example.com", "password": "x" * 12})
    assert assert_error(wrong, 401, "sign_in_failed") == assert_error(nobody, 401, "sign_in_failed")


BAD_PASSWORDS = [
    ("short", "Length must be between 10 and 256."),
    ("basketball", "one of the 1,000 most common"),
    ("QwertyUiop", "one of the 1,000 most common"),
    ("1234567890", "one of the 1,000 most common"),
]


@pytest.mark.parametrize(("password", "said"), BAD_PASSWORDS)
def test_a_weak_password_is_refused_and_the_link_stays_unused(
    client, runner, owner, password, said
):
    add_member(runner, "carol")
    token = printed_link(runner, "carol@example.com")
    err = assert_error(
        client.post(LINK_USE, json={"token": token, "password": password}), 400, "validation_error"
    )
    assert said in err["details"]["password"][0]
    assert client.post(LINK_USE, json={"token": token, "password": PASSWORD}).status_code == 201


def test_a_link_works_once_and_not_after_its_minutes(client, runner, owner, clock):
    add_member(runner, "carol")
    token = printed_link(runner, "carol@example.com")
    assert client.post(LINK_USE, json={"token": token}).status_code == 201
    assert_error(client.post(LINK_USE, json={"token": token}), 410, "link_used")
    late = printed_link(runner, "carol@example.com")
    clock.advance(15 * 60 + 1)
    assert_error(client.post(LINK_USE, json={"token": late}), 410, "link_expired")
    assert_error(client.post(LINK_USE, json={"token": "nothing-of-anyone"}), 404, "not_found")


def test_a_link_of_a_removed_member_is_refused(client, runner, owner):
    add_member(runner, "carol")
    token = printed_link(runner, "carol@example.com")
    member_id = client.get("/functions/v1/members", headers={"X-API-Key": owner}).get_json()[
        "data"
    ][-1]["id"]
    removed = client.delete(f"/functions/v1/members-item/{member_id}", headers={"X-API-Key": owner})
    assert removed.status_code == 204
    assert_error(client.post(LINK_USE, json={"token": token}), 410, "link_used")
    assert client.get_cookie("cps_session") is None


def test_a_cookie_write_needs_the_csrf_token_and_this_sites_origin(client, runner, owner):
    signed = account(client, runner)
    post = {"type": "personal", "content": "by session"}
    for headers in ({}, ORIGIN, {"X-CSRF-Token": signed["csrf_token"]}):
        assert_error(client.post(POSTS, json=post, headers=headers), 403, "csrf_failed")
    other = {"X-CSRF-Token": signed["csrf_token"], "Origin": "https://evil.example"}
    assert_error(client.post(POSTS, json=post, headers=other), 403, "csrf_failed")
    assert client.get(POSTS).get_json()["total"] == 0  # nothing changed
    made = client.post(POSTS, json=post, headers=writes(signed["csrf_token"]))
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["author"]["name"] == "carol"
    history = client.get(f"/functions/v1/api-v2-posts-history/{made.get_json()['id']}").get_json()
    assert history["data"][0]["member"]["name"] == "carol"


def test_a_key_wins_over_a_cookie_and_needs_no_csrf(client, runner, owner):
    account(client, runner, role="viewer")
    r = client.post(POSTS, json={"type": "personal", "content": "k"}, headers={"X-API-Key": owner})
    assert r.status_code == 201
    assert client.get(ME, headers={"X-API-Key": owner}).get_json()["member"]["name"] == "alice"
    assert_error(client.get(ME, headers={"X-API-Key": "svc_live_" + "x" * 40}), 401, "unauthorized")


def test_a_sessions_permissions_are_its_members_role_from_the_next_request(client, runner, owner):
    signed = account(client, runner, role="viewer")
    post = {"type": "personal", "content": "by session"}
    assert_error(
        client.post(POSTS, json=post, headers=writes(signed["csrf_token"])), 403, "forbidden"
    )
    member_id = signed["workspace"]["member_id"]
    item = f"/functions/v1/members-item/{member_id}"
    r = client.patch(item, json={"role": "editor"}, headers={"X-API-Key": owner})
    assert r.status_code == 200, r.get_json()
    assert client.post(POSTS, json=post, headers=writes(signed["csrf_token"])).status_code == 201
    assert client.delete(item, headers={"X-API-Key": owner}).status_code == 204
    assert_error(client.get(POSTS), 401, "unauthorized")


def test_a_session_of_one_workspace_never_reads_another(client, runner, make_key):
    make_key("alice")
    bob = make_key("bob")
    r = client.post(
        POSTS, json={"type": "personal", "content": "bob's"}, headers={"X-API-Key": bob}
    )
    account(client, runner)
    assert client.get(POSTS).get_json()["total"] == 0
    assert_error(client.get(f"{POSTS}-item/{r.get_json()['id']}"), 404, "not_found")


def test_sessions_are_listed_and_ended_one_or_all(app, client, runner, owner):
    signed = account(client, runner)
    other = app.test_client()
    r = other.post(
        SESSION,
        json={"email": "carol@example.com", "password": PASSWORD},
        headers={"User-Agent": "Phone"},
    )
    assert r.status_code == 200
    listed = client.get(SESSIONS).get_json()["data"]
    assert len(listed) == 2 and [s["current"] for s in listed].count(True) == 1
    phone = next(s for s in listed if s["device"] == "Phone")
    ended = client.delete(f"{SESSIONS}-item/{phone['id']}", headers=writes(signed["csrf_token"]))
    assert ended.status_code == 204
    assert_error(other.get(ME), 401, "unauthorized")
    assert client.get(ME).status_code == 200
    other.post(SESSION, json={"email": "carol@example.com", "password": PASSWORD})
    assert client.delete(SESSIONS, headers=writes(signed["csrf_token"])).status_code == 204
    assert_error(other.get(ME), 401, "unauthorized")
    assert_error(client.get(ME), 401, "unauthorized")


def test_a_session_ends_after_14_days_idle_and_30_in_all(client, runner, owner, clock):
    account(client, runner)
    clock.advance(13 * 86400)
    assert client.get(ME).status_code == 200
    clock.advance(13 * 86400)
    assert client.get(ME).status_code == 200  # seen 13 days ago: still holds
    clock.advance(5 * 86400)  # 31 days since it began
    assert_error(client.get(ME), 401, "unauthorized")
    client.post(SESSION, json={"email": "carol@example.com", "password": PASSWORD})
    clock.advance(14 * 86400 + 1)
    assert_error(client.get(ME), 401, "unauthorized")


def test_failed_sign_ins_are_limited_per_address(client, runner, owner, clock):
    account(client, runner)
    wrong = {"email": "carol@example.com", "password": "wrong password"}
    for _ in range(signin.LIMIT):
        assert_error(client.post(SESSION, json=wrong), 401, "sign_in_failed")
    right = {"email": "carol@example.com", "password": PASSWORD}
    limited = client.post(SESSION, json=right)
    assert_error(limited, 429, "rate_limited")
    assert 1 <= int(limited.headers["Retry-After"]) <= signin.WINDOW_SECONDS
    clock.advance(signin.WINDOW_SECONDS + 1)
    assert client.post(SESSION, json=right).status_code == 200


def test_failed_sign_ins_are_limited_per_client(client, runner, owner):
    wrong = {"password": "wrong password"}
    for n in range(signin.LIMIT):
        client.post(SESSION, json={**wrong, "email": f"n{n}@example.com"})
    assert_error(
        client.post(SESSION, json={**wrong, "email": "x@example.com"}), 429, "rate_limited"
    )


def test_a_link_request_answers_the_same_for_any_address(app, client, runner, owner, count_rows):
    add_member(runner, "carol")
    app.config["SMTP"] = {"host": "127.0.0.1", "port": 1, "tls": None, "user": None}
    known = client.post(LINK, json={"email": "carol@example.com"})
    unknown = client.post(LINK, json={"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 202
    assert known.get_json() == unknown.get_json()
    assert count_rows("notifications") == 1
    assert client.post(RESET, json={"email": "carol@example.com"}).status_code == 202
    assert count_rows("notifications") == 2


def test_without_smtp_the_answer_names_the_operators_command(client):
    r = client.post(LINK, json={"email": "carol@example.com"})
    assert r.status_code == 202
    assert r.get_json()["mail"] is False and "flask accounts link" in r.get_json()["message"]


def test_a_reset_link_needs_a_password_and_sets_it(client, runner, owner):
    account(client, runner)
    token = printed_link(runner, "carol@example.com", "--reset")
    assert_error(client.post(LINK_USE, json={"token": token}), 400, "validation_error")
    r = client.post(LINK_USE, json={"token": token, "password": "a new one, long"})
    assert r.status_code == 201
    old = client.post(SESSION, json={"email": "carol@example.com", "password": PASSWORD})
    assert_error(old, 401, "sign_in_failed")
    new = client.post(SESSION, json={"email": "carol@example.com", "password": "a new one, long"})
    assert new.status_code == 200


def test_no_password_or_token_is_stored_in_the_clear(client, runner, owner, stored):
    signed = account(client, runner)
    token = client.get_cookie("cps_session").value
    everything = stored()
    assert PASSWORD.encode() not in everything and token.encode() not in everything
    assert b"$argon2id$" in everything
    assert signed["csrf_token"].encode() not in everything


@pytest.mark.backend_independent
def test_the_cli_refuses_an_address_of_nobody(runner):
    result = runner.invoke(args=["accounts", "link", "nobody@example.com"])
    assert result.exit_code != 0 and "No account and no member" in result.output


# --- invitations -----------------------------------------------------------------------

MEMBERS = "/functions/v1/members"
ACCEPT = "/functions/v1/invites-accept"


def invite(client, owner, name="erin", role="editor", email=None):
    r = client.post(
        MEMBERS,
        json={"name": name, "role": role, "email": email or f"{name}@example.com"},
        headers={"X-API-Key": owner},
    )
    assert r.status_code == 201, r.get_json()
    return r.get_json(), r.get_json()["invite_url"].rsplit("/", 1)[1]


def test_an_invitation_is_read_without_being_used(client, owner):
    _, token = invite(client, owner)
    for _ in range(2):
        shown = client.get(f"/functions/v1/invites/{token}")
        assert shown.status_code == 200, shown.get_json()
        body = shown.get_json()
        assert body["workspace"]["name"] == "alice" and body["member"]["role"] == "editor"
        assert body["invited_by"] == "alice" and body["has_account"] is False
    assert client.post(ACCEPT, json={"token": token}).status_code == 201
    assert_error(client.get(f"/functions/v1/invites/{token}"), 410, "invite_used")
    assert_error(client.get("/functions/v1/invites/nothing"), 404, "not_found")


def test_accepting_with_a_password_makes_the_account_and_a_session(client, owner):
    _, token = invite(client, owner)
    weak = client.post(ACCEPT, json={"token": token, "password": "1234567890"})
    assert "common" in assert_error(weak, 400, "validation_error")["details"]["password"][0]
    r = client.post(ACCEPT, json={"token": token, "password": PASSWORD})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["key"].startswith("svc_live_") and r.get_json()["csrf_token"]
    assert client.get(ME).get_json()["member"]["name"] == "erin"
    signed = client.post(SESSION, json={"email": "erin@example.com", "password": PASSWORD})
    assert signed.status_code == 200


def test_accepting_while_signed_in_links_the_account(app, client, runner, make_key):
    make_key("alice")
    bob = make_key("bob")
    signed = account(client, runner)  # carol, of alice's workspace
    _, token = invite(client, bob, name="carol-at-bob", email="carol@example.com")
    r = client.post(ACCEPT, json={"token": token}, headers=writes(signed["csrf_token"]))
    assert r.status_code == 201, r.get_json()
    me = client.get(ME).get_json()
    assert me["workspace"]["name"] == "bob"
    assert sorted(w["workspace_name"] for w in me["workspaces"]) == ["alice", "bob"]
    back = client.patch(
        SESSION, json={"workspace_id": 1}, headers=writes(me["session"]["csrf_token"])
    )
    assert back.status_code == 200 and client.get(ME).get_json()["workspace"]["name"] == "alice"


def test_a_removed_members_name_and_email_may_be_invited_again(client, owner):
    first, token = invite(client, owner)
    client.post(ACCEPT, json={"token": token, "password": PASSWORD})
    post = client.post(
        POSTS,
        json={"type": "personal", "content": "erin's"},
        headers=writes(client.get(ME).get_json()["session"]["csrf_token"]),
    )
    removed = client.delete(f"{MEMBERS}-item/{first['id']}", headers={"X-API-Key": owner})
    assert removed.status_code == 204
    again, token = invite(client, owner)
    assert again["id"] != first["id"]
    taken = client.post(ACCEPT, json={"token": token, "password": PASSWORD})
    assert taken.status_code == 201, taken.get_json()
    history = client.get(
        f"/functions/v1/api-v2-posts-history/{post.get_json()['id']}",
        headers={"X-API-Key": owner},
    ).get_json()["data"]
    assert (history[0]["member"]["id"], history[0]["member"]["name"]) == (first["id"], "erin")
    names = [
        m["name"] for m in client.get(MEMBERS, headers={"X-API-Key": owner}).get_json()["data"]
    ]
    assert names.count("erin") == 2
    dup = client.post(
        MEMBERS, json={"name": "erin", "role": "viewer"}, headers={"X-API-Key": owner}
    )
    assert_error(dup, 409, "conflict")


def test_an_invitation_is_mailed_when_smtp_is_set(app, client, owner, count_rows):
    app.config["SMTP"] = {"host": "127.0.0.1", "port": 1, "tls": None, "user": None}
    invite(client, owner)
    assert count_rows("notifications") == 1


def test_the_first_run_prints_the_owners_link(client, runner):
    out = runner.invoke(args=["keys", "demo"]).output
    token = re.search(r"#/link/(\S+)", out)[1]
    assert out.strip().splitlines()[-1].startswith("svc_live_")
    no_email = client.post(LINK_USE, json={"token": token, "password": PASSWORD})
    assert "email" in assert_error(no_email, 400, "validation_error")["details"]
    r = client.post(
        LINK_USE, json={"token": token, "password": PASSWORD, "email": "Owner@Example.com"}
    )
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["workspace"]["role"] == "owner"
    assert client.get(ME).get_json()["member"]["email"] == "owner@example.com"


# --- the account page, one's own keys, the second factor -------------------------------

ACCOUNT = "/functions/v1/account"
FACTOR = "/functions/v1/account-second-factor"
KEYS = "/functions/v1/keys"


def test_the_name_and_the_password_change_with_the_current_password(client, runner, owner):
    signed = account(client, runner)
    h = writes(signed["csrf_token"])
    r = client.patch(ACCOUNT, json={"name": "Carol C."}, headers=h)
    assert r.status_code == 200 and r.get_json()["name"] == "Carol C."
    new = "another long password"
    assert_error(client.patch(ACCOUNT, json={"password": new}, headers=h), 400, "validation_error")
    wrong = {"password": new, "current_password": "not it at all"}
    assert_error(client.patch(ACCOUNT, json=wrong, headers=h), 401, "sign_in_failed")
    ok = client.patch(ACCOUNT, json={"password": new, "current_password": PASSWORD}, headers=h)
    assert ok.status_code == 200
    again = client.post(SESSION, json={"email": "carol@example.com", "password": new})
    assert again.status_code == 200
    assert_error(client.get(ACCOUNT, headers={"X-API-Key": owner}), 404, "not_found")


def test_a_member_makes_and_revokes_keys_within_their_role(client, runner, owner):
    signed = account(client, runner, role="contributor")
    h = writes(signed["csrf_token"])
    beyond = client.post(KEYS, json={"scopes": ["posts:publish"]}, headers=h)
    assert assert_error(beyond, 403, "forbidden")["details"] == {"role": "contributor"}
    first = client.get(KEYS).get_json()["data"]  # the one `members add` made
    assert len(first) == 1
    r = client.post(KEYS, json={"scopes": ["posts:read", "posts:write"]}, headers=h)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    listed = client.get(KEYS).get_json()["data"]
    assert [k["id"] for k in listed] == [made["id"], first[0]["id"]] and "key" not in listed[0]
    me = client.get(ME, headers={"X-API-Key": made["key"]}).get_json()
    assert me["member"]["name"] == "carol" and me["key"]["scopes"] == ["posts:read", "posts:write"]
    assert client.delete(f"{KEYS}-item/{made['id']}", headers=h).status_code == 204
    assert_error(client.get(ME, headers={"X-API-Key": made["key"]}), 401, "unauthorized")
    other = client.delete(f"{KEYS}-item/1", headers=h)  # alice's key
    assert_error(other, 404, "not_found")
    assert client.get(ME, headers={"X-API-Key": owner}).status_code == 200


def test_a_key_makes_keys_of_at_most_its_own_scopes(client, caller):
    reader = caller("alice", scopes=["posts:read"])
    wider = reader.post(KEYS, json={"scopes": ["posts:write"]})
    assert_error(wider, 403, "insufficient_scope")
    assert reader.post(KEYS, json={"scopes": ["posts:read"]}).status_code == 201


def test_the_second_factor_is_set_up_then_needed_with_recovery_codes_once(client, runner, owner):
    import pyotp

    signed = account(client, runner)
    h = writes(signed["csrf_token"])
    begun = client.post(FACTOR, json={"action": "begin"}, headers=h).get_json()
    assert begun["qr_svg"].startswith("<svg") and begun["otpauth_uri"].startswith("otpauth://")
    totp = pyotp.TOTP(begun["secret"])
    bad = client.post(FACTOR, json={"action": "confirm", "code": "000000"}, headers=h)
    assert_error(bad, 400, "validation_error")
    confirmed = client.post(FACTOR, json={"action": "confirm", "code": totp.now()}, headers=h)
    codes = confirmed.get_json()["recovery_codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    creds = {"email": "carol@example.com", "password": PASSWORD}
    assert_error(client.post(SESSION, json=creds), 401, "second_factor_required")
    assert_error(client.post(SESSION, json={**creds, "code": "123456"}), 401, "sign_in_failed")
    assert client.post(SESSION, json={**creds, "code": totp.now()}).status_code == 200
    assert client.post(SESSION, json={**creds, "code": codes[0]}).status_code == 200
    assert_error(client.post(SESSION, json={**creds, "code": codes[0]}), 401, "sign_in_failed")
    token = printed_link(runner, "carol@example.com")
    assert_error(client.post(LINK_USE, json={"token": token}), 401, "second_factor_required")
    assert client.post(LINK_USE, json={"token": token, "code": codes[1]}).status_code == 201


def test_an_owner_requires_a_second_factor_of_the_workspace(client, runner, owner):
    account(client, runner)
    require = "/functions/v1/workspace-second-factor"
    editor = client.post(SESSION, json={"email": "carol@example.com", "password": PASSWORD})
    csrf = editor.get_json()["csrf_token"]
    refused = client.post(require, json={"required": True}, headers=writes(csrf))
    assert_error(refused, 403, "forbidden")
    r = client.post(require, json={"required": True}, headers={"X-API-Key": owner})
    assert r.status_code == 200
    creds = {"email": "carol@example.com", "password": PASSWORD}
    assert_error(client.post(SESSION, json=creds), 401, "second_factor_required")
    token = printed_link(runner, "carol@example.com")
    assert client.post(LINK_USE, json={"token": token}).status_code == 201  # then set it up


def test_accepting_signed_in_without_the_csrf_token_makes_only_the_key(client, runner, make_key):
    make_key("alice")
    bob = make_key("bob")
    account(client, runner)
    _, token = invite(client, bob, name="carol-at-bob", email="carol@example.com")
    r = client.post(ACCEPT, json={"token": token}, headers=ORIGIN)  # no X-CSRF-Token
    assert r.status_code == 201 and r.get_json()["csrf_token"] is None
    assert [w["workspace_name"] for w in client.get(ME).get_json()["workspaces"]] == ["alice"]
