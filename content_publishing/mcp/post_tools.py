"""The tools on posts: read, draft, change, preview, schedule, queue, submit
for review, comment. Each is one or two calls of the API, whose rules
decide (the 3,000-character limit, the lead time, approvals, roles): a
refusal comes back as the API's code and message (errors.py)."""

from typing import Annotated

from mcp.server.fastmcp import Context
from pydantic import Field

from content_publishing.mcp import channels
from content_publishing.mcp.calls import caller, segment
from content_publishing.mcp.channels import ABOUT as CHANNEL
from content_publishing.mcp.shapes import Comment, Post, Posts, Preview

POSTS = "/api-v2-posts"
ITEM = "/api-v2-posts-item/"

PostId = Annotated[str, Field(description="The post's id, as list_posts or create_draft gave it.")]
Version = Annotated[
    int | None,
    Field(
        description="The post's `version` as you last read it: the change is refused "
        "(precondition_failed) if someone changed the post since. Leave it out to change the "
        "post as it is now."
    ),
]
Content = Annotated[
    str,
    Field(
        description="The post's text: at most 3,000 characters as LinkedIn counts them, once "
        "escaped (preview_post says how many)."
    ),
]
FirstComment = Annotated[
    str | None,
    Field(
        description="A comment posted right after the post (up to 1,250 characters), where "
        'links go without hiding the post\'s own card. In update_post, "" removes it.'
    ),
]
MediaIds = Annotated[
    list[str] | None,
    Field(
        description="Media library ids from upload_media (or its `ref` or `url`), in order: "
        "1-20 images, or one PDF document."
    ),
]
AltTexts = Annotated[
    list[str | None] | None,
    Field(
        description="One alt text per medium, in the same order (null: the library item's "
        "own); describes each image for people who cannot see it."
    ),
]
DocumentTitle = Annotated[
    str | None,
    Field(description="A PDF document's title, shown on LinkedIn (needed to schedule it)."),
]


def shown(post):
    """A post as the tools give it: the API's record, with its channel."""
    return {**post, "channel": channels.of(post)}


def media_ref(value):
    """A library id as a post names it (media:<id>); a ref or URL as given."""
    return value if ":" in value else f"media:{value}"


def attachments(first_comment=None, media_ids=None, alt_texts=None, document_title=None):
    """The fields of a create or a change besides text and channel; an empty
    string removes first_comment or document_title (null in the API)."""
    fields = {}
    if first_comment is not None:
        fields["first_comment"] = first_comment or None
    if document_title is not None:
        fields["document_title"] = document_title or None
    if media_ids is not None:
        fields["media_urls"] = [media_ref(value) for value in media_ids]
    if alt_texts is not None:
        fields["media_alt"] = alt_texts
    return fields


async def if_match(api, post_id, version):
    """The If-Match of a change: the version the model read, or the post's
    current ETag."""
    if version is not None:
        return f'"{version}"'
    return (await api.send("GET", ITEM + segment(post_id))).etag


async def list_posts(
    ctx: Context,
    status: Annotated[
        str | None,
        Field(
            description="Only posts of this status: Draft, In review, Approved, Scheduled, "
            "Publishing, Published or Failed."
        ),
    ] = None,
    channel: Annotated[str | None, Field(description=CHANNEL + " Absent: every channel.")] = None,
    q: Annotated[
        str | None, Field(description="Words that must all be in the post's text.")
    ] = None,
    start: Annotated[
        str | None,
        Field(description="Only posts scheduled at or after this time (RFC 3339)."),
    ] = None,
    end: Annotated[
        str | None, Field(description="Only posts scheduled before this time (RFC 3339).")
    ] = None,
    limit: Annotated[int, Field(description="How many posts to give (1-100).")] = 20,
    offset: Annotated[int, Field(description="How many to skip, to page on.")] = 0,
) -> Posts:
    """List the workspace's posts, newest first; with `start` or `end`, by
    scheduled time, soonest first. Use it to find a post's id, to see what is
    planned, or to check what is waiting (status Draft, In review, Failed)."""
    api = caller(ctx)
    page = await api.get(
        POSTS,
        status=status,
        **channels.posts_filter(channel),
        q=q,
        scheduled_after=start,
        scheduled_before=end,
        order="scheduled_at" if start or end else None,
        limit=limit,
        offset=offset,
    )
    return Posts(
        posts=[shown(post) for post in page["data"]],
        total=page["total"],
        more=page.get("next") is not None,
    )


async def get_post(ctx: Context, id: PostId) -> Post:
    """Read one post: its text, status, schedule, media, who wrote and who
    approved it, and its `version` (the one update_post and schedule_post
    take to refuse a change over someone else's)."""
    return shown(await caller(ctx).get(ITEM + segment(id)))


async def create_draft(
    ctx: Context,
    channel: Annotated[str, Field(description=CHANNEL)],
    content: Content,
    first_comment: FirstComment = None,
    media_ids: MediaIds = None,
    alt_texts: AltTexts = None,
    document_title: DocumentTitle = None,
) -> Post:
    """Create a post as a Draft on a channel; nothing is published or
    scheduled. Preview it with preview_post, then submit_for_review (where
    the workspace requires approvals) or schedule_post / add_to_queue."""
    api = caller(ctx)
    body = {**await channels.post_fields(api, channel), "content": content}
    body.update(attachments(first_comment, media_ids, alt_texts, document_title))
    return shown((await api.send("POST", POSTS, body)).data)


async def update_post(
    ctx: Context,
    id: PostId,
    version: Version = None,
    content: Annotated[str | None, Field(description="The new text (see create_draft).")] = None,
    channel: Annotated[str | None, Field(description="Move it to this channel.")] = None,
    first_comment: FirstComment = None,
    media_ids: MediaIds = None,
    alt_texts: AltTexts = None,
    document_title: DocumentTitle = None,
) -> Post:
    """Change a post's text, channel, first comment, media or alt texts;
    what is left out stays. A change of what was reviewed takes an In review
    or Approved post (or a Scheduled one that needed approval) back to
    Draft. A Publishing or Published post cannot change."""
    api = caller(ctx)
    body = {} if content is None else {"content": content}
    if channel is not None:
        body.update(await channels.post_fields(api, channel))
    body.update(attachments(first_comment, media_ids, alt_texts, document_title))
    match = await if_match(api, id, version)
    return shown((await api.send("PATCH", ITEM + segment(id), body, if_match=match)).data)


async def preview_post(
    ctx: Context,
    id: Annotated[
        str | None, Field(description="A stored post's id; or give `content` instead.")
    ] = None,
    content: Annotated[str | None, Field(description="A text to preview, not stored.")] = None,
    channel: Annotated[
        str | None, Field(description=CHANNEL + " With `content`; default personal.")
    ] = None,
    first_comment: FirstComment = None,
    media_ids: MediaIds = None,
    alt_texts: AltTexts = None,
    document_title: DocumentTitle = None,
) -> Preview:
    """Preview how LinkedIn takes a post (a stored one by `id`, or a text by
    `content`), storing nothing: the length as LinkedIn counts it, the text
    as it goes out, and warnings (over_length: too long to schedule;
    plain_mention: an @Name that tags no one; link_preview_hidden;
    alt_text_missing; ...), each naming the field it is about."""
    api = caller(ctx)
    if id is not None:  # the API takes a post_id alone, and says so of anything beside it
        body = {"post_id": id, "content": content}
        body.update(await channels.post_fields(api, channel) if channel is not None else {})
    else:
        body = {**await channels.post_fields(api, channel or channels.PERSONAL), "content": content}
    body.update(attachments(first_comment, media_ids, alt_texts, document_title))
    body = {name: value for name, value in body.items() if value is not None}
    answer = (await api.send("POST", "/api-v2-posts-preview", body)).data
    request = answer.get("linkedin_request") or {}
    return Preview(
        characters=answer["characters"],
        warnings=answer["warnings"],
        commentary=(request.get("body") or {}).get("commentary"),
        links=answer.get("links", []),
    )


async def schedule_post(
    ctx: Context,
    id: PostId,
    at: Annotated[
        str,
        Field(
            description="When to publish: RFC 3339 with an offset, such as "
            "2030-01-07T09:00:00+01:00; at least a minute ahead."
        ),
    ],
    version: Version = None,
) -> Post:
    """Schedule a post (or move a Scheduled one) to a time of your choosing,
    within the channel's guards (min gap, daily cap). Needs a key that may
    publish, and, where the workspace requires approvals, an approved post.
    To take the channel's next free slot instead, use add_to_queue."""
    api = caller(ctx)
    match = await if_match(api, id, version)
    body = {"status": "Scheduled", "scheduled_at": at}
    return shown((await api.send("PATCH", ITEM + segment(id), body, if_match=match)).data)


async def add_to_queue(ctx: Context, id: PostId) -> Post:
    """Schedule a Draft (or Failed, or Approved) post at its channel's first
    free posting slot, keeping the channel's guards. Needs a key that may
    publish, and, where the workspace requires approvals, an approved post."""
    return shown((await caller(ctx).send("POST", "/api-v2-posts-queue", {"post_id": id})).data)


async def submit_for_review(ctx: Context, id: PostId) -> Post:
    """Submit a Draft for review, in a workspace that requires approvals: it
    becomes In review, and an editor or above approves it (or asks for
    changes, with a comment) in the dashboard or the API."""
    path = "/api-v2-posts-review/" + segment(id)
    return shown((await caller(ctx).send("POST", path, {"action": "submit"})).data["post"])


async def comment(
    ctx: Context,
    id: PostId,
    text: Annotated[
        str,
        Field(description="The comment (1-5,000 characters); @Name mentions a member."),
    ],
) -> Comment:
    """Comment on a post in the workspace's review thread (not on LinkedIn):
    a note for the people who review it. @Name tells that member."""
    path = "/api-v2-posts-comments/" + segment(id)
    return (await caller(ctx).send("POST", path, {"body": text})).data


TOOLS = [
    list_posts,
    get_post,
    create_draft,
    update_post,
    preview_post,
    schedule_post,
    add_to_queue,
    submit_for_review,
    comment,
]
