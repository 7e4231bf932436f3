"""A channel's access token in the publisher's hands: fresh when a post is
published, refreshed once on a 401, refreshed ahead of its end, and the
connection marked `expiring` or `expired` when it cannot be (the rules of
a connection's lifetime are channels/connections.py's).

The network is asked for new tokens (`network.refresh`, outside any
transaction); what it gave is kept in a transaction of its own.
"""

import logging

from content_publishing import timestamps
from content_publishing.channels import connections
from content_publishing.outbound import CallFailed, TokenExpired
from content_publishing.publisher.network import network_of
from content_publishing.store.db import transaction

log = logging.getLogger("publisher")


class Session:
    """The channel's access token for one post's run: `use(call)` calls
    `call(token)`, and on a 401 refreshes the token once (`refresh()`: the
    new token or None) and calls again. Nothing a network refuses with a 401
    was done, so the one retry is safe. TokenExpired when no token works."""

    def __init__(self, value, refresh):
        self.value, self.refresh = value, refresh
        self.refreshed = False

    def use(self, call):
        try:
            return call(self.value)
        except CallFailed as error:
            if error.status != 401:
                raise
            if self.refreshed:
                raise TokenExpired(connections.EXPIRED_ERROR) from None
            self.refreshed = True
            fresh = self.refresh()
            if fresh is None:
                raise TokenExpired(connections.EXPIRED_ERROR) from None
            self.value = fresh
        try:
            return call(self.value)
        except CallFailed as error:
            if error.status == 401:
                raise TokenExpired(connections.EXPIRED_ERROR) from None
            raise


class Tokens:
    """The tokens of the channels one publisher publishes, with `networks`
    ({name: network}, publisher/network.py) to refresh them."""

    def __init__(self, networks):
        self.networks = networks

    def session(self, workspace_id, channel, connection):
        """A Session for the channel's token, refreshed first if it has
        ended; None when no token can be had."""
        refresh = lambda: self.refreshed(workspace_id, channel, connection)  # noqa: E731
        now = timestamps.now_text()
        if connection["access_token"] and connection["access_expires_at"] > now:
            return Session(connection["access_token"], refresh)
        value = refresh()
        return Session(value, refresh) if value is not None else None

    def refreshed(self, workspace_id, channel, connection):
        """A new access token from the refresh token, kept; None if there is
        none or the network refused it."""
        if not connections.can_refresh(connection, timestamps.now_text()):
            return None
        try:
            tokens = self.networks[network_of(channel)].refresh(connection["refresh_token"])
        except CallFailed as error:
            log.warning("refreshing channel %s's token was refused: %s", channel["id"], error)
            return None
        with transaction():
            connections.refreshed(workspace_id, channel["id"], tokens, timestamps.now_text())
        return tokens.access_token

    def upkeep(self, channel_of):
        """Refresh ahead the tokens that end within 7 days, where a refresh
        helps; mark the others expiring or expired. `channel_of(workspace_id,
        channel_id)` is the channel record, or None."""
        now = timestamps.now_text()
        for workspace_id, channel_id in connections.needing_upkeep(now):
            connection = connections.for_channel(workspace_id, channel_id)
            channel = channel_of(workspace_id, channel_id)
            if connection is None or channel is None:
                continue
            if connection.get("broken"):
                with transaction():
                    connections.break_connection(workspace_id, channel_id, timestamps.now_text())
                continue
            if not connections.can_refresh(connection, now):
                with transaction():
                    connections.settle(workspace_id, channel_id, timestamps.now_text())
                continue
            self._refresh_ahead(workspace_id, channel, connection)

    def _refresh_ahead(self, workspace_id, channel, connection):
        try:
            tokens = self.networks[network_of(channel)].refresh(connection["refresh_token"])
        except CallFailed as error:
            if error.status is None or error.status >= 500:
                return  # the network is away: next time
            log.warning("refreshing channel %s's token was refused: %s", channel["id"], error)
            with transaction():
                connections.expire(workspace_id, channel["id"], timestamps.now_text())
            return
        with transaction():
            connections.refreshed(workspace_id, channel["id"], tokens, timestamps.now_text())
