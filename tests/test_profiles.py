"""Every person's profile (docs/planning.md, "Channels"; docs/api.md, "Posts
for a colleague's profile"), on both backends: a personal channel per
member, posts that carry their channel_id (and the reference interface's
type and brand_id, placed as before), the profile's member's approval of a
post written for them, approvals on or off, `others_may_post`, the CSV
import's `channel` column, one channel's posts listed, the channels side by
side in the analytics, and a member who leaves. Each refusal is read back:
nothing changed."""

from datetime import UTC, datetime, timedelta

import pytest

from harness.api import ANALYTICS, CALLBACK, CHANNEL, CHANNELS, HISTORY, IMPORT, ITEM, POSTS, QUEUE
from tests.analytics_support import figures, send, snapshot
from tests.conftest import Caller, assert_error
from tests.test_members import add_member

REVIEW = "/functions/v1/api-v2-posts-review/{}".format
WORKSPACE = "/functions/v1/workspace"
MEMBER = "/functions/v1/members-item/{}".format
FUTURE = "2099-01-05T10:00:00.000000Z"
SCHEDULE = {"status": "Scheduled", "scheduled_at": FUTURE}
SLOTS = [{"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri")]


@pytest.fixture
def team(client, runner, make_key):
    """Workspace acme: Cleo its owner (the CEO), Mark the marketing lead (an
    editor), Sam an engineer (a contributor) and Eve an editor; each a
    Caller with `.member`, its member id. Cleo and Mark have their profiles."""
    found = {"cleo": Caller(client, make_key("acme"))}
    found["cleo"].member = found["cleo"].get("/functions/v1/me").get_json()["member"]["id"]
    for name, role in [("mark", "editor"), ("sam", "contributor"), ("eve", "editor")]:
        member, key = add_member(runner, "acme", name, role)
        found[name] = Caller(client, key)
        found[name].member = member
    found["cleo"].channel = profile(found["cleo"], "Cleo (CEO)", slots=SLOTS)["id"]
    found["mark"].channel = profile(found["mark"], "Mark")["id"]
    return found


def profile(api, name, **fields):
    r = api.post(CHANNELS, json={"type": "personal", "name": name, **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def draft(api, **fields):
    r = api.post(POSTS, json={"content": "For the profile", **fields})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def read(api, post):
    return api.get(ITEM + post["id"]).get_json()


def reviewed(api, post, action, comment=None):
    body = {"action": action} if comment is None else {"action": action, "comment": comment}
    r = api.post(REVIEW(post["id"]), json=body)
    assert r.status_code == 200, r.get_json()
    return r.get_json()["post"]


# --- a personal channel per member ------------------------------------------------------


def test_each_member_has_a_personal_channel_of_their_own(team):
    cleo, mark, sam = team["cleo"], team["mark"], team["sam"]
    assert cleo.channel == "personal"  # the first one keeps the reference interface's id
    assert mark.channel != "personal" and len(mark.channel) == 36
    for_sam = profile(mark, "Sam", member_id=sam.member)  # an editor sets one up for Sam
    listed = {c["id"]: c for c in cleo.get(CHANNELS).get_json()["data"]}
    assert set(listed) == {"personal", mark.channel, for_sam["id"]}
    shown = listed[mark.channel]
    assert (shown["type"], shown["kind"], shown["member_id"]) == (
        "personal",
        "personal",
        mark.member,
    )
    assert shown["member"] == {"id": mark.member, "name": "mark", "removed_at": None}
    assert shown["others_may_post"] is True
    assert listed[for_sam["id"]]["member"]["name"] == "sam"
    brand = cleo.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme"})
    assert brand.get_json()["member"] is None and brand.get_json()["others_may_post"] is None


BAD_PROFILES = [
    ({"member_id": "2"}, "member_id"),
    ({"member_id": 999999}, "member_id"),
    ({"others_may_post": "no"}, "others_may_post"),
    ({"type": "brand", "brand_id": "acme", "member_id": 1}, "member_id"),
    ({"type": "brand", "brand_id": "acme", "others_may_post": False}, "others_may_post"),
]


@pytest.mark.parametrize("body, field", BAD_PROFILES)
def test_bad_profiles_are_400_naming_the_field(team, body, field):
    before = team["cleo"].get(CHANNELS).get_json()
    r = team["eve"].post(CHANNELS, json={"type": "personal", "name": "x", **body})
    assert field in assert_error(r, 400, "validation_error")["details"]
    assert team["cleo"].get(CHANNELS).get_json() == before


def test_a_second_personal_channel_of_a_member_is_409(team):
    cleo, mark = team["cleo"], team["mark"]
    before = cleo.get(CHANNELS).get_json()
    error = assert_error(
        mark.post(CHANNELS, json={"type": "personal", "name": "Again"}), 409, "conflict"
    )
    assert error["details"] == {"id": mark.channel, "member_id": mark.member}
    r = team["eve"].post(
        CHANNELS, json={"type": "personal", "name": "Hers", "member_id": cleo.member}
    )
    assert assert_error(r, 409, "conflict")["details"]["id"] == "personal"
    assert cleo.get(CHANNELS).get_json() == before


def test_only_an_editor_sets_up_a_profile_and_only_its_member_keeps_it(team):
    cleo, mark, sam = team["cleo"], team["mark"], team["sam"]
    r = sam.post(CHANNELS, json={"type": "personal", "name": "Me"})  # channels are an editor's
    assert assert_error(r, 403, "forbidden")["details"] == {"role": "contributor"}
    sams = profile(mark, "Sam", member_id=sam.member)
    # only Sam says whether others may post for Sam, at create and after
    r = mark.post(
        CHANNELS,
        json={
            "type": "personal",
            "name": "Eve",
            "member_id": team["eve"].member,
            "others_may_post": False,
        },
    )
    assert assert_error(r, 403, "forbidden")["details"]["member_id"] == team["eve"].member
    r = mark.patch(CHANNEL + sams["id"], json={"others_may_post": False})
    assert "Only sam" in assert_error(r, 403, "forbidden")["message"]
    # a contributor changes their own profile, and nobody else's
    r = sam.patch(CHANNEL + sams["id"], json={"others_may_post": False, "name": "Sam K."})
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["others_may_post"], r.get_json()["name"]) == (False, "Sam K.")
    before = cleo.get(CHANNEL + "personal").get_json()
    assert_error(sam.patch(CHANNEL + "personal", json={"name": "Mine"}), 403, "forbidden")
    assert cleo.get(CHANNEL + "personal").get_json() == before


# --- posts carry their channel ----------------------------------------------------------


def test_posts_of_the_reference_interface_go_where_they_went(team):
    cleo, mark, sam = team["cleo"], team["mark"], team["sam"]
    mine = draft(mark, type="personal")
    assert (mine["channel_id"], mine["type"], mine["brand_id"]) == (mark.channel, "personal", None)
    theirs = draft(sam, type="personal")  # Sam has no profile: the workspace's first
    assert theirs["channel_id"] == "personal"
    brand = draft(cleo, type="brand", brand_id="not-set-up")
    assert (brand["channel_id"], brand["type"]) == ("not-set-up", "brand")
    named = draft(cleo, channel_id=mark.channel)
    assert (named["type"], named["brand_id"], named["channel_id"]) == (
        "personal",
        None,
        mark.channel,
    )
    cleo.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme"})
    page = draft(sam, channel_id="acme")
    assert (page["type"], page["brand_id"]) == ("brand", "acme")
    listed = cleo.get(POSTS, query_string={"channel_id": mark.channel}).get_json()
    assert [p["id"] for p in listed["data"]] == [named["id"], mine["id"]]
    assert listed["total"] == 2


BAD_CHANNELS = [
    ({"channel_id": "personal", "type": "brand"}, "type"),
    ({"channel_id": "personal", "brand_id": "acme"}, "brand_id"),
    ({"channel_id": "acme", "type": "personal"}, "type"),
    ({"channel_id": "acme", "brand_id": "other"}, "brand_id"),
    ({"type": "brand", "brand_id": "personal"}, "brand_id"),
    ({"channel_id": ""}, "channel_id"),
    ({"channel_id": 7}, "channel_id"),
]


@pytest.mark.parametrize("body, field", BAD_CHANNELS)
def test_a_channel_that_disagrees_with_type_or_brand_id_is_400_naming_them(team, body, field):
    team["cleo"].post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme"})
    r = team["mark"].post(POSTS, json={"content": "x", **body})
    assert field in assert_error(r, 400, "validation_error")["details"]
    assert team["cleo"].get(POSTS).get_json()["total"] == 0


def test_a_brand_id_naming_a_profile_is_400(team):
    r = team["cleo"].post(
        POSTS, json={"type": "brand", "brand_id": team["mark"].channel, "content": "x"}
    )
    assert "brand_id" in assert_error(r, 400, "validation_error")["details"]
    assert team["cleo"].get(POSTS).get_json()["total"] == 0


def test_another_workspaces_channel_is_404(team, caller):
    other = caller("beta")
    profile(other, "Beta's")  # `personal` there too: each workspace's ids are its own
    theirs = other.post(CHANNELS, json={"type": "brand", "brand_id": "beta-only", "name": "B"})
    theirs = theirs.get_json()["id"]
    assert_error(
        team["mark"].post(POSTS, json={"channel_id": theirs, "content": "x"}), 404, "not_found"
    )
    assert_error(
        team["mark"].post(POSTS, json={"channel_id": "nope", "content": "x"}), 404, "not_found"
    )
    post = draft(team["mark"], type="personal")
    r = team["mark"].patch(ITEM + post["id"], json={"channel_id": theirs})
    assert_error(r, 404, "not_found")
    assert read(team["mark"], post) == post
    assert other.get(POSTS).get_json()["total"] == 0


def test_a_patch_moves_a_post_by_channel_id_or_as_before(team):
    mark = team["mark"]
    mark.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme"})
    post = draft(mark, type="personal")
    moved = mark.patch(ITEM + post["id"], json={"channel_id": "acme"}).get_json()
    assert (moved["channel_id"], moved["type"], moved["brand_id"]) == ("acme", "brand", "acme")
    back = mark.patch(ITEM + post["id"], json={"type": "personal"}).get_json()
    assert (back["channel_id"], back["brand_id"]) == (mark.channel, None)  # Mark's own again
    r = mark.patch(ITEM + post["id"], json={"channel_id": "acme", "type": "personal"})
    assert "type" in assert_error(r, 400, "validation_error")["details"]
    assert read(mark, post) == back


# --- the profile's member approves ------------------------------------------------------


def test_a_post_for_a_colleague_waits_for_their_yes_with_approvals_off(team):
    cleo, mark = team["cleo"], team["mark"]
    post = draft(mark, channel_id="personal", scheduled_at=FUTURE)
    error = assert_error(
        mark.patch(ITEM + post["id"], json=SCHEDULE), 409, "owner_approval_required"
    )
    assert (
        error["details"]["member_id"] == cleo.member
        and error["details"]["channel_id"] == "personal"
    )
    assert "acme" in error["message"]  # Cleo is the member the workspace began with
    assert_error(mark.post(QUEUE, json={"post_id": post["id"]}), 409, "owner_approval_required")
    assert read(mark, post) == post
    waiting = reviewed(mark, post, "submit")
    assert waiting["status"] == "In review"
    assert [
        p["id"] for p in cleo.get(POSTS, query_string={"status": "In review"}).get_json()["data"]
    ] == [post["id"]]
    # another editor cannot approve it for Cleo
    error = assert_error(
        team["eve"].post(REVIEW(post["id"]), json={"action": "approve"}), 403, "forbidden"
    )
    assert "only acme approves it" in error["message"]
    assert read(mark, post)["status"] == "In review"
    approved = reviewed(cleo, post, "approve")
    assert approved["status"] == "Approved" and approved["approved_by"]["name"] == "acme"
    r = mark.patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200 and r.get_json()["status"] == "Scheduled", r.get_json()


def test_the_member_writing_for_their_own_profile_needs_no_yes(team):
    post = draft(team["cleo"], type="personal", scheduled_at=FUTURE)
    r = team["cleo"].patch(ITEM + post["id"], json={"status": "Scheduled"})
    assert r.status_code == 200, r.get_json()
    assert_error(team["cleo"].post(REVIEW(post["id"]), json={"action": "submit"}), 409, "conflict")


def test_the_member_may_ask_for_changes(team):
    cleo, mark = team["cleo"], team["mark"]
    post = draft(mark, channel_id="personal")
    reviewed(mark, post, "submit")
    back = reviewed(cleo, post, "request_changes", "Less hype, @mark")
    assert back["status"] == "Draft" and back["reviewer"]["name"] == "acme"


WITHDRAWING = [
    {"content": "Changed after the yes"},
    {"first_comment": "A link, added after"},
    {"media_urls": ["https://cdn.example.com/a.png"]},
    {"channel_id": "acme"},
]


@pytest.mark.parametrize("change", WITHDRAWING)
def test_a_change_after_the_yes_withdraws_it(team, change):
    cleo, mark = team["cleo"], team["mark"]
    cleo.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme"})
    post = draft(mark, channel_id="personal")
    reviewed(mark, post, "submit")
    reviewed(cleo, post, "approve")
    scheduled = mark.patch(ITEM + post["id"], json=SCHEDULE).get_json()
    assert scheduled["status"] == "Scheduled"
    changed = mark.patch(ITEM + post["id"], json=change).get_json()
    if "channel_id" in change:  # on the brand page it needs nobody's yes: it stays Scheduled
        assert (changed["status"], changed["approved_by"]) == ("Scheduled", None)
        changed = mark.patch(ITEM + post["id"], json={"channel_id": "personal"}).get_json()
    assert (changed["status"], changed["approved_by"]) == ("Draft", None)
    assert_error(mark.patch(ITEM + post["id"], json=SCHEDULE), 409, "owner_approval_required")


def test_where_approvals_are_required_the_members_yes_is_the_one(team):
    cleo, mark = team["cleo"], team["mark"]
    assert cleo.patch(WORKSPACE, json={"approvals": "required"}).status_code == 200
    post = draft(mark, channel_id="personal")
    assert_error(mark.patch(ITEM + post["id"], json=SCHEDULE), 409, "approval_required")
    reviewed(mark, post, "submit")
    assert_error(team["eve"].post(REVIEW(post["id"]), json={"action": "approve"}), 403, "forbidden")
    reviewed(cleo, post, "approve")
    assert mark.patch(ITEM + post["id"], json=SCHEDULE).get_json()["status"] == "Scheduled"
    # turning approvals off leaves a colleague's review where it is
    waiting = draft(mark, channel_id="personal", content="Still Cleo's to approve")
    reviewed(mark, waiting, "submit")
    assert cleo.patch(WORKSPACE, json={"approvals": "off"}).status_code == 200
    assert read(cleo, waiting)["status"] == "In review"


def test_a_member_keeps_their_profile_to_themselves(team):
    cleo, mark = team["cleo"], team["mark"]
    assert cleo.patch(CHANNEL + "personal", json={"others_may_post": False}).status_code == 200
    error = assert_error(
        mark.post(POSTS, json={"channel_id": "personal", "content": "x"}), 403, "forbidden"
    )
    assert error["details"] == {
        "channel_id": "personal",
        "others_may_post": False,
        "member_id": cleo.member,
    }
    assert "keeps it to themselves" in error["message"]
    post = draft(mark, type="personal")
    error = assert_error(
        mark.patch(ITEM + post["id"], json={"channel_id": "personal"}), 403, "forbidden"
    )
    assert read(mark, post) == post
    r = mark.post(IMPORT, json={"posts": [{"channel": "personal", "content": "x"}]})
    assert (
        "keeps it to themselves"
        in assert_error(r, 400, "validation_error")["details"]["rows"]["1"]["channel"][0]
    )
    assert draft(cleo, channel_id="personal")["channel_id"] == "personal"  # her own, of course
    assert cleo.get(POSTS).get_json()["total"] == 2


# --- the import -----------------------------------------------------------------------------


def test_the_import_names_a_channel_by_id_or_name(team):
    cleo, mark = team["cleo"], team["mark"]
    cleo.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme Europe"})
    csv = (
        "channel,content,scheduled_at,submit\n"
        "Acme Europe,By its name,2099-01-05T09:00:00Z,\n"
        f"{mark.channel},By Mark's id,2099-01-05T10:00:00Z,\n"
        "Cleo (CEO),For Cleo to approve,2099-01-05T11:00:00Z,true\n"
    )
    r = mark.post(IMPORT, data=csv.encode(), headers={"Content-Type": "text/csv"})
    assert r.status_code == 201, r.get_json()
    made = r.get_json()["data"]
    assert [(p["channel_id"], p["type"], p["status"]) for p in made] == [
        ("acme", "brand", "Scheduled"),
        (mark.channel, "personal", "Scheduled"),
        ("personal", "personal", "In review"),  # approvals are off: Cleo's yes all the same
    ]


BAD_ROWS = [
    ({"channel": "Nobody", "content": "x"}, "channel"),
    ({"channel": "Twins", "content": "x"}, "channel"),
    ({"channel": "acme", "type": "personal", "content": "x"}, "type"),
    ({"channel": "personal", "content": "x", "scheduled_at": FUTURE}, "channel"),
    ({"channel": "personal", "content": "x", "queue": True}, "channel"),
    ({"content": "x"}, "type"),
]


@pytest.mark.parametrize("row, field", BAD_ROWS)
def test_bad_rows_name_their_channel(team, row, field):
    cleo = team["cleo"]
    cleo.post(CHANNELS, json={"type": "brand", "brand_id": "acme", "name": "Acme"})
    for brand in ("t1", "t2"):
        cleo.post(CHANNELS, json={"type": "brand", "brand_id": brand, "name": "Twins"})
    r = team["mark"].post(IMPORT, json={"posts": [row]})
    error = assert_error(r, 400, "validation_error")
    assert field in (
        error["details"]["rows"]["1"] if "rows" in error["details"] else error["details"]
    )
    assert cleo.get(POSTS).get_json()["total"] == 0


# --- the channels side by side ----------------------------------------------------------------


def test_analytics_compare_the_channels_side_by_side(team):
    cleo, mark = team["cleo"], team["mark"]
    found = {}
    for n, (api, channel, impressions, interactions) in enumerate(
        [
            (cleo, "personal", 1000, 50),
            (cleo, "personal", 1000, 30),
            (mark, mark.channel, 400, 40),
        ]
    ):
        post = draft(api, channel_id=channel)
        at = SCHEDULE["scheduled_at"].replace(":00:00", f":0{n}:00")  # a minute each
        api.patch(ITEM + post["id"], json={**SCHEDULE, "scheduled_at": at})
        r = api.post(
            CALLBACK,
            json={
                "post_id": post["id"],
                "linkedin_post_id": f"urn:li:share:{impressions}{interactions}",
            },
        )
        assert r.status_code == 200, r.get_json()
        found.setdefault(channel, []).append(r.get_json())
    send(
        cleo,
        [
            snapshot(p, after=timedelta(0), **figures(i, n))
            for p, (i, n) in zip(found["personal"], [(1000, 50), (1000, 30)], strict=True)
        ],
    )
    send(cleo, [snapshot(found[mark.channel][0], after=timedelta(0), **figures(400, 40))])
    start = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    report = cleo.get(ANALYTICS, query_string={"from": start}).get_json()
    side = {c["channel"]: c for c in report["channels"]}
    assert set(side) == {"personal", mark.channel}
    assert (side["personal"]["posts"], side["personal"]["impressions"]) == (2, 2000)
    assert side["personal"]["engagement"] == pytest.approx(80 / 2000)
    assert (side[mark.channel]["posts"], side[mark.channel]["impressions"]) == (1, 400)
    assert side[mark.channel]["engagement"] == pytest.approx(0.1)
    one = cleo.get(ANALYTICS, query_string={"from": start, "channel": mark.channel}).get_json()
    assert [c["channel"] for c in one["channels"]] == [mark.channel]


# --- a member who leaves ------------------------------------------------------------------------


def test_a_member_who_leaves_keeps_their_channel_and_nothing_goes_out_as_them(team):
    cleo, mark = team["cleo"], team["mark"]
    scheduled = draft(mark, type="personal", content="Planned as Mark")
    scheduled = mark.patch(ITEM + scheduled["id"], json=SCHEDULE).get_json()
    kept = draft(mark, type="personal", content="A draft of Mark's")
    assert (
        cleo.client.delete(MEMBER(mark.member), headers={"X-API-Key": cleo.key}).status_code == 204
    )
    channel = cleo.get(CHANNEL + mark.channel).get_json()
    assert channel["member"]["removed_at"] is not None and channel["connection"]["status"] == "none"
    failed = read(cleo, scheduled)
    assert failed["status"] == "Failed" and "mark left the workspace" in failed["last_error"]
    steps = cleo.get(HISTORY + scheduled["id"]).get_json()["data"]
    assert [s["action"] for s in steps] == ["created", "scheduled", "refused"]
    assert read(cleo, kept)["status"] == "Draft"
    error = assert_error(cleo.patch(ITEM + kept["id"], json=SCHEDULE), 409, "conflict")
    assert error["details"]["member_id"] == mark.member
    assert read(cleo, kept)["status"] == "Draft"
    # the workspace's first personal channel is one of someone still here
    assert draft(team["eve"], type="personal")["channel_id"] == "personal"


def test_a_new_profile_never_takes_over_a_deleted_ones_planned_posts(team):
    """Cleo's profile deleted, her Scheduled post stays on `personal`: Mark's
    new profile takes an id of its own rather than that post."""
    cleo, mark = team["cleo"], team["mark"]
    planned = draft(cleo, type="personal")
    planned = cleo.patch(ITEM + planned["id"], json=SCHEDULE).get_json()
    gone = cleo.client.delete(CHANNEL + "personal", headers={"X-API-Key": cleo.key})
    assert gone.status_code == 204
    mine = mark.client.delete(CHANNEL + mark.channel, headers={"X-API-Key": mark.key})
    assert mine.status_code == 204
    again = profile(mark, "Mark again")
    assert again["id"] != "personal"
    assert read(cleo, planned)["channel_id"] == "personal"
    assert draft(mark, type="personal")["channel_id"] == again["id"]
