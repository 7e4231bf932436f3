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
"""

import io
import struct
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from content_publishing import bounded

MAX_FRAMES = 250
MAX_PIXELS = 36_000_000
MAX_WEBP_PIXELS = 16_777_216  # 4096 x 4096
MEMORY_BYTES = 512 * 1024 * 1024
SECONDS = 15  # well under gunicorn's timeout (30 s): the worker answers in time
# The image written anew is at most this long: a re-encoded JPEG may be
# larger than its upload (quality 95), but not without end.
MAX_OUTPUT_BYTES = 32 * 1024 * 1024

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
    try:
        image = Image.open(io.BytesIO(data), formats=[pillow_format])
        frames = 1 if pillow_format == "JPEG" else getattr(image, "n_frames", 1)
        width, height = gif_extent(data) if pillow_format == "GIF" else image.size
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
        return _rewritten(image, pillow_format, frames)
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


def _rewritten(image, pillow_format, frames):
    """The image written anew from its pixels: no EXIF (with GPS), XMP or
    comment; a JPEG turned upright by its EXIF orientation first; the colour
    profile kept; an animation keeps its frames and timing."""
    options = {"icc_profile": image.info.get("icc_profile")}
    if pillow_format == "JPEG":  # a plain JPEG, or an MPO's first picture
        ImageOps.exif_transpose(image, in_place=True)  # upright; the orientation goes
        image.info = {}  # Pillow would write a JPEG's comment (and more) back from here
        options.update(quality=95, optimize=True)
    elif pillow_format == "PNG":
        options.update(optimize=True)
    elif pillow_format == "WEBP":
        options.update(quality=95, lossless=image.info.get("lossless", False))
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
