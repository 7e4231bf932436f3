"""Notifications (docs/api.md, "Notifications"): who hears of what, by email
and in the workspace's chat, queued with the change; and their sending.

    rules.py       who hears of which event, queued in the change's transaction; a message's text
    sending.py     the dispatcher's notifier: email over SMTP, the chat webhook, retries

The rest of the service calls this package's face: `notifications.notify`.
"""

from content_publishing.notifications.rules import (
    EVENTS,
    channel_changed,
    first_comment_failed,
    mail_link,
    notify,
    post_changed,
    render,
    stored,
    test_chat,
    wanted,
)

__all__ = [
    "EVENTS",
    "channel_changed",
    "first_comment_failed",
    "mail_link",
    "notify",
    "post_changed",
    "render",
    "stored",
    "test_chat",
    "wanted",
]
