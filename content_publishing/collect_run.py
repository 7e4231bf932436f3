"""One post's figures read at LinkedIn by the service's own publisher
(publisher.py takes the due collections; analytics/collection.py says when
they are due and what each outcome makes of the schedule).

    a page's post     GET /rest/organizationalEntityShareStatistics
                      ?q=organizationalEntity&organizationalEntity=<page URN>
                      &shares=List(<URN>) (ugcPosts=List(...) for a ugcPost):
                      impressions, members reached, reactions, comments,
                      reshares, clicks
    a member's post   GET /rest/socialActions/<URN>: reactions and comments
                      (needs r_member_social, which LinkedIn grants only to
                      approved apps; without it a personal channel's posts
                      are not collected)

A 401 is refreshed once (publish_run.Token). Whatever goes wrong with one
post is that post's failed try, kept on its schedule (tried again later),
and never stops the others: each runs in a worker of its own. No token
shows in what is kept or logged: LinkedInError carries LinkedIn's words only.
"""

import logging

from content_publishing import connections, timestamps
from content_publishing.analytics import collection
from content_publishing.linkedin_api import LinkedInError
from content_publishing.planning.plan import channel_of
from content_publishing.publish_run import Expired, Token
from content_publishing.store import channels as channel_store
from content_publishing.store import posts as post_store
from content_publishing.store.db import transaction

log = logging.getLogger("publisher")


def collect(publisher, row):
    """Read one post's figures and keep them, or note the failed try."""
    workspace_id, post_id = row["workspace_id"], row["post_id"]
    post = post_store.get_post(workspace_id, post_id)
    if post is None or post["status"] != "Published" or not post["linkedin_post_id"]:
        return _give_up(post_id, "the post is gone or no longer Published")
    channel = channel_store.get_channel(workspace_id, channel_of(post))
    connection = connections.for_channel(workspace_id, channel_of(post))
    if channel is None:
        return _give_up(post_id, "its channel was deleted")
    current = connections.status(connection, timestamps.now_text())
    if current not in connections.USABLE:
        return _failed(post_id, f"The channel {channel['id']} is not connected ({current}).")
    if channel["type"] == "brand" and not channel["author_urn"]:
        return _failed(post_id, f"The channel {channel['id']} has no LinkedIn page chosen.")
    if channel["type"] == "personal" and not connections.can_read_posts(connection, "personal"):
        return _give_up(post_id, "a member's figures need r_member_social, which it lacks")
    value = publisher.fresh_token(workspace_id, channel["id"], connection)
    if value is None:
        return _failed(post_id, connections.EXPIRED_ERROR)
    token = Token(publisher, workspace_id, channel["id"], connection, value)
    urn = post["linkedin_post_id"]
    api = publisher.api
    try:
        if channel["type"] == "personal":
            figures = token.use(lambda t: api.social_actions(t, urn))
        else:
            figures = token.use(lambda t: api.share_statistics(t, channel["author_urn"], urn))
    except Expired:
        return _failed(post_id, connections.EXPIRED_ERROR)
    except LinkedInError as error:
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
