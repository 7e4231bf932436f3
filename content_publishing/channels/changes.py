"""What a channel may be: create, change and delete; and what becomes of a
member's channel when they leave.

A brand channel's id is the brand_id its posts carry, so a workspace has
at most one of each: a second is a 409, held by the table's primary key
(workspace_id, id) as well as by the read before the insert. A personal
channel is the LinkedIn profile of one member (`member_id`, the caller's
unless an editor names another), at most one per member: a second is a
409, held by the unique index channels_member. The first personal channel
takes the id `personal` (the reference interface's, and the one its posts
of no channel carry: channels/placement.py), each later one an id of its
own (a UUID); so does one made after a deleted profile whose planned posts
are someone else's (_personal_free). Deleting a channel leaves its posts as they are: they go on as
posts with no channel.

Channels are an editor's to set up (http/channels.py asks for the role)
and to change; a member changes their own personal channel whatever their
role, and only they say whether others may write posts for it
(`others_may_post`). Whether a channel's posts need an approval besides
the workspace's rule (`approvals`) is for owners and admins to say, as the
workspace's own rule is.
"""

import uuid

from marshmallow import ValidationError

from content_publishing.channels import connections
from content_publishing.errors import conflict, forbidden, validation_error
from content_publishing.posts.writes import write
from content_publishing.roles import Grant
from content_publishing.schemas.channels import PERSONAL, check_author
from content_publishing.store import channels as channel_store
from content_publishing.store import members as member_store
from content_publishing.store import posts as post_store
from content_publishing.store.db import is_unique_violation, savepoint


def create(workspace_id, fields, now, grant=None):
    """The new channel, with its (empty) connection; a new channel is never
    connected, so `publisher: linkedin` is a 409. `grant`: the caller's
    roles.Grant (None: the operator)."""
    fields = dict(fields)
    if fields["type"] == "personal":
        member = _member_for(workspace_id, fields, grant)
        fields["member_id"] = member["id"]
        if fields.get("others_may_post") is not None:
            _check_own(grant, member, "say whether others may write posts for a profile")
        ids = [PERSONAL] if _personal_free(workspace_id, member["id"]) else []
        ids.append(str(uuid.uuid4()))
    else:
        _require_editor(grant, "set up a brand channel")
        ids = [fields["brand_id"]]
        if channel_store.get_channel(workspace_id, ids[0]) is not None:
            raise _exists(ids[0])
    fields["others_may_post"] = fields.get("others_may_post") is not False
    if fields.get("approvals", "workspace") != "workspace":
        _require_admin(grant)
    if fields.get("publisher") == "linkedin":
        connections.check_change(workspace_id, {"id": ids[0], "type": fields["type"]}, fields, now)
    for channel_id in ids:
        try:
            with savepoint():
                channel = channel_store.insert_channel(workspace_id, channel_id, fields, now)
                return connections.attach_one(workspace_id, channel, now)
        except Exception as error:  # a concurrent create committed first
            if not is_unique_violation(error):
                raise
            _check_no_profile(workspace_id, fields)
            if channel_id == ids[-1]:
                raise _exists(channel_id) from None
    raise AssertionError("unreachable")  # the last id either is written or raises


def _personal_free(workspace_id, member_id):
    """Whether a new profile of `member_id` may take the id `personal`: no
    channel has it, and no post of someone else is planned under it (the
    posts of a deleted profile, which would otherwise go out in the new
    member's name without their yes)."""
    if channel_store.get_channel(workspace_id, PERSONAL) is not None:
        return False
    return not channel_store.planned_by_others(workspace_id, PERSONAL, member_id)


def _member_for(workspace_id, fields, grant):
    """The member a new personal channel is of (the caller, unless given),
    who may not have one yet; an editor sets one up for another member."""
    member_id = fields.get("member_id")
    own = getattr(grant, "member_id", None)
    if member_id is None:
        member_id = own
    if member_id is None:
        raise validation_error({"member_id": ["Required: the member whose profile it is."]})
    if member_id != own:
        _require_editor(grant, "set up another member's personal channel")
    member = member_store.get_member(workspace_id, member_id)
    if member is None or member["removed_at"] is not None:
        raise validation_error({"member_id": ["Not a member of this workspace."]})
    _check_no_profile(workspace_id, {"type": "personal", "member_id": member_id})
    return member


def _check_no_profile(workspace_id, fields):
    """409 when the member of a new personal channel has one already."""
    if fields["type"] != "personal":
        return
    found = channel_store.personal_of(workspace_id, fields["member_id"])
    if found is not None:
        raise conflict(
            f"{found['member']['name']} has a personal channel already ({found['id']}): a "
            "member has one; change it with PATCH.",
            {"id": found["id"], "member_id": fields["member_id"]},
        )


def _exists(channel_id):
    return conflict(
        f"Channel {channel_id} exists already; change it with PATCH.", {"id": channel_id}
    )


def _require_editor(grant, what):
    if isinstance(grant, Grant):
        grant.require_role("editor", what)


def _require_admin(grant):
    """A channel's own approval rule is the workspace's rule: its owners' and admins'."""
    if isinstance(grant, Grant):
        grant.require_role("admin", "say whether a channel's posts need an approval")


def _check_own(grant, member, what):
    """Only the member whose profile it is may `what`."""
    if isinstance(grant, Grant) and grant.member_id != member["id"]:
        raise forbidden(
            f"Only {member['name']}, whose LinkedIn profile it is, may {what}.",
            {"member_id": member["id"], "role": grant.role},
        )


# What decides which slots are free: a change of any may free slots the
# queue passed as taken, anywhere in it.
PLAN_FIELDS = frozenset({"slots", "timezone", "min_gap_minutes", "daily_cap"})


def update(workspace_id, channel, changes, now, grant=None):
    """The changed channel, with its connection; only what differs is
    written. A change of its slots, zone or guards makes the queue look from
    its start again; a connected channel's author and publisher keep to its
    connection (connections.check_change). An editor changes any channel, a
    member their own; only they change its others_may_post."""
    member = channel["member"]
    if member is None or getattr(grant, "member_id", None) != member["id"]:
        _require_editor(grant, "change a channel that is not their own profile")
    if "others_may_post" in changes:
        if channel["type"] == "brand":
            raise validation_error(
                {"others_may_post": ["A brand channel is the team's: everyone may post for it."]}
            )
        _check_own(grant, member, "say whether others may write posts for it")
    changes = {k: v for k, v in changes.items() if channel.get(k) != v}
    if "approvals" in changes:
        _require_admin(grant)
    if "author_urn" in changes:
        try:
            check_author(channel["type"], changes["author_urn"])
        except ValidationError as error:
            raise validation_error(error.normalized_messages()) from None
    connections.check_change(workspace_id, channel, changes, now)
    if changes:
        if changes.keys() & PLAN_FIELDS:
            channel_store.forget_queue(workspace_id, channel["id"])
        channel = channel_store.update_channel(workspace_id, channel["id"], changes, now)
    return connections.attach_one(workspace_id, channel, now)


def delete(workspace_id, channel):
    """The channel goes, and its LinkedIn connection with it (the row
    cascades); the access token to revoke at LinkedIn once the deletion has
    committed, or None."""
    found = connections.for_channel(workspace_id, channel["id"])
    channel_store.delete_channel(workspace_id, channel["id"])
    return found["access_token"] if found else None


def member_left(workspace_id, member, lead_seconds, now, actor=None):
    """A member left the workspace (inside its transaction): their personal
    channel stays, with its posts and history, disconnected, and each of its
    Scheduled posts becomes Failed, saying why, so that nothing goes out in
    the name of someone who left. The access token to revoke at LinkedIn
    once this has committed, or None."""
    found = channel_store.personal_of(workspace_id, member["id"])
    channel = channel_store.lock_channel(workspace_id, found["id"]) if found else None
    if channel is None:
        return None
    _, token = connections.disconnect(workspace_id, channel, now)
    why = (
        f"{member['name']} left the workspace: channel {channel['id']} is their LinkedIn "
        "profile, and nothing goes out in the name of someone who left."
    )
    for post_id in post_store.scheduled_on(workspace_id, channel["id"]):
        post = post_store.lock_post(workspace_id, post_id)
        if post is None or post["status"] != "Scheduled":
            continue
        columns = {"status": "Failed", "last_error": why}
        write(workspace_id, post, columns, lead_seconds, now, actor, action="refused", detail=why)
    return token
