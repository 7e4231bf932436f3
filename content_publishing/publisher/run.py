"""One post's run by the service's own publisher: its plan published at the
network, or an unknown outcome settled there (docs/linkedin-connect.md).

A run gets what it needs passed in: the post, its channel and connection
(`reach`, read once: channels/connections.py), the network (the seam,
network.py), `session_for` (tokens.py: the channel's token, refreshed once
on a 401) and the run's settings. It writes nothing but through
posts/own_handoffs.py, a step at a time, each step's write committed before
the next step (options.commit: the publisher's threads commit theirs
together, commits.py):

1. the channel's connection must work (else Failed, saying so);
2. the plan's media are uploaded; nothing is posted yet, and a failure
   gives the post back (429, the network away or its answer unknown: tried
   again later) or fails it (a refusal, bytes that are not the plan's);
3. the handoff is marked `sending`, with a lease of twice the network's
   timeout and 5 s; if that fails (the handoff moved on), nothing is sent;
4. the post itself, once:
   - its URN: Published, then its first comment, marked sending in the
     database first (once), its outcome kept on the post; a publisher
     stopped in between resumes it after a restart (`resume_comment`);
   - a 401 whose refresh fails: Failed, the connection `expired`;
   - a 429, or the network never reached: nothing was made: back to
     Scheduled, not taken again before Retry-After (60 s without one);
   - another refusal: Failed, with the network's words;
   - a 5xx, a timeout, a connection lost after sending: the outcome is
     unknown. The post is never sent again blind: it stays Publishing and
     is checked after the network's check delay (network.settings).

A check (`check`) reads the author's newest posts at the network: those
with the same text, made since the handoff was marked sending (less
CLOCK_ALLOWANCE), whose URN no other post of the service holds, are the
candidates. One settles it Published ("confirmed after an unknown
outcome"); none is Failed, and so is more than one, naming each URN: a
person decides. Where the connection may not read them, it is Failed at once.
"""

import hashlib
import logging
from collections import namedtuple
from urllib.parse import urlsplit

from content_publishing import timestamps
from content_publishing.channels import connections
from content_publishing.media import library
from content_publishing.outbound import CallFailed, TokenExpired, retry_delay
from content_publishing.posts import own_handoffs
from content_publishing.schemas import media_refs
from content_publishing.store import media as media_store
from content_publishing.store.db import transaction

log = logging.getLogger("publisher")
NOT_REACHED_RETRY = 60  # seconds before a post the network never got is taken again
CHECK_GIVE_UP = 86400  # seconds after sending past which an unknown outcome is not checked again
# Seconds before the sending mark a post found may have been made: the network's
# clock and ours may differ by this much; a post made earlier is not this one.
CLOCK_ALLOWANCE = 5
NOT_CHECKED = "unknown outcome, not checked"

# The settings a run keeps to, and how its writes are committed: `commit(write)`
# runs `write()` in a transaction and returns what it returned, once committed
# (None: a transaction of its own; the publisher's threads share commits.py's).
Options = namedtuple(
    "Options", "lead_seconds timeout_seconds check_delay_seconds commit", defaults=(None,)
)

# What came of a run, written by `record`: Published (`urn`, `confirmed`
# after an unknown outcome), Failed (`error`, the history's `detail`,
# `expired`: the channel whose connection stopped working, `broken`: the
# channel whose tokens the secrets key cannot open), GivenBack (untried: `why`,
# the network's `retry_after`), Unknown (sent, outcome not known: `why`).
Published = namedtuple("Published", "urn confirmed", defaults=(False,))
Failed = namedtuple("Failed", "error detail expired broken", defaults=(None, None, None))
GivenBack = namedtuple("GivenBack", "why retry_after", defaults=(None,))
Unknown = namedtuple("Unknown", "why")


class NothingPosted(Exception):
    """A medium's bytes could not be had as the plan names them."""


def publish(post, reach, network, session_for, read, plan, options):
    """Publish `post` (taken for the service) with its `plan`; `read(upload)`
    gives a medium's bytes (media_reader). What came of it (record's), or
    None when the post moved on."""
    problem = unpublishable(reach, network, timestamps.now_text())
    if problem:
        return record(post, Failed(problem, broken=_broken(reach)), options)
    session = session_for(post["workspace_id"], reach.channel, reach.connection)
    if session is None:
        return record(post, Failed(connections.EXPIRED_ERROR, expired=reach.channel["id"]), options)
    try:
        refs = network.upload(session, plan, read)
    except TokenExpired as expired:
        return record(post, Failed(str(expired), expired=reach.channel["id"]), options)
    except NothingPosted as stopped:
        return record(post, Failed(f"Nothing was posted: {stopped}"), options)
    except CallFailed as error:
        if error.may_retry or error.unknown_outcome:
            return record(post, GivenBack(error.message, error.retry_after), options)
        return record(post, Failed(error.message), options)
    now = timestamps.now_text()
    until = timestamps.later(now, 2 * options.timeout_seconds + 5)
    may_send = committed(
        options, lambda: own_handoffs.sending(post["id"], post["handoff_id"], now, until)
    )
    if not may_send:
        log.info("post %s moved on before it was sent; not sent", post["id"])
        return None
    return _send(post, reach, network, session, plan, refs, options)


def _send(post, reach, network, session, plan, refs, options):
    """The post itself, once (the handoff is marked sending), then its first
    comment once it is Published."""
    try:
        urn = network.post(session, plan, refs)
    except TokenExpired as expired:
        return record(post, Failed(str(expired), expired=reach.channel["id"]), options)
    except CallFailed as error:
        return record(post, _refused(network, error), options)
    published = record(post, Published(urn), options)
    if published and plan["after"]:
        comment(post, network, session, plan, urn, options)
    return published


def comment(post, network, session, plan, urn, options):
    """The Published post's first comment (the plan's steps after it), once:
    marked sending first, then its outcome kept. False when it was not
    sent (another run marked it, or it had none left to send)."""
    with transaction():
        may_send = own_handoffs.comment_sending(post["id"], timestamps.now_text())
    if not may_send:
        return False
    outcome = network.after(session, plan, urn)
    with transaction():
        own_handoffs.commented(
            post["workspace_id"], post["id"], outcome, timestamps.now_text(), options.lead_seconds
        )
    return True


def resume_comment(post, reach, network, session_for, plan, options):
    """A first comment a stopped publisher left behind, sent once now; kept
    as refused when the channel cannot be used any more."""
    problem = unpublishable(reach, network, timestamps.now_text())
    session = (
        None if problem else session_for(post["workspace_id"], reach.channel, reach.connection)
    )
    if session is None:
        with transaction():
            if own_handoffs.comment_sending(post["id"], timestamps.now_text()):
                own_handoffs.commented(
                    post["workspace_id"],
                    post["id"],
                    {"first_comment_error": problem or connections.EXPIRED_ERROR},
                    timestamps.now_text(),
                    options.lead_seconds,
                )
        return False
    return comment(post, network, session, plan, post["linkedin_post_id"], options)


def _refused(network, error):
    """What the network's refusal of the post (or its silence) makes of it."""
    if error.may_retry:
        return GivenBack(error.message, error.retry_after)
    if error.unknown_outcome:
        return Unknown(error.message)
    return Failed(f"{network.name} refused the post. {error.message}")


def check(post, reach, network, session_for, options):
    """Settle a handoff that was sending when its outcome became unknown."""
    now = timestamps.now_text()
    why = post["handoff_error"] or "the publisher stopped while sending it"
    unchecked = (
        f"The outcome of publishing at {network.name} is unknown ({why}), and it could not "
        "be checked: "
    )
    problem = unpublishable(reach, network, now)
    if problem:
        return record(
            post, Failed(unchecked + problem, NOT_CHECKED, broken=_broken(reach)), options
        )
    channel = reach.channel
    if not network.can_find(reach.connection, channel["type"]):
        return record(post, Failed(unchecked + network.cannot_find, NOT_CHECKED), options)
    session = session_for(post["workspace_id"], channel, reach.connection)
    if session is None:
        return record(
            post, Failed(unchecked + connections.EXPIRED_ERROR, expired=channel["id"]), options
        )
    since = timestamps.parse(post["handoff_sending_at"]).timestamp() - CLOCK_ALLOWANCE
    try:
        found = network.find(session, channel["author_urn"], post["content"], since)
    except TokenExpired as expired:
        return record(post, Failed(unchecked + str(expired), expired=channel["id"]), options)
    except CallFailed as error:
        if _too_late(post, now):
            return record(post, Failed(unchecked + error.message, NOT_CHECKED), options)
        log.warning("post %s: could not check (%s); trying again", post["id"], error.message)
        return None  # its lease runs out, and the next round checks again
    held = own_handoffs.held_elsewhere(found, post["id"])
    candidates = [urn for urn in found if urn not in held]
    if len(candidates) == 1:
        return record(post, Published(candidates[0], confirmed=True), options)
    if candidates:
        return record(post, _ambiguous(network, channel, why, candidates), options)
    return record(
        post,
        Failed(
            f"The outcome of publishing at {network.name} was unknown ({why}), and the post is "
            f"not among the newest posts of {channel['author_urn']} on {network.name}: it was "
            f"most likely not published. Look on {network.name}, then retry it, or mark it "
            "Published if it is there.",
            f"unknown outcome, not found on {network.name}",
        ),
        options,
    )


def _ambiguous(network, channel, why, candidates):
    """More than one post at the network could be this one: a person chooses."""
    named = " and ".join(candidates)
    return Failed(
        f"The outcome of publishing at {network.name} was unknown ({why}), and "
        f"{len(candidates)} posts of {channel['author_urn']} on {network.name} have its text, "
        f"made since it was sent and held by no other post: {named}. The service cannot tell "
        f"which is this one: look on {network.name}, then mark it Published with its URN, or "
        "retry it if neither is.",
        f"unknown outcome, {len(candidates)} candidates on {network.name}: {named}",
    )


def record(post, outcome, options):
    """Write what came of the run (one transaction): the outcome, or None
    when the post was no longer in this handoff."""
    now = timestamps.now_text()
    workspace_id, post_id, handoff_id = post["workspace_id"], post["id"], post["handoff_id"]
    lead = options.lead_seconds

    def write():
        if isinstance(outcome, Published):
            return own_handoffs.published(
                workspace_id, post_id, handoff_id, outcome.urn, now, lead, outcome.confirmed
            )
        if isinstance(outcome, Failed):
            if outcome.expired is not None:
                connections.expire(workspace_id, outcome.expired, now)
            if outcome.broken is not None:
                connections.break_connection(workspace_id, outcome.broken, now)
            return own_handoffs.failed(
                workspace_id, post_id, handoff_id, outcome.error, now, lead, outcome.detail
            )
        if isinstance(outcome, GivenBack):
            wait = retry_delay(outcome.retry_after, NOT_REACHED_RETRY)
            return own_handoffs.give_back(
                workspace_id,
                post_id,
                handoff_id,
                timestamps.later(now, wait),
                f"{outcome.why}; tried again after {wait:g} s",
                now,
                lead,
            )
        check_at = timestamps.later(now, options.check_delay_seconds)
        return own_handoffs.unknown(post_id, handoff_id, outcome.why, check_at, now)

    done = committed(options, write)
    _log(post, outcome, done)
    return outcome if done is not None else None


def committed(options, write):
    """`write()` in a transaction (options.commit's, else one of its own): what
    it returned, once committed."""
    if options.commit is not None:
        return options.commit(write)
    with transaction():
        return write()


def _log(post, outcome, done):
    if isinstance(outcome, Published) and done is None:
        log.warning("post %s was published as %s but had moved on", post["id"], outcome.urn)
    elif isinstance(outcome, Unknown):
        log.warning("post %s: outcome unknown (%s); checked later", post["id"], outcome.why)


def unpublishable(reach, network, now):
    """Why the channel cannot be published now, or None."""
    channel, connection = reach
    if channel is None:
        return "The post's channel is not set up any more, so the service cannot publish it."
    current = connections.status(connection, now)
    if current == "expired":
        return connections.EXPIRED_ERROR
    if current == "broken":
        return connections.BROKEN_ERROR.format(why=connection["broken"])
    if current not in connections.USABLE:
        return (
            f"The channel {channel['id']} is not connected to {network.name} ({current}): "
            "connect it, or let your automation publish it."
        )
    if not channel["author_urn"]:
        return (
            f"The channel {channel['id']} has no {network.name} page chosen: pick the page in "
            "the channel's settings, then retry the post."
        )
    return None


def _broken(reach):
    """The channel, when its connection's tokens cannot be opened; else None."""
    connection = reach.connection
    return (
        reach.channel["id"] if reach.channel and connection and connection.get("broken") else None
    )


def _too_late(post, now):
    sent = timestamps.parse(post["handoff_sending_at"])
    return (timestamps.parse(now) - sent).total_seconds() > CHECK_GIVE_UP


# --- a medium's bytes --------------------------------------------------------------------


def media_reader(fetch, limit):
    """`read(upload)`: the bytes of an upload's source as the plan describes
    them: a library medium's file (its PNG rendition made if need be), or a
    URL fetched with `fetch(url, limit)` (outbound.Sender.fetch, under the
    SSRF guard). NothingPosted when they cannot be had, or are not the
    plan's (size, SHA-256)."""

    def read(upload):
        source = upload["source"]
        found = media_refs.LIBRARY_PATH.fullmatch(urlsplit(source).path or "")
        data = _library_bytes(found["id"], found["ext"]) if found else None
        if data is None:
            try:
                data, _ = fetch(source, limit)
            except ValueError as error:
                raise NothingPosted(
                    f"the {upload['kind']} could not be fetched ({error})."
                ) from None
        if upload.get("bytes") is not None and len(data) != upload["bytes"]:
            raise NothingPosted(
                f"{source} is {len(data)} bytes, not the {upload['bytes']} the plan says."
            )
        if upload.get("sha256") and hashlib.sha256(data).hexdigest() != upload["sha256"]:
            raise NothingPosted(f"{source} is not the file the plan names (its SHA-256 differs).")
        return data

    return read


def _library_bytes(media_id, ext):
    """A library medium's file (or its PNG rendition, made if need be); None
    if the library has no such file."""
    record = media_store.get_file(media_id, ext)
    if record is None and ext == "png":
        webp = media_store.get_file(media_id, "webp")
        fields = webp and library.rendition(bytes(webp["data"]))
        if fields:
            with transaction():
                library.keep_rendition(media_id, fields, timestamps.now_text())
            record = media_store.get_file(media_id, "png")
    return bytes(record["data"]) if record else None
