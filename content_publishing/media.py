"""The media library: images uploaded once, kept in the database, linked
from posts by URL.

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

The same bytes uploaded again by the same user are the same media (a
unique index on the upload's SHA-256 holds it), answered with 200 instead
of 201. The stored image is served without a key at an unguessable address
(128 random bits): a capability URL, as the automation that publishes a post
must fetch its media without the user's key.

An upload is three steps, so that no transaction is open while an image is
decoded (on SQLite that would hold the one write lock for seconds): the
earlier upload of the same bytes is looked for (earlier), the image is
decoded and written anew (clean, outside any transaction), and what came of
it is stored (store, in the caller's transaction).
"""

import hashlib
import secrets

from content_publishing import images
from content_publishing.errors import ApiError, bad_request, conflict
from content_publishing.store import media as media_store
from content_publishing.store.db import is_unique_violation, savepoint

# Content-Type -> (Pillow's format, the URL's extension)
TYPES = {
    "image/jpeg": ("JPEG", "jpg"),
    "image/png": ("PNG", "png"),
    "image/gif": ("GIF", "gif"),
    "image/webp": ("WEBP", "webp"),
}


def check_type(content_type):
    """A 415 unless the Content-Type is one of TYPES."""
    if content_type not in TYPES:
        raise ApiError(
            415,
            f"Send the image itself with Content-Type {', '.join(TYPES)}.",
            "unsupported_media_type",
        )


def earlier(user_id, data, content_type):
    """The user's media made before from these same bytes, sent as this
    type, or None."""
    found = media_store.find_upload(user_id, hashlib.sha256(data).hexdigest())
    return found if found is not None and found["content_type"] == content_type else None


def clean(data, content_type):
    """The fields of the media these bytes make: the image written anew
    without its metadata, its size and digests; or a 400 saying why it is
    not an acceptable image of `content_type`. Runs outside any transaction."""
    pillow_format, ext = TYPES[content_type]
    try:
        image, width, height = images.rewrite(data, pillow_format)
    except images.Refused as e:
        raise bad_request(str(e)) from None
    return {
        "content_type": content_type,
        "ext": ext,
        "bytes": len(image),
        "width": width,
        "height": height,
        "sha256": hashlib.sha256(image).hexdigest(),
        "upload_sha256": hashlib.sha256(data).hexdigest(),
        "data": image,
    }


def store(user_id, fields, now):
    """(media, created): the new media, or the user's media of the same
    upload stored meanwhile (inside the caller's transaction)."""
    found = media_store.find_upload(user_id, fields["upload_sha256"])
    if found is not None and found["content_type"] == fields["content_type"]:
        return found, False
    try:
        with savepoint():
            return media_store.insert_media(user_id, secrets.token_hex(16), fields, now), True
    except Exception as error:  # the same bytes, uploaded at the same moment, won
        if not is_unique_violation(error):
            raise
        return media_store.find_upload(user_id, fields["upload_sha256"]), False


def delete(user_id, media):
    """Gone for good, unless a Scheduled or Publishing post of the user links
    it: deleting it would leave the automation a link to nothing (409)."""
    using = media_store.planned_posts_naming(user_id, media["id"])
    if using:
        raise conflict(
            "A Scheduled or Publishing post links this media; change or delete the post first.",
            {"post_ids": using},
        )
    media_store.delete_media(user_id, media["id"])
