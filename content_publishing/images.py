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

import ctypes
import io
import math
import os
import resource
import select
import signal
import struct
import time
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

MAX_FRAMES = 250
MAX_PIXELS = 36_000_000
MAX_WEBP_PIXELS = 16_777_216  # 4096 x 4096
MEMORY_BYTES = 512 * 1024 * 1024
SECONDS = 15  # well under gunicorn's timeout (30 s): the worker answers in time
# The image written anew is at most this long: a re-encoded JPEG may be
# larger than its upload (quality 95), but not without end.
MAX_OUTPUT_BYTES = 32 * 1024 * 1024

Image.init()  # every plugin imported once here, not again in each child


class Refused(ValueError):
    """The upload is not an image this service takes; the message says why."""


def rewrite(data, pillow_format):
    """(the image written anew without its metadata, width, height), or
    Refused saying why not. Runs in a child process (above)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        _child(data, pillow_format, read_end, write_end)
    os.close(write_end)
    try:
        answer = _collect(read_end)
    except BaseException:
        _kill(pid)  # late, too long, or the worker itself is stopping: the child goes first
        raise
    finally:
        os.close(read_end)
    status = os.waitpid(pid, 0)[1]
    return _result(answer, status)


def _collect(read_end):
    """Everything the child wrote, until it closed its end."""
    deadline = time.monotonic() + SECONDS
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    chunks, size = [], 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Refused(f"The image takes more than {SECONDS} seconds to decode.")
        if not poller.poll(remaining * 1000):
            continue
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_OUTPUT_BYTES + 9:
            raise Refused(f"The image written anew would be over {MAX_OUTPUT_BYTES:,} bytes.")
        chunks.append(chunk)


def _mib():
    return MEMORY_BYTES // 2**20


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    finally:
        os.waitpid(pid, 0)


def _result(answer, status):
    kind, body = answer[:1], answer[1:]
    if kind == b"0" and len(body) >= 8:
        width, height = struct.unpack(">II", body[:8])
        return body[8:], width, height
    if kind == b"1":
        raise Refused(body.decode())
    if kind == b"2" or not os.WIFSIGNALED(status):
        raise RuntimeError(f"decoding the image failed ({status}): {body.decode()}")
    if os.WTERMSIG(status) == signal.SIGXCPU:
        raise Refused(f"The image takes more than {SECONDS} seconds to decode.")
    # Killed without a word: a decoder's C code out of memory (or worse) on this file
    raise Refused(
        f"The image cannot be decoded within {_mib()} MiB and {SECONDS} seconds "
        f"(the decoder ended with signal {os.WTERMSIG(status)})."
    )


# --- the child ---------------------------------------------------------------------------


def _child(data, pillow_format, read_end, write_end):
    """Never returns: writes `0` width height image, `1` why refused, or `2`
    the error, and ends with os._exit (no atexit handler, no finaliser of the
    worker's connections, no buffered output of the parent's runs here)."""
    code = 1
    try:
        os.close(read_end)
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGABRT):
            signal.signal(signum, signal.SIG_DFL)  # the worker's handlers are not this process's
        os.closerange(3, write_end)  # the client's socket, the database's: not the child's to hold
        os.closerange(write_end + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        _limit()
        try:
            image, width, height = _decoded_anew(data, pillow_format)
            answer = b"0" + struct.pack(">II", width, height) + image
        except Refused as e:
            answer = b"1" + str(e).encode()
        except MemoryError:
            answer = b"1" + f"The image needs more than {_mib()} MiB to decode.".encode()
        except Exception as e:  # a bug here, not the client's: the worker answers 500
            answer = b"2" + f"{type(e).__name__}: {e}".encode()
        view = memoryview(answer)
        while view:
            view = view[os.write(write_end, view) :]
        code = 0
    finally:
        os._exit(code)


def _limit():
    """At most MEMORY_BYTES of memory more than the worker held, at most
    SECONDS + 1 of CPU (the parent's deadline comes first; this one holds if
    the parent is gone), no core dumped.

    The memory is bounded by RLIMIT_DATA, which counts every private
    writable mapping (the heap, and since Linux 4.7 anonymous mmap too, and
    reserved address space made writable: malloc's arenas grow so), from
    what the worker had written (VmData) less what its malloc holds free
    for reuse, which the child may take without growing. RLIMIT_AS bounds
    the address space as well."""
    with open("/proc/self/status") as status:
        sizes = dict(line.split(":", 1) for line in status if line.startswith(("VmSize", "VmData")))
    vm_size, vm_data = (int(sizes[name].split()[0]) * 1024 for name in ("VmSize", "VmData"))
    _lower(resource.RLIMIT_DATA, max(0, vm_data - _free_in_malloc()) + MEMORY_BYTES)
    _lower(resource.RLIMIT_AS, vm_size + MEMORY_BYTES)
    _lower(resource.RLIMIT_CPU, math.ceil(SECONDS) + 1)
    _lower(resource.RLIMIT_CORE, 0)
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS // 2  # Pillow refuses a frame over 2 x this
    warnings.simplefilter("ignore", Image.DecompressionBombWarning)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _free_in_malloc():
    """The bytes glibc's malloc holds free in all its arenas (0 without
    glibc 2.33's mallinfo2)."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return 0
    mallinfo2.restype = _Mallinfo2
    return mallinfo2().fordblks


def _lower(which, value):
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


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
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise Refused(f"The image is damaged or cut off ({type(e).__name__}).") from None
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
