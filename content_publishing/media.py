"""The media library: images uploaded once, kept in the database, linked
from posts by URL.

An upload is checked by decoding it with Pillow: it must be an image of the
type it declares (JPEG, PNG, GIF or WebP), whole, and at most 36 million
pixels (a decompression bomb is refused before it is decoded). What is kept
is the image written anew from its pixels: EXIF (with its GPS position),
XMP and comments are left behind, since a phone photo carries where it was
taken and a careless upload would publish it. A JPEG's EXIF orientation is
applied first, so that the picture stays upright without it. The colour
profile is kept: it is no one's secret and the colours depend on it.

The same bytes uploaded again by the same user are the same media (a
unique index on the upload's SHA-256 holds it), answered with 200 instead
of 201. The stored image is served without a key at an unguessable address
(128 random bits): a capability URL, as the automation that publishes a post
must fetch its media without the user's key.
"""

import hashlib
import io
import secrets

from PIL import Image, ImageOps, UnidentifiedImageError

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
MAX_PIXELS = 36_000_000


def upload(user_id, data, content_type, now):
    """(media, created): the user's media of these bytes, new or as stored
    before (inside the caller's transaction)."""
    if content_type not in TYPES:
        raise ApiError(
            415,
            f"Send the image itself with Content-Type {', '.join(TYPES)}.",
            "unsupported_media_type",
        )
    digest = hashlib.sha256(data).hexdigest()
    earlier = media_store.find_upload(user_id, digest)
    if earlier is not None and earlier["content_type"] == content_type:
        return earlier, False
    image, width, height = clean(data, content_type)
    fields = {
        "content_type": content_type,
        "ext": TYPES[content_type][1],
        "bytes": len(image),
        "width": width,
        "height": height,
        "sha256": hashlib.sha256(image).hexdigest(),
        "upload_sha256": digest,
        "data": image,
    }
    try:
        with savepoint():
            return media_store.insert_media(user_id, secrets.token_hex(16), fields, now), True
    except Exception as error:  # the same bytes, uploaded at the same moment, won
        if not is_unique_violation(error):
            raise
        return media_store.find_upload(user_id, digest), False


def clean(data, content_type):
    """(the image written anew without its metadata, width, height), or a
    400 saying why it is not an acceptable image of `content_type`."""
    pillow_format, _ = TYPES[content_type]
    try:
        with Image.open(io.BytesIO(data), formats=[pillow_format]) as image:
            if image.width * image.height > MAX_PIXELS:
                raise bad_request(
                    f"The image is {image.width} x {image.height} pixels; at most "
                    f"{MAX_PIXELS:,} pixels are taken."
                )
            image.load()
            return _rewritten(image, pillow_format)
    except UnidentifiedImageError:
        raise bad_request(f"The body is not a {pillow_format} image ({content_type}).") from None
    except Image.DecompressionBombError:
        raise bad_request(f"The image has more than {MAX_PIXELS:,} pixels.") from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise bad_request(f"The image is damaged or cut off ({type(e).__name__}).") from None


def _rewritten(image, pillow_format):
    frames = getattr(image, "n_frames", 1)
    options = {"icc_profile": image.info.get("icc_profile")}
    if pillow_format == "JPEG":
        image = ImageOps.exif_transpose(image)  # upright, then the orientation goes with the rest
        image.info = {}  # Pillow would write a JPEG's comment (and more) back from here
        options.update(quality=95, optimize=True)
    elif pillow_format == "PNG":
        options.update(optimize=True)
    elif pillow_format == "WEBP":
        options.update(quality=95, lossless=image.info.get("lossless", False))
    if frames > 1:  # an animated GIF or WebP keeps its frames and timing
        options.update(
            save_all=True,
            duration=image.info.get("duration"),
            loop=image.info.get("loop", 0),
        )
    if pillow_format == "GIF":
        options.update(comment=b"")
    out = io.BytesIO()
    image.save(out, pillow_format, **{k: v for k, v in options.items() if v is not None})
    return out.getvalue(), image.width, image.height


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
