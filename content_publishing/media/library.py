"""The media library: images and PDF documents uploaded once, kept in the
database, named by posts by their id (posts/attachments.py).

An upload is checked by decoding it (images.py, in a child process with
memory and time limits): it must be an image of the type it declares (JPEG,
PNG, GIF or WebP), whole, and within the caps on frames and pixels, which are
checked from its header before anything is decoded. What is kept is the
image written anew from its pixels: EXIF (with its GPS position), XMP and
comments are left behind, since a phone photo carries where it was taken and
a careless upload would publish it. A JPEG's EXIF orientation is applied
first, so that the picture stays upright without it; a multi-picture JPEG
(MPO) keeps its first picture. The colour profile is kept: it is no one's
secret and the colours depend on it.

The same bytes uploaded again by the same workspace are the same media (a
unique index on the upload's SHA-256 holds it), answered with 200 instead
of 201. The stored image is served without a key at an unguessable address
(128 random bits): a capability URL, as the automation that publishes a post
must fetch its media without the workspace's key.

A PDF is checked by reading it whole (documents.py, in a child process
too): not encrypted, not damaged, without JavaScript or Launch actions (an
XFA form's scripts and embedded files' included), 1 to 300 pages. What is kept is the PDF written anew without its document
information and XMP metadata.

A WebP, which LinkedIn does not take, gets a PNG rendition when it is
uploaded, kept beside it and served at /media/<id>.png: the publish plan
hands that to LinkedIn. A WebP stored before renditions gets its PNG the
first time it is fetched there (`rendition`).

Each item has alt text (`set_alt_text`, at most LinkedIn's 4,086
characters), which a post's images take unless the post gives its own. It
is changed by whoever uploaded the item, or an editor or higher (roles.py);
a change of it is a change of every post under review or approved that
takes it, which withdraws their approval (posts/approvals.py), as an edit
of the post's own alt text would.

An upload is three steps, so that no transaction is open while an image is
decoded (on SQLite that would hold the one write lock for seconds): the
earlier upload of the same bytes is looked for (earlier), the file is
decoded and written anew (clean, outside any transaction), and what came of
it is stored (store, in the caller's transaction).
"""

import hashlib
import secrets

from content_publishing.errors import ApiError, bad_request, conflict
from content_publishing.media import bounded
from content_publishing.posts import approvals
from content_publishing.posts.writes import write
from content_publishing.roles import check_maker
from content_publishing.schemas import media_refs
from content_publishing.store import media as media_store
from content_publishing.store import posts as post_store
from content_publishing.store.db import is_unique_violation, savepoint

# Content-Type -> (Pillow's format, or PDF; the URL's extension)
TYPES = {
    "image/jpeg": ("JPEG", "jpg"),
    "image/png": ("PNG", "png"),
    "image/gif": ("GIF", "gif"),
    "image/webp": ("WEBP", "webp"),
    "application/pdf": ("PDF", "pdf"),
}
RENDITIONS = {"webp": "png"}  # what LinkedIn is handed for an item of this extension


def check_type(content_type):
    """A 415 unless the Content-Type is one of TYPES."""
    if content_type not in TYPES:
        raise ApiError(
            415,
            f"Send the image or the PDF itself with Content-Type {', '.join(TYPES)}.",
            "unsupported_media_type",
        )


def earlier(workspace_id, data, content_type):
    """The workspace's media made before from these same bytes, sent as this
    type, or None."""
    found = media_store.find_upload(workspace_id, hashlib.sha256(data).hexdigest())
    return found if found is not None and found["content_type"] == content_type else None


def clean(data, content_type):
    """The fields of the media these bytes make: the file written anew
    without its metadata, its size (a PDF's first page, in points) and
    digests, and a WebP's PNG rendition; or a 400 saying why it is not an
    acceptable file of `content_type`. Runs outside any transaction."""
    kind, ext = TYPES[content_type]
    pages, rendition = None, None
    try:
        if kind == "PDF":
            written, pages, width, height = _documents().clean(data)
        else:
            written, width, height = _images().rewrite(data, kind)
            if ext in RENDITIONS:
                rendition = _rendition_of(written)
    except bounded.Refused as e:
        raise bad_request(str(e)) from None
    return {
        "content_type": content_type,
        "ext": ext,
        "bytes": len(written),
        "width": width,
        "height": height,
        "pages": pages,
        "sha256": hashlib.sha256(written).hexdigest(),
        "upload_sha256": hashlib.sha256(data).hexdigest(),
        "data": written,
        "rendition": rendition,
    }


def _rendition_of(data):
    """The PNG rendition's fields, for a WebP as the library keeps it."""
    png, _, _ = _images().png_of(data)
    return {
        "content_type": "image/png",
        "ext": "png",
        "bytes": len(png),
        "sha256": hashlib.sha256(png).hexdigest(),
        "data": png,
    }


def rendition(data):
    """The fields of the PNG rendition of a WebP stored before renditions
    were made at upload (`data`: its file); None if it cannot be made.
    Outside any transaction, like `clean`."""
    try:
        return _rendition_of(data)
    except bounded.Refused:
        return None


# Pillow (with every plugin, images.py) and pypdf are imported at a
# process's first upload, not with the app: together they were about 85 ms
# of the 0.3 s that every gunicorn master, dispatcher and CLI call spends
# importing the service, and most of those never check an upload. The
# import happens in the worker, before it forks the upload's child, so the
# child and every later upload of that worker find them loaded.
def _images():
    from content_publishing.media import images

    return images


def _documents():
    from content_publishing.media import documents

    return documents


def keep_rendition(media_id, fields, now):
    """Store a rendition made by `rendition` (one made meanwhile wins)."""
    media_store.insert_rendition(media_id, fields, now)


def store(workspace_id, fields, now, uploader=None):
    """(media, created): the new media (`uploader`: the member who sent it),
    or the workspace's media of the same upload stored meanwhile (inside the
    caller's transaction)."""
    found = media_store.find_upload(workspace_id, fields["upload_sha256"])
    if found is not None and found["content_type"] == fields["content_type"]:
        return found, False
    try:
        with savepoint():
            media = media_store.insert_media(
                workspace_id, secrets.token_hex(16), fields, now, uploader
            )
            if fields.get("rendition"):
                media_store.insert_rendition(media["id"], fields["rendition"], now)
            return media, True
    except Exception as error:  # the same bytes, uploaded at the same moment, won
        if not is_unique_violation(error):
            raise
        return media_store.find_upload(workspace_id, fields["upload_sha256"]), False


def lock_posts_taking(workspace_id, media_id):
    """The posts under review or approved that name the item, locked in id
    order; taken before the item's own lock, in the order a post's write
    takes them (the post, then its media)."""
    found = (
        post_store.lock_post(workspace_id, post_id)
        for post_id in media_store.reviewed_posts_naming(workspace_id, media_id)
    )
    return [post for post in found if post is not None]


def set_alt_text(workspace_id, media, alt_text, grant, posts, lead_seconds, now, actor=None):
    """The item's alt text (None: none); its version grows when it changes.
    `media` was read with lock_media, after `posts` (lock_posts_taking):
    each of them that takes the item's own alt text loses its approval."""
    check_maker(grant, media.get("created_by"), "change the alt text of this media")
    if media["alt_text"] == alt_text:
        return media
    changed = media_store.set_alt_text(workspace_id, media["id"], alt_text)
    for post in posts:
        if _takes_alt_text(post, media["id"]):
            columns = approvals.unapproved(workspace_id, post, {"media_alt": post["media_alt"]})
            detail = f"the alt text of media:{media['id']} changed in the media library"
            write(workspace_id, post, columns, lead_seconds, now, actor, detail=detail)
    return changed


def _takes_alt_text(post, media_id):
    """Whether the post hands one of its images the item's own alt text."""
    return any(
        media_refs.stored_id(entry) == media_id and alt is None
        for entry, alt in zip(post["media_urls"], post["media_alt"], strict=True)
    )


def delete(workspace_id, media):
    """Gone for good, with its rendition, unless a Scheduled or Publishing
    post of the workspace keeps its id: deleting it would leave the automation a
    link to nothing (409). `media` was read with lock_media, so that a post
    that names it meanwhile waits, then finds it gone."""
    using = media_store.planned_posts_naming(workspace_id, media["id"])
    if using:
        raise conflict(
            "A Scheduled or Publishing post links this media; change or delete the post first.",
            {"post_ids": using},
        )
    media_store.delete_media(workspace_id, media["id"])
