"""Notifications: who hears of what, by email and in the workspace's chat
(docs/api.md, "Notifications").

    review.requested        a post waits for review        editors, admins, owners
    post.approved           a post was approved            its author
    post.changes_requested  changes were asked for         its author
    comment.mentioned       @name in a comment             the members named
    post.failed             a post failed                  its author, editors and up
    post.first_comment_failed  a first comment was refused its author
    channel.disconnected    a channel's connection ended   admins and owners

`notify` is the one function the rest of the service calls, inside the
transaction of the change: it queues one message per member who is a
recipient, has an email address and wants the event (members.notify; all
events when null), never to the member who caused it, plus one to the
workspace's chat webhook when it has one (every event goes there). The
dispatcher sends them (sending.py). A message holds the event's facts,
fixed when it is queued; `render` makes its text when it is sent.

Who calls it, in the domain function that makes the change (`actor`: the
id of the member who made it):

    post.failed             post_changed, where a post's change writes its webhook event
                            (posts/writes.py, posts/handoffs.py)
    channel.disconnected    channel_changed, with its webhook event (channels/connections.py)
    post.first_comment_failed  first_comment_failed, with its webhook event (posts/writes.py)
    the review's moves and comments     posts/reviews.py, as
    review.requested        notify(ws, "review.requested", now, post=post, actor=actor)
    post.approved           notify(ws, "post.approved", now, post=post, actor=actor)
    post.changes_requested  notify(ws, "post.changes_requested", now, post=post,
                                   actor=actor, comment=text)
    comment.mentioned       notify(ws, "comment.mentioned", now, post=post, actor=actor,
                                   mentioned=ids, comment=body)
"""

import json

from content_publishing import roles, sealing
from content_publishing.schemas.text import without_bidi_controls
from content_publishing.store import members as member_store
from content_publishing.store import notifications as store
from content_publishing.store import workspaces as workspace_store

EVENTS = (
    "review.requested",
    "post.approved",
    "post.changes_requested",
    "comment.mentioned",
    "post.failed",
    "post.first_comment_failed",
    "channel.disconnected",
)
# The least role that hears of an event besides its named members (the
# post's author, the members mentioned): None, only those.
LEAST_ROLE = {
    "review.requested": "editor",
    "post.approved": None,
    "post.changes_requested": None,
    "comment.mentioned": None,
    "post.failed": "editor",
    "post.first_comment_failed": None,
    "channel.disconnected": "admin",
}
TO_AUTHOR = {"post.approved", "post.changes_requested", "post.failed", "post.first_comment_failed"}
EXCERPT = 140
DASHBOARD_PATH = "/functions/v1/dashboard"  # as http/connect.py's


def notify(
    workspace_id,
    event,
    now,
    post=None,
    actor=None,
    channel=None,
    mentioned=(),
    comment=None,
    told=(),
):
    """Queue `event`'s messages (inside the caller's transaction). `post` and
    `channel` are records as rendered or stored; `actor` is the id of the
    member who caused it, None for the service; `mentioned`, the ids
    of the members a comment names; `comment`, its text; `told`, the ids
    of members who heard of this change by another event already (one
    mail per person for one change). Returns the ids of the members
    mailed."""
    if event not in EVENTS:
        raise ValueError(f"unknown notification event {event!r}")
    space = workspace_store.get_workspace(workspace_id)
    by = member_store.get_member(workspace_id, actor) if actor is not None else None
    facts = _facts(space, event, post, by, channel, comment)
    body = json.dumps(facts, ensure_ascii=False, separators=(",", ":"))
    named = set(mentioned)
    if event in TO_AUTHOR and post is not None and _author_id(post) is not None:
        named.add(_author_id(post))
    least = LEAST_ROLE[event]
    post_id = post["id"] if post is not None else None
    messages = [
        _message(workspace_id, member["id"], "email", member["email"], event, post_id, body)
        for member in store.recipients(workspace_id)
        if (member["id"] in named or (least and roles.at_least(member["role"], least)))
        and member["id"] != actor
        and member["id"] not in told
        and event in wanted(member["notify"])
    ]
    mailed = [m["member_id"] for m in messages]
    if space["chat_webhook_url"] and event in wanted(space.get("chat_events")) and not told:
        messages.append(
            _message(workspace_id, None, "chat", space["chat_webhook_url"], event, post_id, body)
        )
    if messages:
        store.add(messages, now)
    return mailed


TEST = "chat.test"  # not an event: a message an admin sends to see the chat hears it


def test_chat(workspace_id, actor, now):
    """Queue a test message to the workspace's chat webhook (the dispatcher
    sends it, as any other); False when it has none."""
    space = workspace_store.get_workspace(workspace_id)
    if not space["chat_webhook_url"]:
        return False
    by = member_store.get_member(workspace_id, actor) if actor is not None else None
    body = json.dumps(_facts(space, TEST, None, by, None, None), ensure_ascii=False)
    store.add(
        [_message(workspace_id, None, "chat", space["chat_webhook_url"], TEST, None, body)], now
    )
    return True


# Mails of accounts (accounts/links.py, the invitation): to one address, each
# with a link whose token the row keeps sealed (sealing.py), never in the clear.
LINK_MAILS = {
    "sign_in": (
        "Your sign-in link",
        "Open this link within 15 minutes to sign in. It works once.",
    ),
    "reset": (
        "Set a new password",
        "Open this link within 15 minutes to set a new password. It works once.",
    ),
    "owner": (
        "Set your email and password",
        "Open this link within 24 hours to set the owner's email and password.",
    ),
    "invite": (
        "{actor} invited you",
        "Open this link within 7 days to take up the invitation. It works once.",
    ),
}


def mail_link(workspace_id, member_id, recipient, kind, url, now, actor=None):
    """Queue the mail of a link (`kind`: one of LINK_MAILS) to `recipient`,
    inside the caller's transaction."""
    space = workspace_store.get_workspace(workspace_id)
    by = member_store.get_member(workspace_id, actor) if actor is not None else None
    facts = {
        "event": f"account.{kind}",
        "workspace": space["name"],
        "actor": by and by["name"],
        "link": sealing.seal(url),
    }
    body = json.dumps(facts, ensure_ascii=False, separators=(",", ":"))
    store.add(
        [_message(workspace_id, member_id, "email", recipient, facts["event"], None, body)], now
    )


def _render_link(facts):
    subject, text = LINK_MAILS[facts["event"].removeprefix("account.")]
    subject = f"[{facts['workspace']}] " + subject.format(actor=facts.get("actor") or "Someone")
    subject = without_bidi_controls(subject)
    return subject, "\n".join([subject, "", text, "", sealing.unseal(facts["link"]), ""])


def post_changed(workspace_id, before, after, now):
    """What a post's change tells the members: post.failed when it moved
    to Failed (to its author, and editors and up)."""
    if after["status"] == "Failed" and before["status"] != "Failed":
        notify(workspace_id, "post.failed", now, post=after)


def first_comment_failed(workspace_id, post, now, actor=None):
    """A Published post's first comment was refused: its author hears of it."""
    notify(workspace_id, "post.first_comment_failed", now, post=post, actor=actor)


def channel_changed(workspace_id, event_type, channel, now):
    """What a channel's connection event tells the members: channel.disconnected
    (to admins and owners); channel.expiring goes to webhooks only."""
    if event_type == "channel.disconnected":
        notify(workspace_id, "channel.disconnected", now, channel=channel)


def wanted(notify):
    """The events a member wants, from their notify (None: every one)."""
    return list(EVENTS) if notify is None else notify


def stored(notify):
    """What members.notify keeps of a list of events, in EVENTS' order:
    None when it is all of them, so that events added later reach the
    members who never chose."""
    if notify is None or set(notify) == set(EVENTS):
        return None
    return [e for e in EVENTS if e in notify]


def _author_id(post):
    if post.get("author"):
        return post["author"]["id"]
    return post.get("created_by")


def _message(workspace_id, member_id, kind, recipient, event, post_id, body):
    return {
        "workspace_id": workspace_id,
        "member_id": member_id,
        "kind": kind,
        "recipient": recipient,
        "event": event,
        "post_id": post_id,
        "body": body,
    }


def _facts(space, event, post, by, channel, comment):
    facts = {"event": event, "workspace": space["name"], "actor": by and by["name"]}
    if post is not None:
        content = post.get("content") or ""
        facts["post"] = {
            "id": post["id"],
            "excerpt": content[:EXCERPT] + ("…" if len(content) > EXCERPT else ""),
            "status": post.get("status"),
            "last_error": post.get("last_error"),
            "first_comment_error": post.get("first_comment_error"),
        }
    if channel is not None:
        facts["channel"] = {"id": channel["id"], "name": channel.get("name")}
    if comment is not None:
        facts["comment"] = comment[:1000]
    return facts


_SUBJECTS = {
    "review.requested": "{actor} asks for a review of a post",
    "post.approved": "{actor} approved your post",
    "post.changes_requested": "{actor} asked for changes to your post",
    "comment.mentioned": "{actor} mentioned you in a comment",
    "post.failed": "A post failed to publish",
    "post.first_comment_failed": "The first comment of your post was refused",
    "channel.disconnected": "The channel {channel} was disconnected",
    TEST: "{actor} sent a test message: this chat hears of the workspace's posts",
}


def render(body, public_url):
    """(subject, plain text) of a queued message's facts, with a link to
    the post (or the channels) in the dashboard at `public_url`."""
    facts = json.loads(body)
    if facts["event"].startswith("account."):
        return _render_link(facts)
    base = public_url.rstrip("/") + DASHBOARD_PATH
    channel = (facts.get("channel") or {}).get("name") or "a channel"
    subject = f"[{facts['workspace']}] " + _SUBJECTS[facts["event"]].format(
        actor=facts.get("actor") or "Someone", channel=channel
    )
    subject = without_bidi_controls(subject)  # a name stored before they were refused
    lines = [subject, ""]
    post = facts.get("post")
    if post is not None:
        lines.append(f"“{post['excerpt']}”")
        if facts["event"] == "post.failed" and post.get("last_error"):
            lines.append(f"Why: {post['last_error']}")
        if facts["event"] == "post.first_comment_failed" and post.get("first_comment_error"):
            lines.append(f"Why: {post['first_comment_error']}")
            lines.append("The post itself is published; add the comment at LinkedIn by hand.")
    if facts.get("comment"):
        lines += ["", facts["comment"]]
    if facts["event"] == "channel.disconnected":
        lines += ["", "Its posts cannot be published until it is connected again."]
    link = f"{base}#/posts/{post['id']}" if post is not None else f"{base}#/channels"
    if facts["event"] == TEST:
        link = f"{base}#/settings"
    lines += ["", link, ""]
    return subject, "\n".join(lines)
