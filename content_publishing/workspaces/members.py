"""A workspace's members: inviting one, changing a role, an email or what
they want to be notified of, removing one and an invitation taken up
(docs/api.md, "Members and roles").

The rules: only an owner makes, changes or removes an owner (an admin does
everything else); a workspace keeps at least one owner (409 last_owner); a
removed member's keys are all revoked with them, at once, the invitations
they made end, and their personal channel is disconnected, its Scheduled
posts failed (channels/changes.py: member_left); an invitation works once,
for INVITE_DAYS; a member changes their own email and
notifications whatever their role, and only members:manage changes anyone
else's. Keys and tokens are made by the caller (the
view or the CLI) and come here as hashes: plain values, never the request.
"""

from content_publishing import notifications, roles, timestamps
from content_publishing.channels import changes as channel_changes
from content_publishing.errors import conflict, invite_gone, last_owner, not_found
from content_publishing.store import keys as key_store
from content_publishing.store import members as member_store

INVITE_DAYS = 7
MANAGE = "members:manage"
OWN = {"email", "notify"}  # what a member may change of their own record, whatever their role


def _check_owner_change(grant, what):
    """Only an owner makes, changes or removes an owner."""
    if grant is not None and grant.role != "owner":
        raise roles.refused(grant.role, what)


def add(workspace_id, grant, fields, token_hash, now, mail_url=None):
    """A new member with an invitation whose token hashes to `token_hash`
    (None: no invitation, as `flask members add`, which makes a key at
    once). `grant`: the caller's roles.Grant (None: the operator).
    `mail_url`: the invitation's address, mailed to the member's email
    through the notifier's outbox (None: not mailed; the service sends no
    mail). Returns the member and the invitation's expiry."""
    if fields["role"] == "owner":
        _check_owner_change(grant, "invite an owner")
    member = member_store.insert_member(
        workspace_id, fields["name"], fields.get("email"), fields["role"], now
    )
    if member is None:
        raise conflict(
            f"The workspace has a member named {fields['name']!r} already.",
            {"name": fields["name"]},
        )
    expires_at = None
    if token_hash is not None:
        expires_at = timestamps.later(now, INVITE_DAYS * 86400)
        inviter = getattr(grant, "member_id", None)
        member_store.insert_invite(token_hash, member["id"], expires_at, now, inviter)
        if mail_url is not None and member["email"]:
            notifications.mail_link(
                workspace_id, member["id"], member["email"], "invite", mail_url, now, inviter
            )
    return member, expires_at


def check_invite(invite, now):
    """410 unless the invitation (store: lock_invite or find_invite) may be taken up."""
    if invite["used_at"] is not None or invite["removed_at"] is not None:
        raise invite_gone(
            "invite_used",
            "This invitation was used already, or withdrawn (its member, or whoever invited "
            "them, was removed): ask for a new one.",
        )
    if invite["expires_at"] <= now:
        raise invite_gone(
            "invite_expired",
            f"This invitation expired at {invite['expires_at']}: ask for a new one.",
        )


def may_change(grant, member_id, fields):
    """403 unless `grant` may change these fields of member `member_id`:
    members:manage changes anyone; a member, their own email and notify."""
    if grant is None or MANAGE in grant:
        return
    if grant.member_id == member_id and set(fields) <= OWN:
        return
    if grant.member_id == member_id:
        raise roles.refused(grant.role, "change their own role")
    grant.require(MANAGE)
    raise roles.missing(grant, MANAGE)


def change(workspace_id, grant, member, changes, now):
    """A member's new role, email or notify (the events they want); the
    last owner keeps the role."""
    may_change(grant, member["id"], changes)
    if "notify" in changes:
        changes = {**changes, "notify": notifications.stored(changes["notify"])}
    changes = {k: v for k, v in changes.items() if member.get(k) != v}
    if member["removed_at"] is not None:
        raise conflict(
            "The member was removed; invite them again.", {"removed_at": member["removed_at"]}
        )
    if "role" in changes:
        if "owner" in (member["role"], changes["role"]):
            _check_owner_change(grant, "change an owner's role or make an owner")
        member_store.lock_workspace(workspace_id)
        if member["role"] == "owner" and member_store.count_owners(workspace_id) <= 1:
            raise last_owner(
                f"{member['name']} is the workspace's last owner: make another member owner first."
            )
    if not changes:
        return member
    return member_store.update_member(member["id"], changes)


def remove(workspace_id, grant, member, now, lead_seconds=0, actor=None):
    """Remove a member and revoke every key of theirs at once (the key
    generation moves, so every worker's cache lets them go); their personal
    channel stays, disconnected, and its Scheduled posts fail. (The member,
    the LinkedIn token to revoke once this has committed or None.)"""
    if member["removed_at"] is not None:
        return member, None
    if member["role"] == "owner":
        _check_owner_change(grant, "remove an owner")
        member_store.lock_workspace(workspace_id)
        if member_store.count_owners(workspace_id) <= 1:
            raise last_owner(
                f"{member['name']} is the workspace's last owner: make another member owner first."
            )
    removed = member_store.remove_member(member["id"], now)
    token = channel_changes.member_left(workspace_id, member, lead_seconds, now, actor)
    return removed, token


def accept(token_hash, key_hash, prefix, scopes, now):
    """Take up an invitation: the member's first key (its hash given) with
    `scopes` as their role allows them. Returns (invitation with member and
    workspace, key id); 404 unknown, 410 invite_used or invite_expired.

    The workspace's row is locked first, as every change of its members
    (a removal, a role) locks it first: with one order of locks, an accept
    and a removal at the same moment wait for each other rather than
    deadlock (PostgreSQL)."""
    workspace_id = member_store.invite_workspace(token_hash)
    invite = None
    if workspace_id is not None:
        member_store.lock_workspace(workspace_id)
        invite = member_store.lock_invite(token_hash)
    if invite is None:
        raise not_found("invitation")
    check_invite(invite, now)
    member_store.use_invite(token_hash, now)
    allowed = [s for s in scopes if s in roles.ROLE_SCOPES[invite["role"]]]
    key_id = key_store.insert_key(invite["member_id"], key_hash, prefix, allowed, None, now)
    return invite, key_id, allowed
