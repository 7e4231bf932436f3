"""Add to queue: the first free slot of the post's channel.

A slot is free when no Scheduled, Publishing or Published post of the
channel is at exactly that instant and planning there keeps to the guards.
The search starts at now plus the scheduling lead time and looks 90 days
ahead. The channel's row is locked first, so that concurrent queue requests
for one channel take one slot each.
"""

from datetime import timedelta

from content_publishing import timestamps
from content_publishing.errors import no_free_slot
from content_publishing.planning import clock
from content_publishing.planning.plan import ChannelPlan, channel_of
from content_publishing.store import channels as channel_store

HORIZON_DAYS = 90


def first_free_slot(user_id, post, lead_seconds, now, plan=None):
    """Stored text of the first free slot for `post`, or no_free_slot (409).
    `plan`: the channel's ChannelPlan when the caller holds one (an import)."""
    channel_id = channel_of(post)
    if plan is None:
        channel = channel_store.lock_channel(user_id, channel_id)
        if channel is None:
            raise no_free_slot(
                channel_id,
                f"Channel {channel_id} is not set up, so it has no posting slots: create it with "
                "POST /functions/v1/channels and give it slots.",
            )
        plan = ChannelPlan(user_id, channel)
    if not plan.channel["slots"]:
        raise no_free_slot(
            channel_id,
            f"Channel {channel_id} has no posting slots: add some with "
            f"PATCH /functions/v1/channels-item/{channel_id}.",
        )
    start = clock.parse(now) + timedelta(seconds=lead_seconds)
    moment = plan.first_free(start, start + timedelta(days=HORIZON_DAYS), post["id"])
    if moment is None:
        raise no_free_slot(
            channel_id,
            f"Channel {channel_id} has no free slot in the next {HORIZON_DAYS} days "
            "that keeps to its guards.",
        )
    plan.take(post["id"], moment)
    return timestamps.to_text(moment)
