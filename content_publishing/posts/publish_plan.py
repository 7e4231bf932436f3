"""A post's publish plan (`linkedin_request`): what of the post is handed
over, built by linkedin/plan.py (which documents the plan itself) from
the post's kept fields, its channel's author and UTM tags, and the library
media it names. Handed to automations with each claim and post.due, run by
the service's own publisher, and dry-run by the preview.
"""

from content_publishing import linkedin
from content_publishing.linkedin import plan
from content_publishing.planning.plan import channel_of
from content_publishing.posts import attachments
from content_publishing.store import channels as channel_store
from content_publishing.store import media as media_store

Target = plan.Target


def request_for(post, author_urn, library, target, utm=None):
    """The plan for `post` (its kept fields), whose author is `author_urn`;
    `utm`: its channel's UTM tags, added to the links of its text and first
    comment (sent_text)."""
    sent = {
        **post,
        "content": sent_text(post, "content", utm),
        "first_comment": sent_text(post, "first_comment", utm),
    }
    return plan.build(sent, attachments.media_of(post["media_urls"]), author_urn, library, target)


def library_of(posts):
    """{id: for_plan record} of every library medium `posts` name (one read,
    none when they name none)."""
    ids = {m.media_id for post in posts for m in attachments.media_of(post["media_urls"])}
    return media_store.for_plan(sorted(ids - {None}))


def sent_text(post, field, utm):
    """The post's `field` as it is handed over: with the channel's UTM tags
    on its links (linkedin.with_utm), unless that would take it over
    LinkedIn's limit, where it goes out as written (the preview warns,
    utm_dropped); None stays None."""
    text = post.get(field)
    if not text or not utm:
        return text
    tagged = linkedin.with_utm(text, utm, channel_of(post), post["id"])
    fits = linkedin.fits if field == "content" else linkedin.comment_fits
    return tagged if fits(tagged) else text


def requests_for(workspace_id, posts, target):
    """{post id: its plan}: the author and UTM tags of each from its
    channel, the media from the library (one read each, for all of them)."""
    channels = channel_store.handover_settings(workspace_id, {channel_of(post) for post in posts})
    library = library_of(posts)
    plans = {}
    for post in posts:
        channel = channels.get(channel_of(post)) or {"author_urn": None, "utm": None}
        plans[post["id"]] = request_for(
            post, channel["author_urn"], library, target, channel["utm"]
        )
    return plans
