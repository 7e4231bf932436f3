"""An uploaded image decoded and written anew, with bounded work (docs/media.md).

Its pixels are never decoded in the web worker. Each upload is handed to a
child process forked for it, which reads the header, refuses what is over the
caps below, decodes every frame and writes the image anew without its
metadata. The child runs under a memory limit (MEMORY_BYTES more than the
worker it was forked from held) and a CPU-time limit, and the worker
kills it at its deadline (SECONDS): whatever a decoder does with a crafted
file, the worker keeps its memory and answers in time, and the next request
finds it as it was.

Why a child and not the caps alone: the caps refuse the known bombs at once
from the header, but what a decoder costs is not only its pixel count. Pillow
decodes a WebP through two more full-size canvases (25 bytes a pixel in all:
900 MB for 6000 x 6000), a progressive JPEG may hold thousands of scans, and
a GIF's frames may reach beyond the size its header states. The limits hold
whatever the cause. The price is a fork per upload (about 3.5 ms of CPU for a
small image; the bytes and Pillow are already in memory, so nothing is
copied or imported).

The caps, checked in this order before any pixel is decoded:
- frames: at most MAX_FRAMES (LinkedIn's own limit for a GIF);
- pixels: frames x width x height at most MAX_PIXELS, the work of decoding
  and writing every frame at the image's full size (a still image: width x
  height; LinkedIn takes at most 36,152,320 pixels);
- a WebP: at most MAX_WEBP_PIXELS, since Pillow needs 25 bytes a pixel for it.
A GIF's size is the largest a frame reaches, as Pillow decodes it. A JPEG is
one picture: a multi-picture JPEG (MPO, as phones and 3D cameras write them)
is read as its first picture and stored as a plain JPEG.

A still image is stored within what LinkedIn takes: at most STORED_MAX_BYTES,
and never larger than its upload but by HEADROOM (a WebP's PNG rendition is a
conversion and may be). A phone photo written anew at quality 95 may be larger than it came,
so it is written at lower qualities first, then scaled down (Lanczos) until
it fits (`_fitted`). A JPEG of more pixels than the cap, as a 48 or 200
megapixel phone writes, is decoded at a half or a quarter of its
size by the decoder itself (Pillow's draft mode), so its full size is never
held in memory; one that needs less than a quarter is refused (a quarter
takes a 200 megapixel photo, and a file of a few megabytes that claims
billions of pixels is not decoded at all). An animation
is not scaled: one over STORED_MAX_BYTES is refused.
"""

import io
import struct
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from content_publishing.media import bounded

MAX_FRAMES = 250
MAX_PIXELS = 36_000_000
MAX_WEBP_PIXELS = 16_777_216  # 4096 x 4096
MEMORY_BYTES = 512 * 1024 * 1024
SECONDS = 15  # well under gunicorn's timeout (30 s): the worker answers in time
# The image written anew is at most this long: a re-encoded JPEG may be
# larger than its upload (quality 95), but not without end.
MAX_OUTPUT_BYTES = 32 * 1024 * 1024
# What a stored still image may weigh: LinkedIn's image upload takes this
# much with room, whatever the upload cap (FLASK_MEDIA_MAX_BYTES) lets in.
STORED_MAX_BYTES = 5 * 1024 * 1024
# How each format is written, tried in this order before a still image is
# scaled: lower qualities for a lossy one; for a PNG, deflate's other levels
# (on a photo's noise the default filters outweigh what they save).
WAYS = {
    "JPEG": [{"quality": q, "optimize": True} for q in (95, 85, 75)],
    "PNG": [{"optimize": True}, {"compress_level": 9}, {"compress_level": 1}],
    "WEBP": [{"quality": q} for q in (95, 85, 75)],
    "GIF": [{}],
}
# A still image is scaled when written anew it outweighs its upload by more
# than this: a few headers (a colour profile, a WebP's chunks), which no
# scaling of a small image would save.
HEADROOM = 4096
MAX_DRAFT_SCALE = 4  # a JPEG may be decoded at 1/4 of its size at most (JPEG's own steps)

Image.init()  # every plugin imported once here, not again in each child


Refused = bounded.Refused
_free_in_malloc = bounded.free_in_malloc  # what the child may take beyond its limit (tests)


def rewrite(data, pillow_format):
    """(the image written anew without its metadata, width, height), or
    Refused saying why not. Runs in a child process (above, and bounded.py)."""
    return _bounded(lambda upload: _packed(*_decoded_anew(upload, pillow_format)), data)


def png_of(data):
    """(a PNG of the WebP `data`, as the library keeps it, width, height):
    what LinkedIn is handed for a WebP, which it does not take. An animation
    keeps its frames (an APNG; LinkedIn shows its first). In a child process
    too."""
    return _bounded(lambda upload: _packed(*_png_of(upload)), data)


def _bounded(work, data):
    answer = bounded.run(
        work,
        data,
        what="image",
        verb=("decode", "decoded"),
        seconds=SECONDS,
        memory_bytes=MEMORY_BYTES,
        max_output=MAX_OUTPUT_BYTES,
        setup=_setup,
    )
    width, height = struct.unpack(">II", answer[:8])
    return answer[8:], width, height


def _packed(image, width, height):
    return struct.pack(">II", width, height) + image


def _mib():
    return bounded.mib(MEMORY_BYTES)


def _setup():
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS // 2  # Pillow refuses a frame over 2 x this
    warnings.simplefilter("ignore", Image.DecompressionBombWarning)


def _decoded_anew(data, pillow_format):
    """What the child does: the caps, every frame decoded, the image written anew."""
    if pillow_format == "JPEG":  # in the child alone: a draft brings it within MAX_PIXELS
        Image.MAX_IMAGE_PIXELS = MAX_PIXELS * MAX_DRAFT_SCALE**2 // 2
    try:
        image = Image.open(io.BytesIO(data), formats=[pillow_format])
        frames = 1 if pillow_format == "JPEG" else getattr(image, "n_frames", 1)
        width, height = gif_extent(data) if pillow_format == "GIF" else image.size
        if pillow_format == "JPEG":
            width, height = _drafted(image, width, height)
        _check(pillow_format, frames, width, height)
        image.load()
    except Refused:
        raise
    except UnidentifiedImageError:
        raise Refused(f"The body is not a {pillow_format} image.") from None
    except Image.DecompressionBombError:
        raise Refused(f"A frame of the image has more than {MAX_PIXELS:,} pixels.") from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:  # a decoder out of memory too
        raise Refused(
            f"The image is damaged or cut off, or needs more than {_mib()} MiB to be decoded "
            f"({type(e).__name__})."
        ) from None
    try:  # an animation's later frames are decoded here, as they are written
        return _fitted(image, pillow_format, frames, len(data))
    except Image.DecompressionBombError:
        raise Refused(f"A frame of the image has more than {MAX_PIXELS:,} pixels.") from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:  # an encoder out of memory says so
        raise Refused(
            f"The image is damaged or cut off, or needs more than {_mib()} MiB to be written "
            f"anew ({type(e).__name__})."
        ) from None


def _check(pillow_format, frames, width, height):
    if frames > MAX_FRAMES:
        raise Refused(f"The image has {frames:,} frames; at most {MAX_FRAMES} are taken.")
    cap = MAX_WEBP_PIXELS if pillow_format == "WEBP" else MAX_PIXELS
    pixels = frames * width * height
    if pixels > cap:
        shape = f"{frames:,} frames of {width} x {height}" if frames > 1 else f"{width} x {height}"
        raise Refused(
            f"The image is {shape} pixels, {pixels:,} in all; at most {cap:,} pixels "
            f"(frames x width x height) are taken{' for a WebP' if cap != MAX_PIXELS else ''}."
        )


def _drafted(image, width, height):
    """The size a JPEG is decoded at: its own, or, when that is over
    MAX_PIXELS, the largest JPEG step (1/2, 1/4) within it, which the
    decoder reaches without holding the full size. Over 1/4 the caps
    refuse it (the size returned is its own)."""
    if width * height <= MAX_PIXELS:
        return width, height
    for scale in (2, MAX_DRAFT_SCALE):
        w, h = -(-width // scale), -(-height // scale)
        if w * h <= MAX_PIXELS:
            image.draft(image.mode, (w, h))
            return image.size
    return width, height


def _fitted(image, pillow_format, frames, upload_bytes):
    """The image written anew (`_rewritten`), then, for a still image larger
    than STORED_MAX_BYTES or than its upload, at lower qualities and scaled
    down until it is not. An animation over STORED_MAX_BYTES is refused."""
    written = _rewritten(image, pillow_format, frames)
    limit = min(STORED_MAX_BYTES, upload_bytes)
    if len(written[0]) <= limit:
        return written
    if frames > 1:
        if len(written[0]) <= STORED_MAX_BYTES:
            return written  # an animation is not scaled: within the cap it is kept
        raise Refused(
            f"The animation is {len(written[0]):,} bytes written anew; at most "
            f"{STORED_MAX_BYTES:,} are kept, and an animation is not scaled down."
        )
    ways = WAYS[pillow_format] if not image.info.get("lossless") else WAYS["GIF"]
    smallest = written
    for way in ways[1:]:
        written = _rewritten(image, pillow_format, frames, way, upright=True)
        if len(written[0]) <= limit:
            return written
        smallest = min(smallest, written, key=lambda w: len(w[0]))
    if len(smallest[0]) <= min(STORED_MAX_BYTES, upload_bytes + HEADROOM):
        return smallest  # a tiny image, whose headers outweigh what scaling would save
    written, way = smallest, ways[-1]
    source = image if image.mode not in ("P", "1") else image.convert("RGBA")
    for _ in range(8):  # each step ~ the ratio the bytes ask for, and a little more
        ratio = min(0.9, (limit / len(written[0])) ** 0.5 * 0.95)
        size = (max(1, int(written[1] * ratio)), max(1, int(written[2] * ratio)))
        if size == (written[1], written[2]) or min(size) < 16:
            break
        smaller = source.resize(size, Image.Resampling.LANCZOS)
        smaller.info = {k: image.info.get(k) for k in ("icc_profile", "lossless")}
        written = _rewritten(smaller, pillow_format, 1, way, upright=True)
        if len(written[0]) <= limit:
            return written
    raise Refused(
        f"The image could not be scaled down to {STORED_MAX_BYTES:,} bytes "
        f"({len(written[0]):,} at {written[1]} x {written[2]})."
    )


def gif_extent(data):
    """(width, height) of the canvas a GIF's frames need: its logical screen,
    grown by any frame that reaches beyond it (Pillow grows the image so).
    Read from the blocks without decoding; a GIF cut short ends the walk (the
    decoder then says it is damaged)."""
    width, height = struct.unpack_from("<HH", data, 6)
    at = 13 + _color_table(data[10])
    while at < len(data):
        block = data[at]
        if block == 0x21:  # an extension: its label, then its sub-blocks
            at = _after_sub_blocks(data, at + 2)
        elif block == 0x2C and at + 10 <= len(data):  # a frame: where it lies, its colours, pixels
            x, y, w, h, flags = struct.unpack_from("<HHHHB", data, at + 1)
            width, height = max(width, x + w), max(height, y + h)
            at = _after_sub_blocks(data, at + 10 + _color_table(flags) + 1)
        else:  # the trailer, a frame cut short, or something Pillow will refuse
            break
    return width, height


def _color_table(flags):
    return 3 << ((flags & 7) + 1) if flags & 0x80 else 0


def _after_sub_blocks(data, at):
    while at < len(data) and data[at]:
        at += data[at] + 1
    return at + 1


def _rewritten(image, pillow_format, frames, way=None, upright=False):
    """The image written anew from its pixels: no EXIF (with GPS), XMP or
    comment; a JPEG turned upright by its EXIF orientation first (`upright`:
    it is already, a scaled copy); the colour profile kept; an animation keeps
    its frames and timing. `way`: one of WAYS (its first by default)."""
    way = WAYS[pillow_format][0] if way is None else way
    options = {"icc_profile": image.info.get("icc_profile")}
    if pillow_format == "JPEG":  # a plain JPEG, or an MPO's first picture
        if not upright:
            ImageOps.exif_transpose(image, in_place=True)  # upright; the orientation goes
        image.info = {"icc_profile": options["icc_profile"]}  # no comment written back
        options.update(way)
    elif pillow_format == "PNG":
        options.update(way)
    elif pillow_format == "WEBP":
        lossless = image.info.get("lossless", False)
        options.update(way if not lossless else {"quality": 95}, lossless=lossless)
    if frames > 1:  # an animated GIF, PNG or WebP keeps its frames and timing
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


def _png_of(data):
    """A WebP of the library (already checked and written anew) as PNG."""
    image = Image.open(io.BytesIO(data), formats=["WEBP"])
    frames = getattr(image, "n_frames", 1)
    options = {"optimize": True, "icc_profile": image.info.get("icc_profile")}
    if frames > 1:
        options.update(save_all=True, duration=image.info.get("duration"), loop=0)
    out = io.BytesIO()
    image.save(out, "PNG", **{k: v for k, v in options.items() if v is not None})
    return out.getvalue(), image.width, image.height
