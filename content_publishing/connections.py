"""A channel's connection to LinkedIn: the sign-in, its tokens and their
lifetime, and what the channel record shows of it (docs/linkedin.md,
"Connecting a channel").

- A sign-in starts with a state: random, shown once (in the authorize URL),
  stored as its SHA-256, single use, valid STATE_SECONDS, bound to the
  channel, the key's user and, when a browser asked for it, to that
  browser (a cookie's nonce).
- The tokens LinkedIn grants are stored sealed with the service's secrets
  key (webhooks/secrets.py), and are never part of a record, an event, the
  history or a log line: `shown` is all a reader sees.
- A connection works until its horizon: the refresh token's expiry when
  LinkedIn gave one (the access token is refreshed ahead of its own expiry,
  within EXPIRING_DAYS), else the access token's. Within EXPIRING_DAYS of
  the horizon it is `expiring`; past it, or when a refresh is refused,
  `expired`, and once forgotten (disconnected), `revoked`. Moving to
  expiring and to expired each writes its event once: channel.expiring,
  channel.disconnected.

The network calls themselves (linkedin_api.py) are made by the callers,
outside any transaction; these functions write what came of them, inside
the caller's.
"""

import hashlib
import secrets

from content_publishing import timestamps
from content_publishing.errors import conflict, validation_error
from content_publishing.store import channels as channel_store
from content_publishing.store import connections as connection_store
from content_publishing.webhooks import events
from content_publishing.webhooks import secrets as sealing

STATE_SECONDS = 600
EXPIRING_DAYS = 7
DEFAULT_ACCESS_SECONDS = 60 * 86400  # LinkedIn's documented lifetime, when it names none
SCOPES = {
    "personal": ("openid", "profile", "w_member_social"),
    "brand": ("r_organization_admin", "w_organization_social", "r_organization_social"),
}
READ_POSTS_SCOPE = {"personal": "r_member_social", "brand": "r_organization_social"}
USABLE = ("connected", "expiring")
EXPIRED_ERROR = "LinkedIn connection expired: reconnect the channel"


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


def _hash(text):
    return hashlib.sha256(text.encode()).hexdigest()


# --- the sign-in --------------------------------------------------------------------------


def begin(workspace_id, channel, key_id, browser_nonce, now):
    """A sign-in for `channel`: its state, to put in the authorize URL (the
    only place it ever is in the clear). Expired sign-ins are forgotten."""
    connection_store.forget_states_before(now)
    state = secrets.token_urlsafe(32)
    connection_store.add_state(
        _hash(state),
        workspace_id,
        channel["id"],
        key_id,
        _hash(browser_nonce) if browser_nonce else None,
        timestamps.later(now, STATE_SECONDS),
        now,
    )
    return state


def take_state(state, browser_nonce, now):
    """The sign-in a callback's state finishes ({workspace_id, channel_id, ...}),
    taken (single use) whatever else is wrong with it; StateRefused when it
    is missing, unknown, used, expired, or was asked for by another browser."""
    if not state:
        raise StateRefused("The answer from LinkedIn carries no state.")
    found = connection_store.take_state(_hash(state))
    if found is None:
        raise StateRefused(
            "This sign-in is unknown or was finished already: a sign-in link works once."
        )
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


def connect(workspace_id, channel_id, tokens, member, now):
    """Keep what a sign-in gave (linkedin_api.Tokens, and `member`: its
    member_urn, member_name and organizations [{urn, name}]) for the channel
    (inside a transaction): the connection, the channel's author and, on a
    first connection, `publisher: linkedin`. The channel record, or None if
    the channel was deleted meanwhile."""
    channel = channel_store.lock_channel(workspace_id, channel_id)
    if channel is None:
        return None
    before = connection_store.get(workspace_id, channel_id)
    connection_store.save(workspace_id, channel_id, _fields(tokens, member, now), now)
    changes = {}
    author = _author(channel, member)
    if author != channel["author_urn"]:
        changes["author_urn"] = author
    first = before is None or before["status"] == "revoked"
    if first and channel["publisher"] != "linkedin":
        changes["publisher"] = "linkedin"
    return attach_one(
        workspace_id, channel_store.update_channel(workspace_id, channel_id, changes, now), now
    )


def _fields(tokens, member, now):
    access_seconds = tokens.expires_in or DEFAULT_ACCESS_SECONDS
    return {
        "status": "connected",
        "member_urn": member["member_urn"],
        "member_name": member["member_name"],
        "organizations": member["organizations"],
        "scopes": " ".join(tokens.scopes),
        "access_token": sealing.seal(tokens.access_token),
        "access_expires_at": timestamps.later(now, access_seconds),
        "refresh_token": sealing.seal(tokens.refresh_token) if tokens.refresh_token else None,
        "refresh_expires_at": (
            timestamps.later(now, tokens.refresh_expires_in)
            if tokens.refresh_token and tokens.refresh_expires_in
            else None
        ),
    }


def _author(channel, member):
    """Who the channel's posts are by: the member, for a personal channel; for
    a brand, the one page it may post for, else the channel's own page if it
    is among them, else nobody yet (the person picks one)."""
    if channel["type"] == "personal":
        return member["member_urn"]
    pages = [page["urn"] for page in member["organizations"]]
    if len(pages) == 1:
        return pages[0]
    return channel["author_urn"] if channel["author_urn"] in pages else None


def disconnect(workspace_id, channel, now):
    """The connection forgotten (inside a transaction): its tokens dropped,
    its status `revoked`, the channel published by the automation again.
    (channel record, the access token to revoke at LinkedIn or None)."""
    found = connection_store.get(workspace_id, channel["id"])
    token = _unsealed(found["access_token"]) if found and found["access_token"] else None
    if found is not None and found["status"] != "revoked":
        connection_store.update(
            workspace_id,
            channel["id"],
            {
                "status": "revoked",
                "access_token": None,
                "refresh_token": None,
                "access_expires_at": None,
                "refresh_expires_at": None,
            },
            now,
        )
    changes = {"publisher": "automation"} if channel["publisher"] != "automation" else {}
    if found is not None or changes:
        channel = channel_store.update_channel(workspace_id, channel["id"], changes, now)
    return attach_one(workspace_id, channel, now), token


# --- what a record shows ------------------------------------------------------------------


def horizon(row):
    """Until when the connection works without the person: the refresh
    token's end when there is one, else the access token's."""
    if row["refresh_token"] and row["refresh_expires_at"]:
        return row["refresh_expires_at"]
    return row["access_expires_at"]


def status(row, now):
    """none, connected, expiring, expired or revoked, as of `now`."""
    if row is None:
        return "none"
    if row["status"] in ("expired", "revoked"):
        return row["status"]
    end = horizon(row)
    if end is None or end <= now:
        return "expired"
    if end <= timestamps.later(now, EXPIRING_DAYS * 86400):
        return "expiring"
    return "connected"


def shown(row, now):
    """The channel record's `connection`: never a token."""
    if row is None:
        return {"status": "none", "member_name": None, "expires_at": None, "organizations": []}
    current = status(row, now)
    return {
        "status": current,
        "member_name": row["member_name"],
        "expires_at": None if current == "revoked" else horizon(row),
        "organizations": row["organizations"],
    }


def attach(workspace_id, channels, now):
    """The channel records with their `connection` (one read for all)."""
    found = connection_store.of_channels(workspace_id, {c["id"] for c in channels})
    return [{**c, "connection": shown(found.get(c["id"]), now)} for c in channels]


def attach_one(workspace_id, channel, now):
    return attach(workspace_id, [channel], now)[0] if channel is not None else None


def check_change(workspace_id, channel, changes, now):
    """The rules a channel change meets once it is connected: `publisher:
    linkedin` needs a working connection (409 otherwise); its author is the
    member who signed in (personal), or one of the pages they may post for."""
    row = connection_store.get(workspace_id, channel["id"])
    current = status(row, now)
    if changes.get("publisher") == "linkedin" and current not in USABLE:
        raise conflict(
            f"Channel {channel['id']} is not connected to LinkedIn ({current}): connect it "
            f"first (POST /functions/v1/channels-connect/{channel['id']}), then let the service "
            "publish it.",
            {"connection": current},
        )
    if "author_urn" not in changes or current in ("none", "revoked") or row is None:
        return
    author = changes["author_urn"]
    if channel["type"] == "personal" and row["member_urn"] and author != row["member_urn"]:
        raise validation_error(
            {
                "author_urn": [
                    f"The channel is connected as {row['member_urn']}, its author; disconnect "
                    "it to post as someone else."
                ]
            }
        )
    pages = [page["urn"] for page in row["organizations"]]
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


# --- tokens in use ------------------------------------------------------------------------


def _unsealed(sealed):
    return sealing.unseal(sealed) if sealed else None


def for_channel(workspace_id, channel_id):
    """The connection of a channel as the publisher needs it, or None: its
    row with `access_token` and `refresh_token` unsealed. Never rendered."""
    row = connection_store.get(workspace_id, channel_id)
    if row is None:
        return None
    return {
        **row,
        "access_token": _unsealed(row["access_token"]),
        "refresh_token": _unsealed(row["refresh_token"]),
    }


def can_refresh(row, now):
    """A refresh token that still works and would give the access token
    more time than it has."""
    if not row["refresh_token"] or row["status"] not in USABLE:
        return False
    end = row["refresh_expires_at"]
    return end is None or (end > now and end > (row["access_expires_at"] or now))


def can_read_posts(row, channel_type):
    """Whether the connection may list the author's posts (to settle an
    unknown outcome): r_member_social, which LinkedIn grants only to
    approved apps, or r_organization_social."""
    return READ_POSTS_SCOPE[channel_type] in row["scopes"].split()


def refreshed(workspace_id, channel_id, tokens, now):
    """A refresh's new tokens, kept (inside a transaction); the refresh
    token stays if LinkedIn sent none, as its lifetime runs on."""
    row = _locked(workspace_id, channel_id)
    if row is None or row["status"] not in USABLE:
        return None
    changes = {
        "access_token": sealing.seal(tokens.access_token),
        "access_expires_at": timestamps.later(now, tokens.expires_in or DEFAULT_ACCESS_SECONDS),
    }
    if tokens.refresh_token:
        changes["refresh_token"] = sealing.seal(tokens.refresh_token)
        if tokens.refresh_expires_in:
            changes["refresh_expires_at"] = timestamps.later(now, tokens.refresh_expires_in)
    if tokens.scopes:
        changes["scopes"] = " ".join(tokens.scopes)
    connection_store.update(workspace_id, channel_id, changes, now)
    return settle(workspace_id, channel_id, now)


def _locked(workspace_id, channel_id):
    """The connection, read under its channel's lock: two dispatchers that
    judge it at once then write its events once."""
    if channel_store.lock_channel(workspace_id, channel_id) is None:
        return None
    return connection_store.get(workspace_id, channel_id)


def expire(workspace_id, channel_id, now):
    """The connection stopped working (a refresh refused, or none left): its
    status `expired` and, the first time, the channel.disconnected event."""
    row = _locked(workspace_id, channel_id)
    if row is None or row["status"] not in USABLE:
        return row
    row = connection_store.update(workspace_id, channel_id, {"status": "expired"}, now)
    _changed(workspace_id, channel_id, "channel.disconnected", now)
    return row


def settle(workspace_id, channel_id, now):
    """Write the status time has brought (inside a transaction): expiring
    (channel.expiring, once) or expired (channel.disconnected, once)."""
    row = _locked(workspace_id, channel_id)
    if row is None or row["status"] not in USABLE:
        return row
    current = status(row, now)
    if current == row["status"]:
        return row
    if current == "expired":
        return expire(workspace_id, channel_id, now)
    row = connection_store.update(workspace_id, channel_id, {"status": current}, now)
    if current == "expiring":
        _changed(workspace_id, channel_id, "channel.expiring", now)
    else:
        channel_store.update_channel(workspace_id, channel_id, {}, now)
    return row


def _changed(workspace_id, channel_id, event_type, now):
    """The channel's version moves (its record changed) and the event goes out."""
    channel = channel_store.update_channel(workspace_id, channel_id, {}, now)
    events.channel_changed(workspace_id, event_type, attach_one(workspace_id, channel, now), now)


def needing_upkeep(now):
    """[(workspace_id, channel_id)] of connections whose access token ends within
    EXPIRING_DAYS: to refresh ahead, or to mark expiring or expired."""
    before = timestamps.later(now, EXPIRING_DAYS * 86400)
    return [(r["workspace_id"], r["channel_id"]) for r in connection_store.needing_upkeep(before)]
