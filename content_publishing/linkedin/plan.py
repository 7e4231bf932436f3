"""The publish plan's builder: `linkedin_request`, everything an automation
(or the service's own publisher) sends to LinkedIn to publish one post, in order (docs/linkedin.md gives the contract
and a worked example of each kind of post).

    uploads  each medium: POST `initialize` (LinkedIn's initializeUpload),
             PUT the bytes fetched from `source` to the answer's
             value.uploadUrl, then put the answer's value.image or
             value.document URN wherever `{{<ref>}}` stands
    method, url, headers, body
             the post (POST /rest/posts); `{{post_urn}}` is then the
             x-restli-id it is answered with
    after    the steps after the post, in order: the first comment

In a step's `url` a placeholder is replaced by the URN percent-encoded
(LinkedIn takes a URN in a path only so); in headers and bodies as it is.
A text-only post has no upload, no step after and no `content`, exactly as
before the plan; `media` lists the sources of the uploads, so that an
automation written before the plan sees that the post has media it cannot
send (and fails it) instead of posting the text alone.

A library medium is handed over from the service's own address (the
FLASK_PUBLIC_URL in force), with its type, size and SHA-256, so that the
automation can check what it fetched; a WebP, which LinkedIn refuses, as its
PNG rendition (`/media/<id>.png`, made once and kept). A medium named by URL
is handed over as written; the service has not seen its bytes.
"""

from collections import namedtuple

from content_publishing.linkedin.text import escape
from content_publishing.schemas import media_refs

# Where and how a plan sends: LinkedIn-Version, the API's base (a stand-in's
# in tests), and the service's public address (FLASK_PUBLIC_URL) media come from.
Target = namedtuple("Target", "version api_base public_url")
INITIALIZE = {"image": "/rest/images", "document": "/rest/documents"}
TYPES_BY_EXTENSION = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
    "pdf": "application/pdf",
}
HANDED_OVER_AS = {"webp": ("png", "image/png")}  # LinkedIn takes JPEG, PNG and GIF only


def headers(target):
    return {
        "LinkedIn-Version": target.version,
        "X-Restli-Protocol-Version": "2.0.0",
        "Content-Type": "application/json",
    }


def build(post, media, author_urn, library, target):
    """The plan for `post` (its kept fields, its text and first comment as
    they are sent), whose author is `author_urn` (None: the automation fills
    it in); `media`: the post's media ([Medium] of posts/attachments.py:
    entry, kind, media_id); `library`: {id: for_plan record} of the library
    media it names."""
    base = target.api_base.rstrip("/")
    sent = _sent(media)
    uploads = [
        _upload(f"upload_{n}", media[i], library, author_urn, target) for n, i in enumerate(sent)
    ]
    body = {
        "author": author_urn,
        "commentary": escape(post["content"]),
        "visibility": "PUBLIC",
        "distribution": {
            "feedDistribution": "MAIN_FEED",
            "targetEntities": [],
            "thirdPartyDistributionChannels": [],
        },
        "lifecycleState": "PUBLISHED",
        "isReshareDisabledByAuthor": False,
    }
    if sent:
        body["content"] = _content(post, media, sent, library)
    return {
        "method": "POST",
        "url": f"{base}/rest/posts",
        "headers": headers(target),
        "uploads": uploads,
        "body": body,
        "after": _after(post, author_urn, base, target),
        "media": [upload["source"] for upload in uploads],
    }


def _sent(media):
    """The indexes of the media the post sends: its document, or else its
    images. (A stored post never has both, or more than one document; a
    preview of fields may, and warns.)"""
    documents = [i for i, m in enumerate(media) if m.kind == "document"]
    return documents[:1] if documents else list(range(len(media)))


def _upload(ref, medium, library, owner, target):
    item = library.get(medium.media_id) if medium.media_id else None
    if medium.media_id:
        ext = media_refs.STORED.fullmatch(medium.entry)["ext"]
        ext, content_type = HANDED_OVER_AS.get(ext, (ext, TYPES_BY_EXTENSION.get(ext)))
        source = f"{target.public_url.rstrip('/')}/media/{medium.media_id}.{ext}"
        size, digest = _size_and_digest(item)
    else:
        source, size, digest = medium.entry, None, None
        content_type = TYPES_BY_EXTENSION.get(media_refs.extension(medium.entry))
    return {
        "ref": ref,
        "kind": medium.kind,
        "source": source,
        "content_type": content_type,
        "bytes": size,
        "sha256": digest,
        "initialize": {
            "method": "POST",
            "url": f"{target.api_base.rstrip('/')}{INITIALIZE[medium.kind]}"
            "?action=initializeUpload",
            "headers": headers(target),
            "body": {"initializeUploadRequest": {"owner": owner}},
        },
    }


def _size_and_digest(item):
    """(bytes, sha256) of what is handed over: the item's file, or its PNG
    rendition; (None, None) for an item no longer in the library, or a WebP
    stored before renditions whose PNG is not made yet (it is made on its
    first fetch)."""
    if item is None:
        return None, None
    if item["ext"] in HANDED_OVER_AS:
        return item["rendition_bytes"], item["rendition_sha256"]
    return item["bytes"], item["sha256"]


def alt_text(post, n, medium, library):
    """The alt text LinkedIn gets for the post's medium `n`: the post's own
    (media_alt), else the library item's; None for none."""
    own = post["media_alt"][n] if n < len(post["media_alt"]) else None
    if own is None and medium.media_id in library:
        own = library[medium.media_id]["alt_text"]
    return own or None


def _content(post, media, sent, library):
    """LinkedIn's `content`: `media` for a document (with its title) or one
    image, `multiImage` for several images; each id a placeholder."""
    if media[sent[0]].kind == "document":
        document = {"id": "{{upload_0}}"}
        if post.get("document_title"):
            document["title"] = post["document_title"]
        return {"media": document}
    images = []
    for n, i in enumerate(sent):
        image = {"id": f"{{{{upload_{n}}}}}"}
        alt = alt_text(post, i, media[i], library)
        if alt:
            image["altText"] = alt
        images.append(image)
    if len(images) == 1:
        return {"media": images[0]}
    return {"multiImage": {"images": images}}


def _after(post, author_urn, base, target):
    """The steps after the post: its first comment, if it has one."""
    if not post.get("first_comment"):
        return []
    return [
        {
            "ref": "first_comment",
            "method": "POST",
            "url": f"{base}/rest/socialActions/{{{{post_urn}}}}/comments",
            "headers": headers(target),
            "body": {
                "actor": author_urn,
                "object": "{{post_urn}}",
                "message": {"text": escape(post["first_comment"])},
            },
        }
    ]
