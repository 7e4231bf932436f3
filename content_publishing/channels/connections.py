"""A channel's connection to the network it publishes on: its tokens and
their lifetime, and what the channel record shows of it
(docs/linkedin-connect.md, "Connecting a channel"). How a sign-in is made
is the network's (linkedin/signin.py); what it gave is kept here.

- The tokens a sign-in grants are stored sealed with the service's secrets
  key (sealing.py), and are never part of a record, an event, the history
  or a log line: `shown` is all a reader sees.
- A connection works until its horizon: the refresh token's expiry when the
  network gave one (the access token is refreshed ahead of its own expiry,
  within EXPIRING_DAYS), else the access token's. Within EXPIRING_DAYS of
  the horizon it is `expiring`; past it, or when a refresh is refused,
  `expired`, and once forgotten (disconnected), `revoked`. Moving to
  expiring and to expired each writes its event once: channel.expiring,
  channel.disconnected.
- A connection whose stored tokens the secrets key in force cannot open (a
  changed or lost key) is `broken`, with the reason (`break_connection`,
  channel.disconnected once): it is reconnected, as an expired one is.

The network calls themselves are made by the callers, outside any
transaction; these functions write what came of them, inside the caller's.
"""

from collections import namedtuple

from content_publishing import notifications, sealing, timestamps
from content_publishing.errors import conflict, forbidden
from content_publishing.linkedin import signin
from content_publishing.planning.plan import channel_of
from content_publishing.store import channels as channel_store
from content_publishing.store import connections as connection_store
from content_publishing.store import keys as key_store
from content_publishing.webhooks import events

EXPIRING_DAYS = 7
DEFAULT_ACCESS_SECONDS = 60 * 86400  # LinkedIn's documented lifetime, when it names none
USABLE = ("connected", "expiring")
EXPIRED_ERROR = "LinkedIn connection expired: reconnect the channel"
BROKEN_ERROR = (
    "The channel's LinkedIn tokens cannot be read with the service's secrets key ({why}): "
    "reconnect the channel, or start the service with the key they were sealed with"
)


class NotTheirs(Exception):
    """A sign-in refused: the LinkedIn account, or the person who started
    it, is not the channel's member's; the message says why."""


def check_starter(channel, member_id):
    """403 forbidden unless a personal channel's sign-in is started by its
    own member: a profile is connected by the person whose it is."""
    member = channel.get("member")
    if member is not None and member["id"] != member_id:
        raise forbidden(
            f"Channel {channel['id']} is {member['name']}'s LinkedIn profile: only "
            f"{member['name']} connects it, signing in to LinkedIn as themselves.",
            {"channel_id": channel["id"], "member_id": member["id"]},
        )


def check_theirs(workspace_id, channel, member, started=None):
    """NotTheirs unless the sign-in (`member`: its member_urn) connects a
    personal channel to its own member's account: started by them
    (`started`: the sign-in's key_id and member_id, by a key or a session),
    as the account it was connected as before (if ever), and not the
    account of another member's channel."""
    owner = channel.get("member")
    if channel["type"] != "personal" or owner is None:
        return
    if owner["removed_at"] is not None or _starter(started) != owner["id"]:
        raise NotTheirs(
            f"Only {owner['name']} connects this LinkedIn profile, from their own sign-in."
        )
    before = connection_store.get(workspace_id, channel["id"])
    if before is not None and before["member_urn"] not in (None, member["member_urn"]):
        raise NotTheirs(
            f"This channel is {owner['name']}'s LinkedIn profile, connected before as another "
            "LinkedIn account: sign in to LinkedIn as that account. Another person's account "
            "cannot connect to it."
        )
    for other in connection_store.with_member(workspace_id, member["member_urn"]):
        if other != channel["id"]:
            raise NotTheirs(
                "This LinkedIn account is connected to another member's personal channel "
                f"({other}): a person's account connects to their own channel only."
            )


def _starter(started):
    """The member who started a sign-in: the one its state names, else (a
    sign-in begun before states named theirs) its key's; None if unknown."""
    if not started:
        return None
    if started.get("member_id") is not None:
        return started["member_id"]
    key = key_store.get_key(started["key_id"]) if started.get("key_id") is not None else None
    return key["member_id"] if key else None


def connect(workspace_id, channel_id, tokens, member, now, started=None):
    """Keep what a sign-in gave (linkedin/api.py's Tokens, and `member`: its
    member_urn, member_name and organizations [{urn, name}]) for the channel
    (inside a transaction): the connection, the channel's author and, on a
    first connection, `publisher: linkedin`. The channel record, or None if
    the channel was deleted meanwhile; NotTheirs when the sign-in is not its
    member's (check_theirs; `started`: the sign-in taken, who began it)."""
    channel = channel_store.lock_channel(workspace_id, channel_id)
    if channel is None:
        return None
    check_theirs(workspace_id, channel, member, started)
    before = connection_store.get(workspace_id, channel_id)
    connection_store.save(workspace_id, channel_id, _fields(tokens, member, now), now)
    changes = {}
    author = signin.author_for(channel, member)
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
        "broken": None,
    }


def disconnect(workspace_id, channel, now):
    """The connection forgotten (inside a transaction): its tokens dropped,
    its status `revoked`, the channel published by the automation again.
    (channel record, the access token to revoke at LinkedIn or None)."""
    found = connection_store.get(workspace_id, channel["id"])
    try:
        token = _unsealed(found["access_token"]) if found and found["access_token"] else None
    except ValueError:
        token = None  # a token the key cannot open is forgotten, not revoked at LinkedIn
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
    """none, connected, expiring, expired, broken or revoked, as of `now`."""
    if row is None:
        return "none"
    if row["status"] in ("expired", "revoked"):
        return row["status"]
    if row.get("broken"):
        return "broken"
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
    signin.check_author(channel, row, changes["author_urn"])


# --- tokens in use ------------------------------------------------------------------------


def _unsealed(sealed):
    return sealing.unseal(sealed) if sealed else None


# What the publisher works with for one post: its channel's record (None:
# not set up) and the channel's connection with its tokens unsealed (None:
# never connected).
Reach = namedtuple("Reach", "channel connection")


def reach(workspace_id, post):
    """The post's channel and connection, read once for its run."""
    channel_id = channel_of(post)
    return Reach(
        channel_store.get_channel(workspace_id, channel_id), for_channel(workspace_id, channel_id)
    )


def for_channel(workspace_id, channel_id):
    """The connection of a channel as the publisher needs it, or None: its
    row with `access_token` and `refresh_token` unsealed. Never rendered.
    Tokens the secrets key cannot open are None, and `broken` says why."""
    row = connection_store.get(workspace_id, channel_id)
    if row is None:
        return None
    try:
        tokens = {
            "access_token": _unsealed(row["access_token"]),
            "refresh_token": _unsealed(row["refresh_token"]),
        }
    except ValueError:
        tokens = {"access_token": None, "refresh_token": None, "broken": sealing.UNREADABLE}
    return {**row, **tokens}


def break_connection(workspace_id, channel_id, now):
    """The connection's tokens cannot be opened with the secrets key in force
    (inside a transaction): it is `broken`, saying so, and, the first time,
    channel.disconnected goes out."""
    row = _locked(workspace_id, channel_id)
    if row is None or row["status"] not in USABLE or row["broken"]:
        return row
    row = connection_store.update(workspace_id, channel_id, {"broken": sealing.UNREADABLE}, now)
    _changed(workspace_id, channel_id, "channel.disconnected", now)
    return row


def can_refresh(row, now):
    """A refresh token that still works and would give the access token
    more time than it has."""
    if not row["refresh_token"] or row["status"] not in USABLE:
        return False
    end = row["refresh_expires_at"]
    return end is None or (end > now and end > (row["access_expires_at"] or now))


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
    if row is None or row["status"] not in USABLE or row["broken"]:
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
    shown = attach_one(workspace_id, channel, now)
    events.channel_changed(workspace_id, event_type, shown, now)
    notifications.channel_changed(workspace_id, event_type, shown, now)


def needing_upkeep(now):
    """[(workspace_id, channel_id)] of connections whose access token ends within
    EXPIRING_DAYS: to refresh ahead, or to mark expiring or expired."""
    before = timestamps.later(now, EXPIRING_DAYS * 86400)
    return [(r["workspace_id"], r["channel_id"]) for r in connection_store.needing_upkeep(before)]
