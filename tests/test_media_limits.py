"""Bounded image work against real gunicorn (docs/media.md, "What an upload
costs"): the caps on frames and on frames x width x height, read from the
header before anything is decoded; the decoding child's limits; a
multi-picture JPEG; and ranges of a stored file. Every image is made here.

The workers' memory is read from /proc while the bad uploads run and after:
none may pass 400 MB, and none may be replaced (a worker killed for its
timeout, or for its memory, comes back with a new pid).
"""

import contextlib
import functools
import io
import json
import socket
import struct
import threading
import time

import pytest
from PIL import Image

from harness import Client, create_key
from harness.api import MEDIA
from harness.raw import parse
from tests.conftest import live_server

MB = 1024 * 1024
WORKER_MEMORY_CAP = 400 * MB


WORKERS = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "media-limits", workers=WORKERS) as server:
        yield server


@pytest.fixture
def client(server):
    """A new user's key for each test, so that no test sees another's media."""
    user = f"user{time.monotonic_ns()}"
    with Client(server.url, create_key(server.database, user=user), timeout=30) as client:
        yield client


def gif_of_dots(width, height, frames, frame_size=(1, 1)):
    """A GIF with a `width` x `height` screen and `frames` frames, each a
    white pixel one step further along the diagonal: a few bytes a frame,
    whatever the size. `frame_size`: what each frame's descriptor says it
    covers instead, from the corner (a frame may reach beyond the screen)."""
    head = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0)
    head += b"\x00\x00\x00\xff\xff\xff"  # two colours
    head += b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop for ever
    body = b""
    for n in range(frames):
        body += b"\x21\xf9\x04\x04\x02\x00\x00\x00"  # keep the frame under the next; 20 ms
        at = (n % width, n % height) if frame_size == (1, 1) else (0, 0)
        body += b"\x2c" + struct.pack("<HHHHB", *at, *frame_size, 0)
        body += b"\x02\x02\x4c\x01\x00"  # LZW: clear, colour 1 (white), end
    return head + body + b"\x3b"


def pillow_bytes(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def upload(client, data, content_type):
    return client.post(MEDIA, data, headers={"Content-Type": content_type})


def memory(pid):
    """(VmRSS, VmHWM) of a process in bytes, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


def booted_workers(server, count=WORKERS, timeout=30):
    """The pids of the server's `count` workers, once all have booted: on a
    loaded machine gunicorn may still be starting the last one, which the
    watch would otherwise take for a replacement."""
    deadline = time.monotonic() + timeout
    while len(pids := server.worker_pids()) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return pids


class WorkerWatch:
    """Samples every worker's VmRSS while a block runs; after it, their
    VmHWM (the peak of each worker's whole life) and their pids."""

    def __init__(self, server):
        self.server = server
        self.pids = sorted(booted_workers(server))
        self.peak_rss = 0
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while self.running:
            for pid in self.pids:
                with contextlib.suppress(FileNotFoundError):  # gone: check() says so
                    self.peak_rss = max(self.peak_rss, memory(pid)[0])
            time.sleep(0.01)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()

    def check(self):
        assert sorted(self.server.worker_pids()) == self.pids, "a worker was replaced"
        hwm = max(memory(pid)[1] for pid in self.pids)
        assert self.peak_rss < WORKER_MEMORY_CAP and hwm < WORKER_MEMORY_CAP, (self.peak_rss, hwm)


def refused(response, *words):
    assert response.status == 400, response
    error = response.json["error"]
    assert error["code"] == "bad_request"
    for word in words:
        assert word in error["message"], error["message"]
    return error


def stored_count(client):
    return client.get(MEDIA).json["total"]


# The attack's files: a 5.8 KB GIF (3000 x 3000 screen, 200 one-pixel
# frames) and a 25 KB one (5900 x 5900, 1,000 frames).
GIF_BOMBS = {
    "200 frames of 3000 x 3000": (
        gif_of_dots(3000, 3000, 200),
        ["200 frames of 3000 x 3000", "1,800,000,000", "36,000,000"],
    ),
    "1,000 frames of 5900 x 5900": (gif_of_dots(5900, 5900, 1000), ["1,000 frames", "250"]),
}


@pytest.mark.parametrize("name", GIF_BOMBS)
def test_a_gif_bomb_is_a_400_at_once_and_no_worker_grows(server, client, name):
    data, words = GIF_BOMBS[name]
    assert len(data) < 25 * 1024
    with WorkerWatch(server) as watch:
        started = time.monotonic()
        refused(upload(client, data, "image/gif"), *words)
        assert time.monotonic() - started < 5
    watch.check()
    assert stored_count(client) == 0


def test_eight_gif_bombs_at_once_take_no_worker_down(server, client):
    data = GIF_BOMBS["200 frames of 3000 x 3000"][0]
    answers = []

    def send():
        with Client(server.url, client.key, timeout=30) as own:
            answers.append(upload(own, data, "image/gif"))

    with WorkerWatch(server) as watch:
        started = time.monotonic()
        threads = [threading.Thread(target=send) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert time.monotonic() - started < 5
        assert client.get("/health").status == 200
    watch.check()
    assert [a.status for a in answers] == [400] * 8, answers
    assert stored_count(client) == 0


@functools.cache
def lossless_webp_of_6000_by_6000():
    return pillow_bytes(Image.new("RGBA", (6000, 6000)), "WEBP", lossless=True, method=0, quality=0)


def test_a_lossless_webp_of_6000_by_6000_is_refused_at_once(server, client):
    data = lossless_webp_of_6000_by_6000()
    assert len(data) < 64  # a few bytes for 36 million pixels
    with WorkerWatch(server) as watch:
        started = time.monotonic()
        refused(upload(client, data, "image/webp"), "6000 x 6000", "16,777,216", "WebP")
        assert time.monotonic() - started < 5
    watch.check()
    assert stored_count(client) == 0


def test_the_frame_pixels_cap_counts_every_frame(server, client):
    at_cap = gif_of_dots(1000, 1000, 36)  # 36 x 1000 x 1000 = 36,000,000
    media = upload(client, at_cap, "image/gif")
    assert media.status == 201, media
    stored = Image.open(io.BytesIO(client.get(file_path(media.json)).body))
    assert stored.size == (1000, 1000) and stored.n_frames == 36
    refused(upload(client, gif_of_dots(1000, 1000, 37), "image/gif"), "37 frames", "37,000,000")
    assert stored_count(client) == 1


def test_the_frame_count_cap_is_250(server, client):
    assert upload(client, gif_of_dots(10, 10, 250), "image/gif").status == 201
    refused(upload(client, gif_of_dots(10, 10, 251), "image/gif"), "251 frames", "at most 250")
    assert stored_count(client) == 1


def test_frames_reaching_beyond_the_gifs_screen_count_at_their_size(server, client):
    """A GIF may say its screen is 10 x 10 and then hold frames of 6000 x
    6000; it is decoded at the larger size, so that is the size counted."""
    data = gif_of_dots(10, 10, 2, frame_size=(6000, 6000))
    refused(upload(client, data, "image/gif"), "2 frames of 6000 x 6000", "72,000,000")
    assert stored_count(client) == 0


def test_a_still_image_at_the_pixel_cap_is_stored(server, client):
    data = pillow_bytes(Image.new("RGB", (6000, 6000), "white"), "PNG")
    with WorkerWatch(server) as watch:
        media = upload(client, data, "image/png")
    watch.check()
    assert media.status == 201, media
    assert (media.json["width"], media.json["height"]) == (6000, 6000)


def test_over_the_pixel_cap_is_refused_before_decoding(server, client):
    data = pillow_bytes(Image.new("1", (6001, 6000)), "PNG")
    refused(upload(client, data, "image/png"), "36,000,000 pixels")
    assert stored_count(client) == 0


def phone_mpo():
    """A multi-picture JPEG as a phone or 3D camera writes it: two pictures,
    EXIF with the position and an orientation of 6 on the first."""
    exif = Image.Exif()
    exif[0x0112] = 6  # turn 90 degrees clockwise to show it upright
    exif[0x010F] = "CameraMaker"
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)}
    first, second = Image.new("RGB", (40, 20), "red"), Image.new("RGB", (40, 20), "blue")
    return pillow_bytes(first, "MPO", save_all=True, append_images=[second], exif=exif.tobytes())


def file_path(media):
    return "/" + media["url"].split("/", 3)[3]


def test_a_multi_picture_jpeg_is_stored_as_its_first_picture(server, client):
    data = phone_mpo()
    assert Image.open(io.BytesIO(data)).format == "MPO"
    media = upload(client, data, "image/jpeg")
    assert media.status == 201, media
    assert media.json["content_type"] == "image/jpeg" and media.json["url"].endswith(".jpg")
    assert (media.json["width"], media.json["height"]) == (20, 40)  # upright
    served = client.get(file_path(media.json)).body
    stored = Image.open(io.BytesIO(served))
    assert stored.format == "JPEG" and stored.size == (20, 40)
    assert dict(stored.getexif()) == {}  # no position, no orientation, no maker
    assert b"MPF" not in served and b"CameraMaker" not in served  # no second picture's index
    red, _, blue = stored.convert("RGB").getpixel((10, 20))
    assert red > 200 and blue < 60  # the first picture, not the second
    again = upload(client, data, "image/jpeg")
    assert again.status == 200 and again.json["id"] == media.json["id"]


# --- a body without a key ------------------------------------------------------------------

DOCUMENT_CAP = 100 * MB  # FLASK_MEDIA_MAX_DOCUMENT_BYTES


def keyless_document_upload(port, key=None):
    """A 100 MiB `application/pdf` POST /media over a raw socket, sent
    whole unless the server stops taking it: (bytes of the body sent, the
    answer's status, or None if none came)."""
    head = (
        f"POST {MEDIA} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\n"
        + (f"X-API-Key: {key}\r\n" if key else "")
        + f"Content-Length: {DOCUMENT_CAP}\r\n\r\n"
    ).encode()
    chunk, sent, received = b"%" * MB, 0, b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        with contextlib.suppress(OSError):  # reset, or no reader for 10 s: it stopped reading
            while sent < DOCUMENT_CAP:
                sock.sendall(chunk)
                sent += len(chunk)
        with contextlib.suppress(OSError):
            while data := sock.recv(65536):
                received += data
    return sent, parse(received)[0]


@pytest.mark.backend_independent
@pytest.mark.parametrize("key", [None, "svc_live_" + "x" * 40], ids=["no key", "unknown key"])
def test_four_keyless_100_mib_uploads_at_once_are_never_read(server, key):
    """docs/choices.md: a body is read before its key is checked only up to
    1 MiB; a media upload's, after. Each worker's memory stays where it was
    (reading one of these whole grew a worker by about 100 MiB)."""
    port = int(server.url.rsplit(":", 1)[1])
    pids = sorted(booted_workers(server))
    before = {pid: memory(pid)[0] for pid in pids}
    grown = dict.fromkeys(pids, 0)
    done = threading.Event()

    def sample():
        while not done.is_set():
            for pid in pids:
                with contextlib.suppress(FileNotFoundError):
                    grown[pid] = max(grown[pid], memory(pid)[0] - before[pid])
            time.sleep(0.01)

    answers = []
    watcher = threading.Thread(target=sample, daemon=True)
    senders = [
        threading.Thread(target=lambda: answers.append(keyless_document_upload(port, key)))
        for _ in range(4)
    ]
    watcher.start()
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join()
    done.set()
    watcher.join()
    assert len(answers) == 4
    for sent, status in answers:
        assert sent < DOCUMENT_CAP and status == 401, (sent, status)
    assert max(grown.values()) < 8 * MB, grown
    assert sorted(server.worker_pids()) == pids, "a worker was replaced"
    with Client(server.url, timeout=5) as anyone:
        assert anyone.get("/health").status == 200


# --- ranges of a stored file (RFC 9110, section 14) -----------------------------------------


@pytest.fixture
def stored_png(client):
    media = upload(client, pillow_bytes(Image.new("RGB", (64, 64), "green"), "PNG"), "image/png")
    whole = client.get(file_path(media.json)).body
    return file_path(media.json), whole


def test_a_suffix_longer_than_the_file_is_the_whole_file_as_206(client, stored_png):
    path, whole = stored_png
    r = client.get(path, headers={"Range": "bytes=-99999999"})
    assert r.status == 206, r
    assert (
        r.body == whole and r.headers["content-range"] == f"bytes 0-{len(whole) - 1}/{len(whole)}"
    )
    r = client.get(path, headers={"Range": "bytes=-10"})
    assert r.status == 206 and r.body == whole[-10:]
    r = client.get(path, headers={"Range": "bytes=10-99999999"})  # an end past the file: to its end
    assert r.status == 206 and r.body == whole[10:]


@pytest.mark.parametrize(
    "ranges", ["bytes=0-1,5-9", "bytes=0-1, -5", "bytes=-5,0-1", "bytes=0-1,99999999-"]
)
def test_several_ranges_are_answered_with_the_whole_file(client, stored_png, ranges):
    path, whole = stored_png
    r = client.get(path, headers={"Range": ranges})
    assert r.status == 200 and r.body == whole and "content-range" not in r.headers
    assert r.headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize("header", ["items=0-5", "bytes=5-2", "bytes=abc", "bytes=", "bytes=1-2-3"])
def test_a_range_that_cannot_be_read_is_ignored(client, stored_png, header):
    path, whole = stored_png
    r = client.get(path, headers={"Range": header})
    assert r.status == 200 and r.body == whole


@pytest.mark.parametrize("past", [0, 1, 10**17])
def test_a_range_that_starts_past_the_end_is_416(client, stored_png, past):
    path, whole = stored_png
    for header in (f"bytes={len(whole) + past}-", f"bytes={len(whole) + past}-{10**18 - 1}"):
        r = client.get(path, headers={"Range": header})
        assert r.status == 416 and r.headers["content-range"] == f"bytes */{len(whole)}"
        assert json.loads(r.body)["error"]["code"] == "range_not_satisfiable"


def test_a_suffix_of_no_bytes_is_416(client, stored_png):
    path, whole = stored_png
    r = client.get(path, headers={"Range": "bytes=-0"})
    assert r.status == 416 and r.headers["content-range"] == f"bytes */{len(whole)}"
