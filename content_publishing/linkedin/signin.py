"""Signing a channel in to LinkedIn (docs/linkedin-connect.md): what a
sign-in asks for, its state, and whose posts the channel's become.

- A sign-in starts with a state: random, shown once (in the authorize URL),
  stored as its SHA-256, single use, valid STATE_SECONDS, bound to the
  channel, the key's workspace and, when a browser asked for it, to that
  browser (a cookie's nonce). It names the member who started it (a key's
  or a session's) before its random part, `<member id>.<random>`: the
  stored hash covers the whole state, so a state altered to name another
  member is unknown, and the callback knows who began the sign-in without
  a key (a session has none).
- A personal channel posts as the member who signed in; a brand channel as
  the one page they may post for, or the page a person picks among theirs.

What a sign-in gives is kept by channels/connections.py; the calls to
LinkedIn themselves are api.py's.
"""

import hashlib
import secrets

from content_publishing import timestamps
from content_publishing.errors import validation_error
from content_publishing.store import connections as connection_store

STATE_SECONDS = 600
SCOPES = {
    "personal": ("openid", "profile", "w_member_social"),
    "brand": ("r_organization_admin", "w_organization_social", "r_organization_social"),
}
# What reading the author's own posts needs (to settle an unknown outcome,
# and a member's figures): r_member_social, which LinkedIn grants only to
# approved apps, or r_organization_social.
READ_POSTS_SCOPE = {"personal": "r_member_social", "brand": "r_organization_social"}


class StateRefused(Exception):
    """A callback's state that cannot finish a sign-in; the message says why."""


def scopes_for(channel_type, member_posts_readable=False):
    """What a sign-in asks for: posting as the member or the page, and
    r_member_social too for an app LinkedIn granted it (to check a personal
    channel's unknown outcome)."""
    scopes = SCOPES[channel_type]
    if channel_type == "personal" and member_posts_readable:
        scopes = (*scopes, READ_POSTS_SCOPE["personal"])
    return scopes


def can_read_posts(connection, channel_type):
    """Whether the connection may list the author's posts."""
    return READ_POSTS_SCOPE[channel_type] in connection["scopes"].split()


def _hash(text):
    return hashlib.sha256(text.encode()).hexdigest()


def begin(workspace_id, channel, actor, browser_nonce, now):
    """A sign-in for `channel` started by `actor` (roles.Actor: its key, if
    any, and its member): its state, to put in the authorize URL (the only
    place it ever is in the clear). Expired sign-ins are forgotten."""
    connection_store.forget_states_before(now)
    state = secrets.token_urlsafe(32)  # never holds a "."
    if actor.member_id is not None:
        state = f"{actor.member_id}.{state}"
    connection_store.add_state(
        _hash(state),
        workspace_id,
        channel["id"],
        actor.key_id,
        _hash(browser_nonce) if browser_nonce else None,
        timestamps.later(now, STATE_SECONDS),
        now,
    )
    return state


def _starter(state):
    """The member id a state names (begin), or None: a state of no member,
    or one made before states named theirs (its key then says who)."""
    head, dot, _ = state.partition(".")
    return int(head) if dot and head.isdigit() else None


def take_state(state):
    """The sign-in a callback's state finishes ({workspace_id, channel_id,
    key_id, member_id: who started it, ...}), taken (single use: inside a
    transaction that commits whatever else is wrong with it, which
    check_taken then says); StateRefused when it is missing, unknown or used."""
    if not state:
        raise StateRefused("The answer from LinkedIn carries no state.")
    found = connection_store.take_state(_hash(state))
    if found is None:
        raise StateRefused(
            "This sign-in is unknown or was finished already: a sign-in link works once."
        )
    return {**found, "member_id": _starter(state)}


def check_taken(found, browser_nonce, now):
    """StateRefused when the sign-in taken (take_state) expired, or was asked
    for by another browser; the sign-in otherwise."""
    if found["expires_at"] <= now:
        raise StateRefused(
            f"This sign-in expired: it must be finished within {STATE_SECONDS // 60} minutes."
        )
    if found["browser_hash"] is not None and (
        not browser_nonce or _hash(browser_nonce) != found["browser_hash"]
    ):
        raise StateRefused(
            "This sign-in was started in another browser: finish it in the browser that started it."
        )
    return found


def author_for(channel, member):
    """Who the channel's posts are by after a sign-in by `member` ({member_urn,
    organizations}): the member, for a personal channel; for a brand, the
    one page they may post for, else the channel's own page if it is among
    them, else nobody yet (the person picks one)."""
    if channel["type"] == "personal":
        return member["member_urn"]
    pages = [page["urn"] for page in member["organizations"]]
    if len(pages) == 1:
        return pages[0]
    return channel["author_urn"] if channel["author_urn"] in pages else None


def check_author(channel, connection, author):
    """A connected channel's author keeps to its sign-in: the member who
    signed in (personal), or one of the pages they may post for (400)."""
    if channel["type"] == "personal" and connection["member_urn"]:
        if author != connection["member_urn"]:
            raise validation_error(
                {
                    "author_urn": [
                        f"The channel is connected as {connection['member_urn']}, its author; "
                        "disconnect it to post as someone else."
                    ]
                }
            )
        return
    pages = [page["urn"] for page in connection["organizations"]]
    if channel["type"] == "brand" and author is not None and author not in pages:
        raise validation_error(
            {
                "author_urn": [
                    "Not a page the connected LinkedIn member may post for: one of "
                    + (", ".join(pages) or "none")
                    + "."
                ]
            }
        )
