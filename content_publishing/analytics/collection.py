"""When the service collects a post's figures at LinkedIn itself, and what
each try makes of its schedule (publisher/collect.py makes the calls).

A post is collected when it becomes Published with a LinkedIn post URN
while its channel is connected to LinkedIn (`schedule`, in the transaction
that publishes it): whether the service published it or an automation
reported it, since the channel's token can read either. At AGES after it
went out (1 hour, 24 hours, 7 days, 30 days) the dispatcher reads its
figures and keeps them through `snapshots.record`, the way every collector
does, taken_at the time of the read. Then the schedule goes on to the next
age not yet past (a dispatcher that was away does not read the same
figures three times over), and after the last one it ends: nothing is read
after 30 days.

A try that fails (LinkedIn refused, was away or slow; the connection
expired) is tried again after RETRY_DELAYS, at most TRIES times per age,
unless the next age comes first: its figures supersede the missed ones.
Every try is counted when it is taken, so a collector that dies mid-call
cannot retry a post for ever. A post that cannot be collected at all (it
is gone, no longer Published, its channel deleted, a personal channel
without r_member_social) loses its schedule at once.
"""

from content_publishing import timestamps
from content_publishing.analytics import snapshots
from content_publishing.planning.plan import channel_of
from content_publishing.store import connections as connection_store
from content_publishing.store import stats_collections as collection_store

AGES = (3600, 86400, 7 * 86400, 30 * 86400)  # seconds after publishing
RETRY_DELAYS = (300, 1800, 7200, 21600)  # after the 1st, 2nd, ... failed try of an age
TRIES = len(RETRY_DELAYS) + 1  # tries of one age before it is given up
LATE = 86400  # seconds past the last age after which a schedule is dropped untried
USABLE = ("connected", "expiring")
URN_PREFIXES = ("urn:li:share:", "urn:li:ugcPost:")


def schedule(workspace_id, post, now):
    """Give a post that has just become Published its collections, when its
    channel is connected and it carries a post URN (inside the transaction
    that publishes it)."""
    urn = post.get("linkedin_post_id") or ""
    if not urn.startswith(URN_PREFIXES) or not post.get("published_at"):
        return
    connection = connection_store.get(workspace_id, channel_of(post))
    if connection is None or connection["status"] not in USABLE:
        return
    nxt = _next_age(post["published_at"], now, -1)
    if nxt is not None:
        collection_store.add(post["id"], workspace_id, post["published_at"], *nxt)


def any_due(now):
    """Whether a collection is due: one index probe, before any lock."""
    return collection_store.any_due(now)


def take(now, limit, lease_seconds):
    """Up to `limit` due collections (inside a transaction), each leased for
    `lease_seconds` with its try counted; a schedule past the last age by
    more than LATE is dropped instead, and an age whose tries ran out moves
    on. [{post_id, workspace_id, published_at,
    age, tries, due_at, last_error}]."""
    until = timestamps.later(now, lease_seconds)
    taken = []
    for row in collection_store.take_due(now, limit, until):
        if _past(row["published_at"], now, AGES[-1] + LATE):
            collection_store.drop(row["post_id"])
        elif row["tries"] > TRIES:  # its tries ended mid-call, every one of them
            _move_on(row, now, row["last_error"])
        else:
            taken.append(row)
    return taken


def collected(workspace_id, post_id, figures, now):
    """Keep the figures read at `now` as a snapshot taken then, the way the
    stats API keeps them, and move the schedule on (inside a transaction).
    The snapshot's result ({result, error} as the API answers it)."""
    row = collection_store.lock(post_id)
    snapshot = {
        "post_id": post_id,
        "taken_at": now,
        **{name: figures.get(name) for name in snapshots.FIGURES},
    }
    [result] = snapshots.record(workspace_id, [snapshot], {}, now)
    if row is None:
        return result
    if result["result"] == "refused":  # deleted or no longer Published meanwhile
        collection_store.drop(post_id)
        return result
    _move_on(row, now)
    return result


def failed(post_id, error, now):
    """A try that failed: again later, the next age, or the end (inside a
    transaction)."""
    row = collection_store.lock(post_id)
    if row is None:
        return None
    retry = None
    if row["tries"] < TRIES:
        retry = timestamps.later(now, RETRY_DELAYS[max(row["tries"], 1) - 1])
    nxt = _next_age(row["published_at"], now, row["age"])
    if retry is None or (nxt is not None and nxt[1] <= retry):
        return _move_on(row, now, error)
    collection_store.move(post_id, row["age"], row["tries"], retry, error)
    return retry


def give_up(post_id):
    """A post that cannot be collected at all loses its schedule."""
    if collection_store.lock(post_id) is not None:
        collection_store.drop(post_id)


def of_post(post_id):
    return collection_store.of_post(post_id)


def _move_on(row, now, error=None):
    """The next age not yet past, or the end of the schedule."""
    nxt = _next_age(row["published_at"], now, row["age"])
    if nxt is None:
        collection_store.drop(row["post_id"])
        return None
    collection_store.move(row["post_id"], nxt[0], 0, nxt[1], error)
    return nxt[1]


def _next_age(published_at, now, after):
    """(age, due_at) of the first age after `after` whose time is still to
    come; None when there is none."""
    for age in range(after + 1, len(AGES)):
        due = timestamps.later(published_at, AGES[age])
        if due > now:
            return age, due
    return None


def _past(published_at, now, seconds):
    return timestamps.later(published_at, seconds) < now
