"""What a post carries besides its text: its media (items of the media
library kept by reference, anything else by URL), their alt text, a
document's title and a first comment; and what one post may carry.

A post carries one document, or 1 to 20 images (LinkedIn's `media` for
one, `multiImage` for several), never both. That is checked on every
create, update and import (a 400 naming media_urls), Drafts included: the
composer should say so at once, not when the post is scheduled. What only
publishing needs is checked when a post becomes (or stays) Scheduled, as
the length of its text is (linkedin/text.py): a document's title, the first
comment's length once escaped, and that the library media it names are
still there.

Which kind a medium is: a library item's by its type (application/pdf is a
document); a URL's by its extension (.pdf, and LinkedIn's other document
types .ppt .pptx .doc .docx are documents; anything else is taken for an
image, since the service cannot see more without fetching it).
"""

from collections import namedtuple

from content_publishing import linkedin
from content_publishing.errors import validation_error
from content_publishing.schemas import media_refs
from content_publishing.schemas.posts import MAX_MEDIA
from content_publishing.store import media as media_store

DOCUMENT_EXTENSIONS = frozenset({"pdf", "ppt", "pptx", "doc", "docx"})
DOCUMENT_TYPES = frozenset({"application/pdf"})

Medium = namedtuple("Medium", "entry kind media_id")  # media_id: a library item's, else None


def kind_of(entry):
    """`image` or `document`, for a kept entry (a reference or a URL)."""
    found = media_refs.STORED.fullmatch(entry)
    ext = found["ext"] if found else media_refs.extension(entry)
    return "document" if ext in DOCUMENT_EXTENSIONS else "image"


def media_of(entries):
    """[Medium] of a post's kept media_urls."""
    return [Medium(e, kind_of(e), media_refs.stored_id(e)) for e in entries]


def resolve(workspace_id, entries):
    """`entries` as a post keeps them: each one naming an item of the
    workspace's library (`media:<id>`, or a URL ending in /media/<id>.<ext>) as
    a reference to it, any other URL as written. `media:<id>` of no item of
    the workspace's is a 400. The items named are locked against a delete until
    the transaction ends."""
    named = [media_refs.library_id(entry) for entry in entries]
    found = media_store.of_workspace(workspace_id, sorted({i for i, _ in named if i}), share=True)
    kept, missing = [], []
    for n, (entry, (media_id, must)) in enumerate(zip(entries, named, strict=True)):
        if media_id in found:
            kept.append(media_refs.stored(media_id, found[media_id]["ext"]))
        elif must:
            missing.append(f"{entry} (media_urls[{n}]) is not in your media library.")
        else:
            kept.append(entry)
    if missing:
        raise validation_error({"media_urls": missing})
    return kept


def check_carry(media):
    """400 naming media_urls unless the post carries one document, or at
    most 20 images, and not both."""
    documents = sum(1 for m in media if m.kind == "document")
    images = len(media) - documents
    if documents > 1:
        raise validation_error(
            {"media_urls": [f"A post carries one document at most; this one names {documents}."]}
        )
    if documents and images:
        raise validation_error(
            {
                "media_urls": [
                    "A post carries one document or images, never both: this one names a "
                    f"document and {images} image{'s' if images > 1 else ''}."
                ]
            }
        )
    if images > MAX_MEDIA:
        raise validation_error(
            {"media_urls": [f"A post carries at most {MAX_MEDIA} images; this one names {images}."]}
        )


def check_alt(media, alt):
    """400 naming media_alt unless it has one entry per medium, and none
    (null) for a document, which LinkedIn titles instead."""
    if len(alt) != len(media):
        raise validation_error(
            {
                "media_alt": [
                    f"Give one entry per medium of media_urls ({len(media)}), null for the "
                    f"item's own alt text; this list has {len(alt)}."
                ]
            }
        )
    for n, (medium, text) in enumerate(zip(media, alt, strict=True)):
        if medium.kind == "document" and text is not None:
            raise validation_error(
                {
                    "media_alt": [
                        f"media_alt[{n}] is a document's: a document takes no alt text, but "
                        "a document_title (null here)."
                    ]
                }
            )


def realigned(before, alt, after):
    """The alt text entries of `after` (kept media_urls) carried over from
    `before`, whose entries were `alt`: a medium that stays keeps its own,
    a new one has none (null)."""
    kept = {}
    for entry, text in zip(before, alt, strict=False):
        kept.setdefault(entry, text)
    return [kept.get(entry) for entry in after]


def resolved(workspace_id, post, changes):
    """`changes` to `post` (a stored post, or {} for a new one) as they are
    written: media_urls kept by reference, and media_alt with an entry for
    each medium (null given: every item's own; not given while media_urls
    changes: carried over, `realigned`). `check` them on the merged post."""
    changes = dict(changes)
    before = post.get("media_urls", [])
    entries = before
    if "media_urls" in changes:
        entries = changes["media_urls"] = resolve(workspace_id, changes["media_urls"])
    if "media_alt" in changes and changes["media_alt"] is None:
        changes["media_alt"] = [None] * len(entries)
    elif "media_alt" not in changes and "media_urls" in changes:
        changes["media_alt"] = realigned(before, post.get("media_alt", []), entries)
    return changes


def check(post):
    """400 naming the field when `post` (its merged fields) carries what one
    post may not (check_carry, check_alt)."""
    media = media_of(post["media_urls"])
    check_carry(media)
    check_alt(media, post["media_alt"])


def check_schedulable(workspace_id, post):
    """400 naming the field when `post` (its merged fields) cannot be
    Scheduled: a text or first comment over LinkedIn's limit once escaped,
    a document without its title, or a library medium no longer in the
    library (deleted while the post was a Draft). For every way a post
    becomes or stays Scheduled. The library media it names are locked
    against a delete until the transaction ends."""
    linkedin.check_length(post["content"])
    comment = post.get("first_comment")
    if comment and not linkedin.comment_fits(comment):
        raise validation_error({"first_comment": [linkedin.comment_too_long(comment)]})
    media = media_of(post.get("media_urls", []))
    if any(m.kind == "document" for m in media) and not post.get("document_title"):
        raise validation_error(
            {"document_title": ["Required to schedule a document post (1-400 characters)."]}
        )
    ids = sorted({m.media_id for m in media if m.media_id})
    gone = set(ids) - set(media_store.of_workspace(workspace_id, ids, share=True))
    if gone:
        raise validation_error(
            {
                "media_urls": [
                    f"media:{media_id} is no longer in your media library; remove it from the "
                    "post to schedule it."
                    for media_id in sorted(gone)
                ]
            }
        )
