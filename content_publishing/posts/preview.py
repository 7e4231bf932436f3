"""The preview of a post's publish plan: a dry run that stores nothing, with
warnings of what would make the post come out other than meant
(docs/linkedin.md, "Preview"). Each warning is {code, message, field}, and
`text` when it is about a part of the text (plain_mention).
"""

import re
import unicodedata

from content_publishing import linkedin
from content_publishing.linkedin.plan import alt_text
from content_publishing.planning.plan import channel_of
from content_publishing.posts import attachments
from content_publishing.posts.publish_plan import library_of, requests_for, sent_text
from content_publishing.schemas.media_refs import extension
from content_publishing.schemas.posts import MAX_MEDIA
from content_publishing.store import channels as channel_store

# What an external URL's extension shows LinkedIn would refuse: the plan
# hands over JPEG, PNG and GIF images and PDF (or Office) documents.
REFUSED_EXTENSIONS = frozenset(
    {
        "webp",
        "svg",
        "svgz",
        "bmp",
        "tif",
        "tiff",
        "heic",
        "heif",
        "avif",
        "jxl",
        "ico",
        "psd",
        "eps",
        "raw",
        "mp4",
        "mov",
        "m4v",
        "avi",
        "webm",
        "mkv",
        "mp3",
        "wav",
        "zip",
        "txt",
        "rtf",
        "odt",
        "odp",
        "key",
        "pages",
        "epub",
    }
)
# "@" then a capitalised word (and the capitalised words after it): a name
# typed as plain text, which tags no one. Read where a mention may start
# (linkedin/text.py), never inside a word or an address (jane@Example.com).
_PLAIN_MENTION = re.compile(r"@(?P<name>[^\W\d_][\w'’-]*(?:[ \u00a0][^\W\d_][\w'’-]*){0,3})")


def preview(workspace_id, post, target):
    """What the automation would be handed for `post` (a stored post, or
    the kept fields of one), with the warnings."""
    post = {
        "brand_id": None,
        "media_urls": [],
        "media_alt": [],
        "document_title": None,
        "first_comment": None,
        **post,
        "id": post.get("id", "preview"),
    }
    request = requests_for(workspace_id, [post], target)[post["id"]]
    channel = channel_store.handover_settings(workspace_id, {channel_of(post)}).get(
        channel_of(post)
    )
    links, dropped = sent_links(post, channel["utm"] if channel else None)
    return {
        "linkedin_request": request,
        "links": links,
        "characters": linkedin.length(post["content"]),
        "warnings": warnings(post, request, library_of([post])) + dropped,
    }


def sent_links(post, utm):
    """([{field, url, sent}] of the post's links, each as it goes out with
    the channel's UTM tags; [utm_dropped warnings] of the fields whose tags
    would take them over LinkedIn's limit, so that they go out untagged)."""
    links, dropped = [], []
    for field in ("content", "first_comment"):
        text = post.get(field) or ""
        sent = sent_text(post, field, utm) or ""
        written = linkedin.urls(text)
        links += [
            {"field": field, "url": url, "sent": out}
            for url, out in zip(written, linkedin.urls(sent), strict=True)
        ]
        if written and utm and sent == text and linkedin.with_utm(text, utm, "c", "p") != text:
            dropped.append(
                _warning(
                    "utm_dropped",
                    "With the channel's UTM tags on its links the text would be over "
                    "LinkedIn's limit, so it goes out with its links as written. Shorten it to "
                    "keep the tags.",
                    field,
                )
            )
    return links, dropped


def warnings(post, request, library):
    """[{code, message, field[, text]}] for `post` and its plan; field is
    None for one about the post's channel."""
    found = []
    if request["body"]["author"] is None:
        found.append(
            _warning(
                "author_unknown",
                "The post's channel has no author_urn, so the automation must fill in the "
                "author itself (set it with PATCH /functions/v1/channels-item/{id}).",
                None,
            )
        )
    escaped = linkedin.length(request["body"]["commentary"])
    if escaped > linkedin.COMMENTARY_LIMIT:
        found.append(
            _warning(
                "over_length",
                f"The escaped text is {escaped} characters (UTF-16 code units); LinkedIn takes "
                f"at most {linkedin.COMMENTARY_LIMIT}, so the post cannot be scheduled.",
                "content",
            )
        )
    if post["media_urls"] and linkedin.urls(post["content"]):
        found.append(
            _warning(
                "link_preview_hidden",
                "The post has media and a link: LinkedIn then shows the media, not the link's "
                "preview card (a first comment is where such a link keeps the post's reach).",
                "content",
            )
        )
    found += _media_warnings(post, library)
    found += _comment_warnings(post)
    for field in ("content", "first_comment"):
        found += plain_mentions(post.get(field) or "", field)
    return found


def _media_warnings(post, library):
    media = attachments.media_of(post["media_urls"])
    documents = [m for m in media if m.kind == "document"]
    images = len(media) - len(documents)
    found = []
    for n, medium in enumerate(media):
        ext = None if medium.media_id else extension(medium.entry)
        if ext in REFUSED_EXTENSIONS:
            found.append(
                _warning(
                    "media_unsupported",
                    f"media_urls[{n}] is a .{ext} file, and LinkedIn takes JPEG, PNG and GIF "
                    "images and PDF documents: the upload would be refused. Upload it to the "
                    "media library (a WebP there is handed over as PNG) or convert it.",
                    "media_urls",
                )
            )
        if medium.media_id and medium.media_id not in library:
            found.append(
                _warning(
                    "media_missing",
                    f"media_urls[{n}] is no longer in your media library: remove it, or the "
                    "post cannot be scheduled.",
                    "media_urls",
                )
            )
        elif medium.kind == "image" and not alt_text(post, n, medium, library):
            found.append(
                _warning(
                    "alt_text_missing",
                    f"media_urls[{n}] has no alt text: people who cannot see it will not know "
                    "what it shows (set media_alt, or the library item's alt_text).",
                    "media_alt",
                )
            )
    if images > MAX_MEDIA:
        found.append(
            _warning(
                "too_many_images",
                f"The post has {images} images; LinkedIn takes at most {MAX_MEDIA} in one post.",
                "media_urls",
            )
        )
    if len(documents) > 1 or (documents and images):
        found.append(
            _warning(
                "media_mixed",
                "A post carries one document, or images, never both nor two documents: only "
                "the first document would be sent, and the post cannot be saved so.",
                "media_urls",
            )
        )
    if documents and not post.get("document_title"):
        found.append(
            _warning(
                "document_title_missing",
                "A document post needs a document_title (1-400 characters): LinkedIn shows it "
                "on the document, and the post cannot be scheduled without it.",
                "document_title",
            )
        )
    return found


def _comment_warnings(post):
    comment = post.get("first_comment")
    if not comment or linkedin.comment_fits(comment):
        return []
    return [
        _warning(
            "first_comment_over_length",
            f"The escaped first comment is {linkedin.length(linkedin.escape(comment))} "
            f"characters (UTF-16 code units); LinkedIn takes at most {linkedin.COMMENT_LIMIT}, "
            "so the post cannot be scheduled.",
            "first_comment",
        )
    ]


def plain_mentions(text, field):
    """A `plain_mention` warning for each distinct "@Name" in `text` that is
    no mention: it tags no one."""
    found, seen = [], set()
    for match in _PLAIN_MENTION.finditer(text):
        if not match["name"][0].isupper() or not _may_start(text, match.start()):
            continue
        taken = []
        for word in match["name"].split():  # the capitalised words that follow, as one name
            if not word[0].isupper():
                break
            taken.append(word)
        name = " ".join(taken)
        shown = "@" + name
        if shown in seen:
            continue
        seen.add(shown)
        found.append(
            {
                **_warning(
                    "plain_mention",
                    f'"{shown}" in {field} tags no one: LinkedIn tags only a mention written '
                    f"@[{name}](urn:li:person:...) (or urn:li:organization:...). Write it so, or "
                    "leave out the @.",
                    field,
                ),
                "text": shown,
            }
        )
    return found


def _may_start(text, at):
    """A mention may start here (as linkedin/text.py reads one): the start, after
    white space, or after an opening bracket or quote."""
    if at == 0:
        return True
    before = text[at - 1]
    return before.isspace() or before in "\"'" or unicodedata.category(before) in ("Ps", "Pi")


def _warning(code, message, field):
    return {"code": code, "message": message, "field": field}
