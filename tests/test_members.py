"""Workspaces, members and roles (docs/api.md, "Members and roles"), on both
backends: each role against every API route read from the app, the paths a
contributor might take to Scheduled or Publishing, the members routes and
invitations, the last owner, and isolation by workspace."""

import re
import threading

import pytest

from content_publishing.app import create_app
from content_publishing.auth import ANY_VALID_KEY
from content_publishing.roles import ROLE_SCOPES, ROLES, rank
from content_publishing.store.db import dispose_db
from harness.api import ME, POSTS
from tests.conftest import Caller, assert_error, together
from tests.test_auth import routes

MEMBERS = "/functions/v1/members"
MEMBER = "/functions/v1/members-item/{}".format
ACCEPT = "/functions/v1/invites-accept"
ITEM = "/functions/v1/api-v2-posts-item/{}".format


def add_member(runner, workspace, name, role, email=None, scopes=()):
    """`flask members add`: (member id, key)."""
    args = ["members", "add", "--workspace", workspace, "--name", name, "--role", role]
    if email:
        args += ["--email", email]
    for scope in scopes:
        args += ["--scope", scope]
    result = runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    return int(re.match(r"Added member (\d+) ", lines[0])[1]), lines[-1]


@pytest.fixture
def team(client, runner, make_key):
    """Workspace acme: its owner (every scope) and a member of each other
    role, each with every scope their role allows: {role: Caller}."""
    found = {"owner": Caller(client, make_key("acme"))}
    for role in ROLES[1:]:
        _, key = add_member(runner, "acme", f"{role}-person", role)
        found[role] = Caller(client, key)
    return found


def member_id(api):
    return api.get(ME).get_json()["member"]["id"]


def draft(api, content="hello"):
    r = api.post(POSTS, json={"type": "personal", "content": content})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


# --- who a key is -------------------------------------------------------------------------


def test_me_names_the_workspace_and_the_member_with_their_role(team):
    for role, api in team.items():
        body = api.get(ME).get_json()
        assert body["user"] == "acme" == body["workspace"]["name"]
        assert body["member"]["role"] == role
        assert body["member"]["name"] == ("acme" if role == "owner" else f"{role}-person")
        assert set(body["member"]) == {"id", "name", "email", "role"}
        assert sorted(body["key"]["scopes"]) == sorted(
            s for s in ROLE_SCOPES[role]
        )  # what `members add` grants by default
    ids = {api.get(ME).get_json()["workspace"]["id"] for api in team.values()}
    assert len(ids) == 1


def test_keys_create_for_a_new_user_makes_a_workspace_and_its_owner(caller):
    body = caller("newco").get(ME).get_json()
    assert body["workspace"]["name"] == "newco"
    assert body["member"] == {
        "id": body["member"]["id"],
        "name": "newco",
        "email": None,
        "role": "owner",
    }


# --- roles against every route ----------------------------------------------------------


def _refused_by_role(role, scope, least):
    return scope not in ROLE_SCOPES[role] or (least and rank(role) < rank(least))


@pytest.mark.parametrize("role", ROLES)
def test_each_role_against_every_route(app, client, runner, make_key, role):
    """Every route read from the app: a key with every scope its member may
    carry is refused with 403 forbidden, naming the role, exactly where the
    role forbids the route's scope or asks a higher role; elsewhere it gets
    past the checks (whatever the body then makes of it)."""
    owner = make_key("roles")
    if role == "owner":
        key = owner
    else:
        _, key = add_member(runner, "roles", f"a-{role}", role, scopes=sorted(ROLE_SCOPES[role]))
    for method, path, scope in routes(app):
        if scope == ANY_VALID_KEY:
            continue
        view = app.view_functions[app.url_map.bind("").match(path, method)[0]]
        least = getattr(view, "required_role", None)
        r = client.open(
            path,
            method=method,
            data="{not json",
            content_type="application/json",
            headers={"X-API-Key": key},
        )
        if _refused_by_role(role, scope, least):
            err = assert_error(r, 403, "forbidden")
            assert err["details"] == {"role": role}, (method, path)
            assert f"role {role}" in err["message"], (method, path)
        else:
            assert r.status_code != 403, (method, path, r.get_json())
            assert r.status_code != 401, (method, path)


def test_a_key_scope_outside_the_role_is_refused_even_when_the_key_has_it(client, runner, make_key):
    """`keys create --member` may give any scope; the role still bounds it."""
    make_key("acme")
    viewer, _ = add_member(runner, "acme", "vera", "viewer")
    result = runner.invoke(
        args=[
            "keys",
            "create",
            "--member",
            str(viewer),
            "--scope",
            "posts:read",
            "--scope",
            "posts:write",
        ]
    )
    assert result.exit_code == 0, result.output
    api = Caller(client, result.output.strip().splitlines()[-1])
    err = assert_error(api.post(POSTS, json={"type": "personal", "content": "x"}), 403, "forbidden")
    assert "viewer" in err["message"]
    assert api.get(POSTS).status_code == 200


# --- a contributor never reaches Scheduled or Publishing ------------------------------------


def test_contributor_writes_their_own_drafts_only(team):
    mine = draft(team["contributor"], "my draft")
    assert mine["author"] == {"id": member_id(team["contributor"]), "name": "contributor-person"}
    r = team["contributor"].patch(ITEM(mine["id"]), json={"content": "better"})
    assert r.status_code == 200 and r.get_json()["content"] == "better"
    theirs = draft(team["editor"], "the editor's")
    err = assert_error(
        team["contributor"].patch(ITEM(theirs["id"]), json={"content": "x"}), 403, "forbidden"
    )
    assert "contributor" in err["message"]
    err = assert_error(
        team["contributor"].client.delete(
            ITEM(theirs["id"]), headers={"X-API-Key": team["contributor"].key}
        ),
        403,
        "forbidden",
    )
    assert team["editor"].get(ITEM(theirs["id"])).get_json()["content"] == "the editor's"
    assert (
        team["contributor"]
        .client.delete(ITEM(mine["id"]), headers={"X-API-Key": team["contributor"].key})
        .status_code
        == 204
    )


def test_contributor_cannot_reach_scheduled_or_publishing_by_any_path(team):
    contributor = team["contributor"]
    mine = draft(contributor, "mine")
    later = "2099-01-05T09:00:00Z"
    refused = [
        contributor.patch(ITEM(mine["id"]), json={"status": "Scheduled", "scheduled_at": later}),
        contributor.patch(
            ITEM(mine["id"]),
            json={"scheduled_at": later, "status": "Scheduled", "repeat": "FREQ=WEEKLY;COUNT=3"},
        ),
        contributor.post("/functions/v1/api-v2-posts-queue", json={"post_id": mine["id"]}),
        contributor.post(
            "/functions/v1/api-v2-posts-import",
            json={"posts": [{"type": "personal", "content": "x", "scheduled_at": later}]},
        ),
        contributor.post("/functions/v1/api-v2-posts-claim", json={}),
        contributor.post(
            "/functions/v1/make-post-callback",
            json={"post_id": mine["id"], "linkedin_post_id": "urn:li:share:1"},
        ),
    ]
    for r in refused:
        err = assert_error(r, 403, "forbidden")
        assert "contributor" in err["message"]
    # a repeat set on a draft recurs only once an editor schedules it
    r = contributor.patch(ITEM(mine["id"]), json={"repeat": "FREQ=WEEKLY;COUNT=3"})
    assert r.status_code == 200 and r.get_json()["status"] == "Draft"
    statuses = {p["status"] for p in team["owner"].get(POSTS + "?limit=100").get_json()["data"]}
    assert statuses == {"Draft"}
    # an editor's scheduled post is out of the contributor's hands
    scheduled = draft(team["editor"], "scheduled")
    r = team["editor"].patch(
        ITEM(scheduled["id"]), json={"status": "Scheduled", "scheduled_at": later}
    )
    assert r.status_code == 200, r.get_json()
    assert_error(
        contributor.patch(ITEM(scheduled["id"]), json={"content": "changed"}), 403, "forbidden"
    )


# --- members and invitations --------------------------------------------------------------


def test_invite_then_accept_makes_the_members_first_key_once(team, client, app):
    r = team["admin"].post(
        MEMBERS, json={"name": "ines", "email": "ines@example.com", "role": "editor"}
    )
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["role"] == "editor" and body["email"] == "ines@example.com"
    match = re.fullmatch(
        r"(.+)/functions/v1/dashboard#/invite/([A-Za-z0-9_-]{40,})", body["invite_url"]
    )
    assert match and match[1] == app.config["PUBLIC_URL"].rstrip("/")
    token = match[2]
    accepted = client.post(ACCEPT, json={"token": token})
    assert accepted.status_code == 201, accepted.get_json()
    answer = accepted.get_json()
    assert answer["workspace"]["name"] == "acme"
    assert answer["member"] == {
        "id": body["id"],
        "name": "ines",
        "email": "ines@example.com",
        "role": "editor",
    }
    ines = Caller(client, answer["key"])
    assert ines.get(ME).get_json()["member"]["role"] == "editor"
    assert "members:manage" not in answer["scopes"]
    err = assert_error(client.post(ACCEPT, json={"token": token}), 410, "invite_used")
    assert "used" in err["message"]
    assert_error(client.post(ACCEPT, json={"token": "nope"}), 404, "not_found")
    assert_error(client.post(ACCEPT, json={}), 400, "validation_error")
    names = [m["name"] for m in team["viewer"].get(MEMBERS).get_json()["data"]]
    assert "ines" in names and "acme" in names


def test_an_invitation_expires_after_seven_days(team, client, clock):
    token = (
        team["owner"]
        .post(MEMBERS, json={"name": "late", "role": "viewer"})
        .get_json()["invite_url"]
        .rsplit("/", 1)[1]
    )
    clock.advance(7 * 86400 + 1)
    assert_error(client.post(ACCEPT, json={"token": token}), 410, "invite_expired")


BAD_MEMBERS = [
    ({"role": "editor"}, "name"),
    ({"name": "x", "role": "chief"}, "role"),
    ({"name": "x", "role": "editor", "email": "not-an-email"}, "email"),
    ({"name": "", "role": "editor"}, "name"),
    ({"name": "x", "role": "editor", "extra": 1}, "extra"),
    ({"name": "Eve\u202egnp.exe", "role": "editor"}, "name"),  # shows "Eveexe.png" backwards
    ({"name": "\u2067Eve", "role": "editor"}, "name"),
    ({"name": "x", "role": "editor", "email": "a@[127.0.0.1]"}, "email"),
    ({"name": "x", "role": "editor", "email": "a@[IPv6:::1]"}, "email"),
]


@pytest.mark.parametrize(("body", "field"), BAD_MEMBERS)
def test_bad_invitations_are_400_naming_the_field(team, body, field):
    err = assert_error(team["owner"].post(MEMBERS, json=body), 400, "validation_error")
    assert field in err["details"]
    assert len(team["owner"].get(MEMBERS).get_json()["data"]) == 5  # nothing made


@pytest.mark.backend_independent
def test_an_address_literal_is_no_members_email_by_any_path(team, runner):
    me = team["viewer"].get(ME).get_json()["member"]
    r = team["viewer"].patch(MEMBER(me["id"]), json={"email": "a@[127.0.0.1]"})
    assert "email" in assert_error(r, 400, "validation_error")["details"]
    assert team["viewer"].get(ME).get_json()["member"]["email"] == me["email"]
    for option, value in (("--email", "a@[127.0.0.1]"), ("--name", "Eve\u202egnp.exe")):
        args = ["members", "add", "--workspace", "acme", "--name", "x", "--role", "viewer"]
        args += [option, value] if option == "--email" else []
        if option == "--name":
            args[args.index("--name") + 1] = value
        result = runner.invoke(args=args)
        assert result.exit_code != 0 and option in result.output, result.output
    assert len(team["owner"].get(MEMBERS).get_json()["data"]) == 5


def test_only_owners_and_admins_manage_members_and_only_owners_change_owners(team):
    for role in ("editor", "contributor", "viewer"):
        err = assert_error(
            team[role].post(MEMBERS, json={"name": "z", "role": "viewer"}), 403, "forbidden"
        )
        assert role in err["message"]
    owner_id = member_id(team["owner"])
    err = assert_error(
        team["admin"].patch(MEMBER(owner_id), json={"role": "viewer"}), 403, "forbidden"
    )
    assert "admin" in err["message"]
    assert_error(
        team["admin"].post(MEMBERS, json={"name": "o2", "role": "owner"}), 403, "forbidden"
    )
    editor_id = member_id(team["editor"])
    r = team["admin"].patch(MEMBER(editor_id), json={"role": "viewer", "email": "e@x.io"})
    assert r.status_code == 200 and (r.get_json()["role"], r.get_json()["email"]) == (
        "viewer",
        "e@x.io",
    )
    # the new role holds on the member's next request
    assert_error(
        team["editor"].post(POSTS, json={"type": "personal", "content": "x"}), 403, "forbidden"
    )
    assert_error(team["admin"].patch(MEMBER(10**6), json={"role": "viewer"}), 404, "not_found")
    assert_error(team["admin"].patch(MEMBER("abc"), json={"role": "viewer"}), 404, "not_found")
    assert_error(
        team["owner"].post(MEMBERS, json={"name": "admin-person", "role": "viewer"}),
        409,
        "conflict",
    )


def test_the_last_owner_stays(team):
    owner_id = member_id(team["owner"])
    for r in (
        team["owner"].patch(MEMBER(owner_id), json={"role": "admin"}),
        team["owner"].client.delete(MEMBER(owner_id), headers={"X-API-Key": team["owner"].key}),
    ):
        err = assert_error(r, 409, "last_owner")
        assert "last owner" in err["message"]
    assert team["owner"].get(ME).get_json()["member"]["role"] == "owner"
    # with a second owner, the first may step down
    admin_id = member_id(team["admin"])
    assert team["owner"].patch(MEMBER(admin_id), json={"role": "owner"}).status_code == 200
    assert team["owner"].patch(MEMBER(owner_id), json={"role": "editor"}).status_code == 200
    assert_error(team["admin"].patch(MEMBER(admin_id), json={"role": "editor"}), 409, "last_owner")


def test_removing_a_member_revokes_every_key_of_theirs_at_once(team, runner, client):
    editor_id = member_id(team["editor"])
    result = runner.invoke(
        args=["keys", "create", "--member", str(editor_id), "--scope", "posts:read"]
    )
    second = Caller(client, result.output.strip().splitlines()[-1])
    for api in (team["editor"], second):
        assert api.get(POSTS).status_code == 200  # cached by this worker now
    r = team["admin"].client.delete(MEMBER(editor_id), headers={"X-API-Key": team["admin"].key})
    assert r.status_code == 204
    for api in (team["editor"], second):
        for path in (POSTS, ME):
            assert_error(api.get(path), 401, "unauthorized")
    listed = {m["id"]: m for m in team["owner"].get(MEMBERS).get_json()["data"]}
    assert listed[editor_id]["removed_at"] is not None


def test_removing_a_member_ends_the_invitations_they_made(team, client, runner):
    """An invitation made by an admin who was then removed was still
    accepted, as admin; now it ends with them. The operator's (the CLI's)
    and other members' invitations go on."""
    admin_id = member_id(team["admin"])
    theirs = team["admin"].post(MEMBERS, json={"name": "iris", "role": "admin"}).get_json()
    others = team["owner"].post(MEMBERS, json={"name": "otto", "role": "viewer"}).get_json()
    r = team["owner"].client.delete(MEMBER(admin_id), headers={"X-API-Key": team["owner"].key})
    assert r.status_code == 204
    token = theirs["invite_url"].rsplit("/", 1)[1]
    err = assert_error(client.post(ACCEPT, json={"token": token}), 410, "invite_used")
    assert "withdrawn" in err["message"]
    listed = {m["name"]: m for m in team["owner"].get(MEMBERS).get_json()["data"]}
    assert listed["iris"]["role"] == "admin" and listed["iris"]["removed_at"] is None
    token = others["invite_url"].rsplit("/", 1)[1]
    assert client.post(ACCEPT, json={"token": token}).status_code == 201


# --- isolation ---------------------------------------------------------------------------


def test_members_of_one_workspace_share_its_calendar_and_others_see_nothing(team, caller):
    made = draft(team["editor"], "team post")
    for role in ROLES:
        ids = [p["id"] for p in team[role].get(POSTS).get_json()["data"]]
        assert ids == [made["id"]], role
    other = caller("othercorp")
    assert other.get(POSTS).get_json()["data"] == []
    assert_error(other.get(ITEM(made["id"])), 404, "not_found")
    assert_error(other.patch(ITEM(made["id"]), json={"content": "x"}), 404, "not_found")
    assert [m["name"] for m in other.get(MEMBERS).get_json()["data"]] == ["othercorp"]
    acme_member = member_id(team["viewer"])
    assert_error(other.patch(MEMBER(acme_member), json={"role": "owner"}), 404, "not_found")
    assert team["owner"].get(ME).get_json()["member"]["role"] == "owner"


# --- the CLI -----------------------------------------------------------------------------


def test_members_commands(runner, make_key):
    make_key("acme")
    bob, _ = add_member(runner, "acme", "bob", "contributor", email="bob@example.com")
    listed = runner.invoke(args=["members", "list", "--workspace", "acme"]).output
    assert re.search(
        rf"^{bob}\s+acme\s+bob\s+bob@example.com\s+contributor\s+member$", listed, re.M
    )
    assert runner.invoke(args=["members", "role", str(bob), "editor"]).exit_code == 0
    assert " editor " in runner.invoke(args=["members", "list"]).output
    owner = runner.invoke(args=["members", "list"]).output.splitlines()[1].split()[0]
    result = runner.invoke(args=["members", "remove", owner])
    assert result.exit_code == 1 and "last_owner" in result.output
    assert runner.invoke(args=["members", "remove", str(bob)]).exit_code == 0
    assert "removed" in runner.invoke(args=["members", "list"]).output
    result = runner.invoke(
        args=["members", "add", "--workspace", "nowhere", "--name", "x", "--role", "viewer"]
    )
    assert result.exit_code == 1 and "No workspace" in result.output
    result = runner.invoke(args=["keys", "create", "--scope", "posts:read"])
    assert result.exit_code == 2 and "--user NAME or --member ID" in result.output


def test_imported_posts_are_their_importers_and_the_document_names_least_roles(team, client):
    r = team["editor"].post(
        "/functions/v1/api-v2-posts-import",
        json={
            "posts": [
                {"type": "personal", "content": "one"},
                {"type": "personal", "content": "two"},
            ]
        },
    )
    assert r.status_code == 201, r.get_json()
    editor = {"id": member_id(team["editor"]), "name": "editor-person"}
    assert [p["author"] for p in r.get_json()["data"]] == [editor, editor]
    paths = client.get("/functions/v1/openapi.json").get_json()["paths"]
    assert paths["/functions/v1/channels"]["post"]["x-required-role"] == "editor"
    assert "x-required-role" not in paths["/functions/v1/api-v2-posts"]["post"]
    assert paths["/functions/v1/members"]["post"]["x-required-scope"] == "members:manage"
    assert paths["/functions/v1/invites-accept"]["post"]["security"] == []


def test_two_owners_stepping_down_at_once_leave_one(team, database):
    """Each demotion locks the workspace before it counts the owners, so of
    two owners each demoting themself at the same moment, one stays."""
    admin_id = member_id(team["admin"])
    assert team["owner"].patch(MEMBER(admin_id), json={"role": "owner"}).status_code == 200
    owners = [(team["owner"].key, member_id(team["owner"])), (team["admin"].key, admin_id)]
    start = threading.Barrier(2, timeout=60)
    apps = [create_app({"TESTING": True, "DATABASE": database}) for _ in owners]  # as two workers

    def step_down(i):
        (key, own_id), app = owners[i], apps[i]
        start.wait()
        try:
            return app.test_client().patch(
                MEMBER(own_id), json={"role": "editor"}, headers={"X-API-Key": key}
            )
        finally:
            with app.app_context():
                dispose_db()

    answers = together(step_down, 2)
    assert sorted(r.status_code for r in answers) == [200, 409]
    assert_error(next(r for r in answers if r.status_code == 409), 409, "last_owner")
    roles = [m["role"] for m in team["viewer"].get(MEMBERS).get_json()["data"]]
    assert roles.count("owner") == 1
