"""Notifications: who hears of what, by email and in the workspace's chat
(docs/api.md, "Notifications").

    review.requested        a post waits for review        editors, admins, owners
    post.approved           a post was approved            its author
    post.changes_requested  changes were asked for         its author
    comment.mentioned       @name in a comment             the members named
    post.failed             a post failed                  its author, editors and up
    channel.disconnected    a channel's connection ended   admins and owners

`notify` is the one function the rest of the service calls, inside the
transaction of the change: it queues one message per member who is a
recipient, has an email address and wants the event (members.notify; all
events when null), never to the member who caused it, plus one to the
workspace's chat webhook when it has one (every event goes there). The
dispatcher sends them (notifier.py). A message holds the event's facts,
fixed when it is queued; `render` makes its text when it is sent.

Who calls it, in the domain function that makes the change (`actor`: the
id of the member who made it):

    post.failed, channel.disconnected   webhooks/events.py, with their webhook events
    the review's moves and comments     posts/reviews.py, as
    review.requested        notify(ws, "review.requested", now, post=post, actor=actor)
    post.approved           notify(ws, "post.approved", now, post=post, actor=actor)
    post.changes_requested  notify(ws, "post.changes_requested", now, post=post,
                                   actor=actor, comment=text)
    comment.mentioned       notify(ws, "comment.mentioned", now, post=post, actor=actor,
                                   mentioned=ids, comment=body)
"""

import json

from content_publishing import roles
from content_publishing.store import members as member_store
from content_publishing.store import notifications as store
from content_publishing.store import workspaces as workspace_store

EVENTS = (
    "review.requested",
    "post.approved",
    "post.changes_requested",
    "comment.mentioned",
    "post.failed",
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
    "channel.disconnected": "admin",
}
TO_AUTHOR = {"post.approved", "post.changes_requested", "post.failed"}
EXCERPT = 140
DASHBOARD_PATH = "/functions/v1/dashboard"  # as http/linkedin.py's


def notify(
    workspace_id, event, now, post=None, actor=None, channel=None, mentioned=(), comment=None
):
    """Queue `event`'s messages (inside the caller's transaction). `post` and
    `channel` are records as rendered or stored; `actor` is the id of the
    member who caused it, None for the service; `mentioned`, the ids
    of the members a comment names; `comment`, its text. Returns how many
    messages were queued."""
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
        and event in wanted(member["notify"])
    ]
    if space["chat_webhook_url"]:
        messages.append(
            _message(workspace_id, None, "chat", space["chat_webhook_url"], event, post_id, body)
        )
    if messages:
        store.add(messages, now)
    return len(messages)


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
    "channel.disconnected": "The channel {channel} was disconnected",
}


def render(body, public_url):
    """(subject, plain text) of a queued message's facts, with a link to
    the post (or the channels) in the dashboard at `public_url`."""
    facts = json.loads(body)
    base = public_url.rstrip("/") + DASHBOARD_PATH
    channel = (facts.get("channel") or {}).get("name") or "a channel"
    subject = f"[{facts['workspace']}] " + _SUBJECTS[facts["event"]].format(
        actor=facts.get("actor") or "Someone", channel=channel
    )
    lines = [subject, ""]
    post = facts.get("post")
    if post is not None:
        lines.append(f"“{post['excerpt']}”")
        if facts["event"] == "post.failed" and post.get("last_error"):
            lines.append(f"Why: {post['last_error']}")
    if facts.get("comment"):
        lines += ["", facts["comment"]]
    if facts["event"] == "channel.disconnected":
        lines += ["", "Its posts cannot be published until it is connected again."]
    link = f"{base}#/posts/{post['id']}" if post is not None else f"{base}#/channels"
    lines += ["", link, ""]
    return subject, "\n".join(lines)
