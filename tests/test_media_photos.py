"""Phone photos: larger than LinkedIn takes, or than the service stores, they
are scaled down (images.py), upright, without their EXIF; what cannot be
scaled is refused. Every photo is made here with Pillow, as a phone writes
it: 4000 x 3000, EXIF orientation 6 (turn 90 degrees clockwise) and a GPS
position.

Against real gunicorn on each backend: a phone photo's tens of megabytes,
decoded and handed through this process, would leave its malloc holding
them free, which the memory test of tests/test_media.py must not find.
"""

import io
import os

import pytest
from PIL import Image

from content_publishing.media import images
from harness import Client, create_key
from harness.api import MEDIA
from tests.conftest import live_server

pytestmark = pytest.mark.both_backends  # a store write per upload; quick on PostgreSQL too

MB = 1000 * 1000
GPS, ORIENTATION = 0x8825, 0x0112


def phone_photo(size=(4000, 3000), quality=90, noise=True):
    """A JPEG with the EXIF a phone writes. `noise`: random pixels, which no
    encoder shrinks (as large as a phone's file of a detailed scene), else
    a smooth gradient (a small file of the same size in pixels)."""
    width, height = size
    if noise:
        image = Image.frombytes("RGB", size, os.urandom(width * height * 3))
    else:
        image = Image.linear_gradient("L").resize(size).convert("RGB")
    image.paste((255, 0, 0), (0, 0, width // 4, height // 4))  # the top left corner is red
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    exif[0x010F] = "PhoneMaker"
    exif[GPS] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality, exif=exif.tobytes())
    return out.getvalue()


@pytest.fixture(scope="module")
def server(tmp_path_factory, live_backend):
    with live_server(tmp_path_factory, live_backend, "photos") as server:
        yield server


@pytest.fixture
def api(server, request):
    return Client(server.url, create_key(server.database, user=f"u{id(request)}"), timeout=60)


def stored_of(api, data):
    r = api.post(MEDIA, data, headers={"Content-Type": "image/jpeg"})
    assert r.status == 201, r
    media = r.json
    served = api.get("/" + media["url"].split("/", 3)[3]).body
    assert len(served) == media["bytes"]
    return media, served


def refusal(api, data):
    r = api.post(MEDIA, data, headers={"Content-Type": "image/jpeg"})
    assert r.status == 400 and r.json["error"]["code"] == "bad_request", r
    assert api.get(MEDIA).json["total"] == 0
    return r.json["error"]["message"]


def assert_upright_without_exif(served, upload):
    stored = Image.open(io.BytesIO(served))
    assert stored.format == "JPEG"
    assert stored.height > stored.width  # turned upright: the landscape shot was portrait
    # The red corner was the top left; turned clockwise it is the top right.
    right = stored.convert("RGB").getpixel((stored.width - 5, 5))
    assert right[0] > 200 and right[1] < 60, right
    assert dict(stored.getexif()) == {}  # no GPS, no orientation, no maker
    assert b"PhoneMaker" not in served and "exif" not in stored.info
    assert len(served) <= min(len(upload), images.STORED_MAX_BYTES)
    return stored


def test_a_phone_photo_within_the_limits_keeps_its_size(api):
    upload = phone_photo(noise=False)
    media, served = stored_of(api, upload)
    stored = assert_upright_without_exif(served, upload)
    assert stored.size == (3000, 4000) == (media["width"], media["height"])


@pytest.mark.parametrize("megabytes, quality", [(7, 80), (12, 95)], ids=["7MB", "12MB"])
def test_a_large_phone_photo_is_scaled_down_to_what_linkedin_takes(api, megabytes, quality):
    upload = phone_photo(quality=quality)
    assert megabytes * MB <= len(upload) < (megabytes + 3) * MB
    media, served = stored_of(api, upload)
    stored = assert_upright_without_exif(served, upload)
    assert stored.size == (media["width"], media["height"])
    assert stored.width < 3000 and abs(stored.height / stored.width - 4 / 3) < 0.01  # scaled
    assert media["bytes"] <= images.STORED_MAX_BYTES


def test_a_jpeg_of_more_pixels_than_linkedin_takes_is_decoded_smaller(api):
    upload = phone_photo(size=(8000, 6000), noise=False)  # 48 megapixels
    media, served = stored_of(api, upload)
    stored = assert_upright_without_exif(served, upload)
    assert stored.size == (3000, 4000)  # decoded at half its size


def jpeg_claiming(width, height):
    """A small JPEG whose header claims `width` x `height`."""
    data = bytearray(phone_photo(size=(64, 48), noise=False))
    at = data.index(b"\xff\xc0")  # the frame header: length, precision, height, width
    data[at + 5 : at + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return bytes(data)


def test_a_bomb_is_refused_before_it_is_decoded(api):
    bomb = jpeg_claiming(60000, 60000)  # 3.6 billion pixels: a quarter is still too many
    assert "36,000,000 pixels" in refusal(api, bomb)


def test_a_damaged_photo_is_refused(api):
    cut = phone_photo(quality=75)[: 3 * MB]
    assert "damaged or cut off" in refusal(api, cut)
