"""The seam between the service's own publisher and a network it publishes
on. The publisher (loop.py, run.py, collect.py, tokens.py) speaks to a
network only through an object with these methods, and this module is the
one place that says which network a channel's posts go to.

    refresh(refresh_token)                  new tokens (`access_token`, `expires_in`,
                                            `refresh_token`, `refresh_expires_in`, `scopes`)
    upload(session, plan, read)             the plan's media uploaded, `read(upload)`
                                            giving each one's bytes: {ref: URN}
    post(session, plan, refs)               the post itself, sent once: its URN
    after(session, plan, urn)               the steps after it (a first comment):
                                            {"first_comment_urn"} or {"first_comment_error"}
    can_find(connection, kind)              whether an unknown outcome can be looked for
    find(session, author, content, since)   the URNs of the author's posts with that
                                            text, made since `since`, newest first
    can_read_figures(connection, kind)      whether a post's figures can be read
    figures(session, channel, urn)          a post's figures: {impressions, ...}

`session` is tokens.Session: `session.use(call)` calls `call(access_token)`,
refreshing the token once on a 401. A network's refusal, or its silence, is
an outbound.CallFailed (`status`, `message`, `retry_after`, `sent`); a token
that cannot be refreshed is outbound.TokenExpired. A network names itself
in the publisher's words with `name`, and says with `cannot_find` why an
unknown outcome could not be looked for.

A second network is a sibling package of linkedin/ with such a class, one
more entry in NETWORKS, and its name on the connections made to it
(network_of); nothing else in publisher/ changes.
"""

from collections import namedtuple

from content_publishing.linkedin.network import LinkedIn

# A network's name, as a channel's `publisher` names it -> its class.
NETWORKS = {"linkedin": LinkedIn}


def networks(config):
    """{name: network} for these settings, one object each."""
    return {name: network(config) for name, network in NETWORKS.items()}


def network_of(channel):
    """The name of the network a channel's connection is to. Every connection
    is LinkedIn's today; a second network would be named by its connection."""
    return "linkedin"


# What the publisher keeps to, from the settings of the networks it speaks
# to: its threads, one call's timeout, the wait before an unknown outcome
# is checked, and where a plan sends (posts/publish_plan.py's Target).
Settings = namedtuple(
    "Settings", "enabled workers timeout_seconds check_delay_seconds plan_version plan_api_base"
)


def settings(config):
    """The publisher's settings: FLASK_LINKEDIN_PUBLISH and an app set up
    (FLASK_LINKEDIN_CLIENT_ID) turn it on; FLASK_LINKEDIN_PUBLISH_WORKERS,
    _TIMEOUT_SECONDS and _CHECK_DELAY_SECONDS are its pace."""
    return Settings(
        bool(config["LINKEDIN_PUBLISH"] and config["LINKEDIN_CLIENT_ID"]),
        config["LINKEDIN_PUBLISH_WORKERS"],
        config["LINKEDIN_TIMEOUT_SECONDS"],
        config["LINKEDIN_CHECK_DELAY_SECONDS"],
        config["LINKEDIN_VERSION"],
        config["LINKEDIN_API_BASE"],
    )
