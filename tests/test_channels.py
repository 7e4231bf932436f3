"""Channels: create, list, read, change and delete, and their upcoming slots."""

from datetime import UTC, datetime, timedelta

import pytest

from harness.api import CHANNELS, POSTS, SLOTS
from tests.conftest import assert_error

ITEM = "/functions/v1/channels-item/"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri")


def create(api, **fields):
    body = {"type": "personal", "name": "Me", **fields}
    r = api.post(CHANNELS, json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_create_the_personal_channel_with_defaults(api):
    r = api.post(CHANNELS, json={"type": "personal", "name": "Me"})
    assert r.status_code == 201
    channel = r.get_json()
    assert r.headers["Location"] == ITEM + "personal" and r.headers["ETag"] == '"1"'
    assert channel == {
        "id": "personal",
        "type": "personal",
        "kind": "personal",  # since many personal channels: whose profile it is
        "member_id": channel["member"]["id"],
        "member": {"id": channel["member"]["id"], "name": "alice", "removed_at": None},
        "others_may_post": True,
        "approvals": "workspace",
        "name": "Me",
        "author_urn": None,
        "timezone": "UTC",
        "slots": [],
        "min_gap_minutes": 0,
        "daily_cap": None,
        "publisher": "automation",
        "recycle_after_days": None,
        "utm": None,
        "connection": {
            "status": "none",
            "member_name": None,
            "expires_at": None,
            "organizations": [],
        },
        "created_at": channel["created_at"],
        "updated_at": channel["created_at"],
        "version": 1,
    }
    assert api.get(ITEM + "personal").get_json() == channel


def test_create_a_brand_channel_named_by_its_brand_id(api):
    channel = create(
        api,
        type="brand",
        brand_id="acme/europe page",
        name="Acme Europe",
        author_urn="urn:li:organization:2414183",
        timezone="Europe/Berlin",
        slots=[{"day": "mon", "time": "09:30"}, {"day": "fri", "time": "17:00"}],
        min_gap_minutes=120,
        daily_cap=2,
    )
    assert channel["id"] == "acme/europe page" and "brand_id" not in channel
    assert api.get(ITEM + "acme/europe page").get_json()["name"] == "Acme Europe"
    assert [c["id"] for c in api.get(CHANNELS).get_json()["data"]] == ["acme/europe page"]


BAD_CREATE = [
    ({"name": "x"}, "type"),
    ({"type": "team", "name": "x"}, "type"),
    ({"type": "personal"}, "name"),
    ({"type": "personal", "name": ""}, "name"),
    ({"type": "personal", "name": "x" * 101}, "name"),
    ({"type": "personal", "name": "a\nb"}, "name"),
    ({"type": "personal", "name": "x", "brand_id": "acme"}, "brand_id"),
    ({"type": "brand", "name": "x"}, "brand_id"),
    ({"type": "brand", "name": "x", "brand_id": "personal"}, "brand_id"),
    ({"type": "personal", "name": "x", "author_urn": "urn:li:organization:1"}, "author_urn"),
    (
        {"type": "brand", "brand_id": "a", "name": "x", "author_urn": "urn:li:person:1"},
        "author_urn",
    ),
    ({"type": "personal", "name": "x", "author_urn": "alice"}, "author_urn"),
    ({"type": "personal", "name": "x", "timezone": "Mars/Olympus"}, "timezone"),
    ({"type": "personal", "name": "x", "timezone": "../../etc/passwd"}, "timezone"),
    ({"type": "personal", "name": "x", "timezone": "CEST"}, "timezone"),
    (
        {"type": "personal", "name": "x", "slots": [{"day": "monday", "time": "09:00"}]},
        "slots.0.day",
    ),
    ({"type": "personal", "name": "x", "slots": [{"day": "mon", "time": "9:00"}]}, "slots.0.time"),
    ({"type": "personal", "name": "x", "slots": [{"day": "mon", "time": "24:00"}]}, "slots.0.time"),
    ({"type": "personal", "name": "x", "slots": [{"day": "mon"}]}, "slots.0.time"),
    ({"type": "personal", "name": "x", "slots": [{"day": "mon", "time": "09:00"}] * 2}, "slots"),
    (
        {
            "type": "personal",
            "name": "x",
            "slots": [
                {"day": "mon", "time": f"{h:02}:{m:02}"}
                for h in range(24)
                for m in (0, 10, 20, 30, 40)
            ][:101],
        },
        "slots",
    ),
    ({"type": "personal", "name": "x", "min_gap_minutes": -1}, "min_gap_minutes"),
    ({"type": "personal", "name": "x", "min_gap_minutes": 1441}, "min_gap_minutes"),
    ({"type": "personal", "name": "x", "min_gap_minutes": "60"}, "min_gap_minutes"),
    ({"type": "personal", "name": "x", "daily_cap": 0}, "daily_cap"),
    ({"type": "personal", "name": "x", "daily_cap": 101}, "daily_cap"),
    ({"type": "personal", "name": "x", "id": "other"}, "id"),
    ({"type": "personal", "name": "x", "version": 3}, "version"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_CREATE)
def test_bad_channels_are_400_naming_the_field(api, body, field):
    error = assert_error(api.post(CHANNELS, json=body), 400, "validation_error")
    assert field in error["details"], error
    assert api.get(CHANNELS).get_json()["total"] == 0


def test_a_second_channel_with_the_same_id_is_409(api):
    create(api)
    create(api, type="brand", brand_id="acme", name="Acme")
    for body in (
        {"type": "personal", "name": "Again"},
        {"type": "brand", "brand_id": "acme", "name": "Again"},
    ):
        error = assert_error(api.post(CHANNELS, json=body), 409, "conflict")
        assert error["details"]["id"] in ("personal", "acme")
    assert {c["name"] for c in api.get(CHANNELS).get_json()["data"]} == {"Me", "Acme"}


def test_patch_changes_fields_and_honours_if_match(api):
    create(api)
    r = api.patch(
        ITEM + "personal",
        json={
            "timezone": "America/New_York",
            "slots": [{"day": "tue", "time": "08:15"}],
            "daily_cap": 3,
        },
        headers={"If-Match": '"1"'},
    )
    assert r.status_code == 200 and r.headers["ETag"] == '"2"'
    assert r.get_json()["timezone"] == "America/New_York" and r.get_json()["daily_cap"] == 3
    stale = api.patch(ITEM + "personal", json={"name": "Other"}, headers={"If-Match": '"1"'})
    assert_error(stale, 412, "precondition_failed")
    assert api.get(ITEM + "personal").get_json()["name"] == "Me"
    unchanged = api.patch(ITEM + "personal", json={"name": "Me"})
    assert unchanged.status_code == 200 and unchanged.get_json()["version"] == 2


BAD_PATCH = [
    ({"type": "brand"}, "type"),
    ({"id": "x"}, "id"),
    ({"name": None}, "name"),
    ({"timezone": "Nowhere"}, "timezone"),
    ({"author_urn": "urn:li:organization:5"}, "author_urn"),  # the personal channel is a person
    ({"daily_cap": -3}, "daily_cap"),
    ({"slots": "mon 09:00"}, "slots"),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("body, field", BAD_PATCH)
def test_bad_patches_change_nothing(api, body, field):
    before = create(api)
    error = assert_error(api.patch(ITEM + "personal", json=body), 400, "validation_error")
    assert field in error["details"]
    assert api.get(ITEM + "personal").get_json() == before


def test_delete_leaves_its_posts(api):
    create(api, slots=[{"day": d, "time": "09:00"} for d in WEEKDAYS])
    post = api.post(POSTS, json={"type": "personal", "content": "stays"}).get_json()
    assert_error(
        api.client.delete(ITEM + "personal", headers={"X-API-Key": api.key, "If-Match": '"7"'}),
        412,
        "precondition_failed",
    )
    assert api.client.delete(ITEM + "personal", headers={"X-API-Key": api.key}).status_code == 204
    assert_error(api.get(ITEM + "personal"), 404, "not_found")
    assert api.get(POSTS + "-item/" + post["id"]).get_json()["content"] == "stays"


def test_channels_are_the_callers_own(api, caller):
    create(api, name="Alice's")
    bob = caller("bob")
    assert bob.get(CHANNELS).get_json()["total"] == 0
    assert_error(bob.get(ITEM + "personal"), 404, "not_found")
    assert_error(bob.patch(ITEM + "personal", json={"name": "mine"}), 404, "not_found")
    assert_error(bob.get(SLOTS + "personal"), 404, "not_found")
    assert bob.post(CHANNELS, json={"type": "personal", "name": "Bob's"}).status_code == 201
    assert api.get(ITEM + "personal").get_json()["name"] == "Alice's"


@pytest.mark.parametrize(
    "method, path, scope",
    [
        ("get", CHANNELS, "posts:read"),
        ("post", CHANNELS, "posts:write"),
        ("get", SLOTS + "personal", "posts:read"),
    ],
)
def test_channels_need_the_posts_scopes(caller, method, path, scope):
    other = {"posts:read": ["posts:write"], "posts:write": ["posts:read"]}[scope]
    who = caller("carol", scopes=other)
    error = assert_error(
        getattr(who, method)(
            path, json={"type": "personal", "name": "x"} if method == "post" else None
        ),
        403,
        "insufficient_scope",
    )
    assert error["details"]["required_scope"] == scope


def test_upcoming_slots_in_the_channels_zone_with_their_posts(api, app):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 0
    create(
        api,
        timezone="Asia/Kolkata",
        slots=[
            {"day": d, "time": "10:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
        ],
    )
    slots = api.get(SLOTS + "personal?days=3").get_json()["data"]
    assert 3 <= len(slots) <= 4
    assert all(s["local"].endswith("T10:00:00+05:30") for s in slots)
    assert all(s["at"].endswith("T04:30:00.000000Z") and s["post_id"] is None for s in slots)
    post = api.post(
        POSTS, json={"type": "personal", "content": "x", "scheduled_at": slots[1]["at"]}
    ).get_json()
    api.patch(POSTS + "-item/" + post["id"], json={"status": "Scheduled"})
    assert [s["post_id"] for s in api.get(SLOTS + "personal?days=3").get_json()["data"]][1] == post[
        "id"
    ]
    assert len(api.get(SLOTS + "personal").get_json()["data"]) in (14, 15)  # default 14 days


@pytest.mark.parametrize(
    "query, field",
    [("days=0", "days"), ("days=91", "days"), ("days=x", "days"), ("from=1", "from")],
)
def test_bad_slot_queries(api, query, field):
    create(api)
    assert (
        field
        in assert_error(api.get(f"{SLOTS}personal?{query}"), 400, "validation_error")["details"]
    )


def at_local(zone, *wall):
    from zoneinfo import ZoneInfo

    return datetime(*wall, tzinfo=ZoneInfo(zone))


def test_slots_never_drift_across_daylight_saving(api):
    """Berlin 09:00 every day through the autumn change stays 09:00 local:
    07:00 UTC before, 08:00 UTC after."""
    create(
        api,
        timezone="Europe/Berlin",
        slots=[
            {"day": d, "time": "09:00"} for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
        ],
    )
    slots = api.get(SLOTS + "personal?days=90").get_json()["data"]
    assert {s["local"][11:] for s in slots} <= {"09:00:00+01:00", "09:00:00+02:00"}
    for s in slots:
        local = datetime.fromisoformat(s["local"])
        assert datetime.fromisoformat(s["at"]) == local.astimezone(UTC)
    days = [datetime.fromisoformat(s["local"]).date() for s in slots]
    assert days == sorted(days) and len(set(days)) == len(days)
    assert days[-1] - days[0] >= timedelta(days=88)
