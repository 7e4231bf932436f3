"""One post's figures read at its network by the service's own publisher
(loop.py takes the due collections; analytics/collection.py says when they
are due and what each outcome makes of the schedule).

The network reads them (network.py: `figures`): at LinkedIn, a page's post
through organizationalEntityShareStatistics, a member's through socialActions,
which needs a permission LinkedIn grants only to approved apps; where the
connection may not read them (`can_read_figures`), nothing is collected.

Like a run (run.py), a collection gets its post's channel and connection
(`reach_of`), its network (`network_for`) and `session_for` passed in. Whatever goes wrong
with one post is that post's failed try, kept on its schedule (tried again
later), and never stops the others: each runs in a worker of its own. No
token shows in what is kept or logged.
"""

import logging

from content_publishing import timestamps
from content_publishing.analytics import collection
from content_publishing.channels import connections
from content_publishing.outbound import CallFailed, TokenExpired
from content_publishing.store import posts as post_store
from content_publishing.store.db import transaction

log = logging.getLogger("publisher")


def collect(row, reach_of, network_for, session_for):
    """Read one post's figures and keep them, or note the failed try.
    `reach_of(workspace_id, post)` is connections.reach; `network_for(channel)`
    the network of the channel's connection."""
    workspace_id, post_id = row["workspace_id"], row["post_id"]
    post = post_store.get_post(workspace_id, post_id)
    if post is None or post["status"] != "Published" or not post["linkedin_post_id"]:
        return _give_up(post_id, "the post is gone or no longer Published")
    channel, connection = reach_of(workspace_id, post)
    if channel is None:
        return _give_up(post_id, "its channel was deleted")
    network = network_for(channel)
    current = connections.status(connection, timestamps.now_text())
    if current not in connections.USABLE:
        return _failed(post_id, f"The channel {channel['id']} is not connected ({current}).")
    if channel["type"] == "brand" and not channel["author_urn"]:
        return _failed(post_id, f"The channel {channel['id']} has no {network.name} page chosen.")
    if not network.can_read_figures(connection, channel["type"]):
        return _give_up(post_id, "its connection may not read a member's figures")
    session = session_for(workspace_id, channel, connection)
    if session is None:
        return _failed(post_id, connections.EXPIRED_ERROR)
    try:
        figures = network.figures(session, channel, post["linkedin_post_id"])
    except TokenExpired as expired:
        return _failed(post_id, str(expired))
    except CallFailed as error:
        return _failed(post_id, error.message)
    with transaction():
        outcome = collection.collected(workspace_id, post_id, figures, timestamps.now_text())
    if outcome["result"] == "refused":
        log.info("post %s: figures not kept: %s", post_id, outcome["error"]["message"])
    return outcome


def _failed(post_id, why):
    now = timestamps.now_text()
    with transaction():
        retry = collection.failed(post_id, why, now)
    log.warning(
        "post %s: its figures could not be read (%s); %s",
        post_id,
        why,
        f"next try at {retry}" if retry else "this collection is given up",
    )


def _give_up(post_id, why):
    with transaction():
        collection.give_up(post_id)
    log.info("post %s: its figures are not collected any more: %s", post_id, why)
