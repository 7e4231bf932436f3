"""The media library: uploads checked by decoding them, metadata stripped
(a phone photo's GPS position above all), kept in the database, deduplicated,
served without a key at a capability URL with ranges and ETags."""

import io
import time

import pytest
from PIL import Image

from content_publishing.media import images
from harness.api import MEDIA, POSTS
from tests.conftest import assert_error

ITEM = "/functions/v1/media-item/"
GPS = 0x8825
ORIENTATION = 0x0112


def image_bytes(fmt, size=(40, 20), color="red", **save):
    out = io.BytesIO()
    mode = "RGBA" if fmt in ("PNG", "WEBP") else "RGB"
    Image.new(mode, size, color).save(out, fmt, **save)
    return out.getvalue()


def phone_photo():
    """A landscape JPEG as a phone writes it: EXIF with the position and an
    orientation of 6 (turn 90 degrees clockwise to show it upright)."""
    exif = Image.Exif()
    exif[ORIENTATION] = 6
    exif[0x010F] = "PhoneMaker"
    exif[GPS] = {1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)}
    return image_bytes("JPEG", size=(40, 20), exif=exif.tobytes(), comment=b"holiday")


def upload(api, data, content_type, status=201):
    r = api.post(MEDIA, data=data, headers={"Content-Type": content_type})
    assert r.status_code == status, r.get_json()
    return r.get_json()


def file_path(media):
    return "/" + media["url"].split("/", 3)[3]


TYPES = [
    ("JPEG", "image/jpeg", "jpg", {}),
    ("PNG", "image/png", "png", {}),
    ("GIF", "image/gif", "gif", {}),
    ("WEBP", "image/webp", "webp", {}),
]


@pytest.mark.parametrize("fmt, content_type, ext, save", TYPES, ids=[t[0] for t in TYPES])
def test_each_type_is_kept_and_served(api, client, fmt, content_type, ext, save):
    media = upload(api, image_bytes(fmt, **save), content_type)
    assert media["content_type"] == content_type and (media["width"], media["height"]) == (40, 20)
    assert media["url"] == f"http://127.0.0.1:8000/media/{media['id']}.{ext}"
    served = client.get(file_path(media))  # no key
    assert served.status_code == 200 and served.headers["Content-Type"] == content_type
    assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert served.headers["X-Content-Type-Options"] == "nosniff"
    assert served.headers["Content-Security-Policy"] == "default-src 'none'"
    assert len(served.data) == media["bytes"]
    assert Image.open(io.BytesIO(served.data)).format == fmt


def test_a_phone_photo_loses_its_gps_and_stays_upright(api, client):
    media = upload(api, phone_photo(), "image/jpeg")
    stored = Image.open(io.BytesIO(client.get(file_path(media)).data))
    assert stored.size == (20, 40) and (media["width"], media["height"]) == (
        20,
        40,
    )  # turned upright
    assert dict(stored.getexif()) == {}  # no GPS, no orientation, no maker
    assert "comment" not in stored.info and "exif" not in stored.info and "xmp" not in stored.info
    assert b"PhoneMaker" not in client.get(file_path(media)).data


def test_an_animated_gif_keeps_its_frames(api, client):
    frames = [Image.new("RGB", (8, 8), color) for color in ("red", "green", "blue")]
    out = io.BytesIO()
    frames[0].save(
        out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0, comment=b"secret"
    )
    media = upload(api, out.getvalue(), "image/gif")
    stored = Image.open(io.BytesIO(client.get(file_path(media)).data))
    assert stored.n_frames == 3 and not stored.info.get("comment")


BAD = [
    (image_bytes("PNG"), "image/jpeg", "not a JPEG"),
    (image_bytes("JPEG"), "image/webp", "not a WEBP"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "image/png", ""),
    (image_bytes("JPEG", size=(400, 300))[:300], "image/jpeg", "damaged"),
    (b"GIF89a", "image/gif", ""),
    (b"", "image/png", ""),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize("data, content_type, words", BAD)
def test_what_is_not_an_image_of_its_type_is_400(api, data, content_type, words):
    error = assert_error(
        api.post(MEDIA, data=data, headers={"Content-Type": content_type}), 400, "bad_request"
    )
    assert words in error["message"]
    assert api.get(MEDIA).get_json()["total"] == 0


def test_a_decompression_bomb_is_refused_before_it_is_decoded(api):
    bomb = image_bytes(
        "PNG", size=(7000, 6000), color=(0, 0, 0, 0)
    )  # 42 million pixels, small file
    assert len(bomb) < 1024 * 1024
    error = assert_error(
        api.post(MEDIA, data=bomb, headers={"Content-Type": "image/png"}), 400, "bad_request"
    )
    assert "36,000,000 pixels" in error["message"]


def test_twenty_mib_and_one_byte_is_413_and_json_keeps_its_cap(api, app):
    cap = app.config["MEDIA_MAX_BYTES"]
    assert cap == 20 * 1024 * 1024
    over = b"\x00" * (cap + 1)
    assert_error(
        api.post(MEDIA, data=over, headers={"Content-Type": "image/png"}), 413, "payload_too_large"
    )
    big_json = {"type": "personal", "content": "x" * (2 * 1024 * 1024)}
    assert_error(api.post(POSTS, json=big_json), 413, "payload_too_large")
    assert api.get(MEDIA).get_json()["total"] == 0


def test_other_content_types_are_415(api):
    for content_type in ("application/json", "image/svg+xml", "image/tiff", "text/plain"):
        r = api.post(MEDIA, data=image_bytes("PNG"), headers={"Content-Type": content_type})
        assert_error(r, 415, "unsupported_media_type")


def test_the_same_bytes_again_are_the_same_media(api, caller):
    data = phone_photo()
    first = upload(api, data, "image/jpeg", 201)
    again = upload(api, data, "image/jpeg", 200)
    assert again == first
    theirs = upload(caller("bob"), data, "image/jpeg", 201)  # dedupe is per user
    assert theirs["id"] != first["id"] and theirs["sha256"] == first["sha256"]
    assert api.get(MEDIA).get_json()["total"] == 1


def test_range_and_if_none_match(api, client):
    media = upload(api, image_bytes("PNG", size=(64, 64)), "image/png")
    whole = client.get(file_path(media))
    part = client.get(file_path(media), headers={"Range": "bytes=0-9"})
    assert part.status_code == 206 and part.data == whole.data[:10]
    assert part.headers["Content-Range"] == f"bytes 0-9/{len(whole.data)}"
    assert whole.headers["ETag"] == f'"{media["sha256"]}"'
    same = client.get(file_path(media), headers={"If-None-Match": whole.headers["ETag"]})
    assert same.status_code == 304 and same.data == b""


def test_wrong_extension_or_unknown_id_is_404(api, client):
    media = upload(api, image_bytes("PNG"), "image/png")
    assert_error(client.get(f"/media/{media['id']}.jpg"), 404, "not_found")
    assert_error(client.get(f"/media/{'0' * 32}.png"), 404, "not_found")
    assert_error(client.get("/media/../../etc/passwd.png"), 404, "not_found")


def test_a_private_library_needs_the_owners_key(api, app, client, caller):
    media = upload(api, image_bytes("PNG"), "image/png")
    app.config["MEDIA_PUBLIC"] = False
    assert_error(client.get(file_path(media)), 401, "unauthorized")
    assert api.get(file_path(media)).status_code == 200
    assert api.get(file_path(media)).headers["Cache-Control"].startswith("private")
    assert_error(caller("bob").get(file_path(media)), 404, "not_found")
    assert_error(
        caller("alice", scopes=["posts:write"]).get(file_path(media)), 403, "insufficient_scope"
    )


def test_listing_and_deleting(api, app, caller):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = 0
    old = upload(api, image_bytes("PNG", color="blue"), "image/png")
    new = upload(api, image_bytes("PNG", color="green"), "image/png")
    page = api.get(MEDIA).get_json()
    assert [m["id"] for m in page["data"]] == [new["id"], old["id"]] and page["next"] is None
    post = api.post(
        POSTS,
        json={
            "type": "personal",
            "content": "pic",
            "media_urls": [new["url"]],
            "scheduled_at": "2031-01-01T00:00:00Z",
        },
    ).get_json()
    api.patch(f"{POSTS}-item/{post['id']}", json={"status": "Scheduled"})
    error = assert_error(
        api.client.delete(ITEM + new["id"], headers={"X-API-Key": api.key}), 409, "conflict"
    )
    assert error["details"]["post_ids"] == [post["id"]]
    assert_error(
        caller("bob").client.delete(ITEM + old["id"], headers={"X-API-Key": caller("bob").key}),
        404,
        "not_found",
    )
    assert api.client.delete(ITEM + old["id"], headers={"X-API-Key": api.key}).status_code == 204
    assert_error(api.client.get(file_path(old)), 404, "not_found")
    api.patch(
        f"{POSTS}-item/{post['id']}", json={"status": "Draft"}
    )  # a Draft keeps nothing in use
    assert api.client.delete(ITEM + new["id"], headers={"X-API-Key": api.key}).status_code == 204
    assert api.get(MEDIA).get_json()["total"] == 0


def test_media_needs_the_posts_scopes(caller):
    reader = caller("rita", scopes=["posts:read"])
    error = assert_error(
        reader.post(MEDIA, data=image_bytes("PNG"), headers={"Content-Type": "image/png"}),
        403,
        "insufficient_scope",
    )
    assert error["details"]["required_scope"] == "posts:write"
    writer = caller("walt", scopes=["posts:write"])
    assert_error(writer.get(MEDIA), 403, "insufficient_scope")


# The decoding child's limits (images.py), made small so that an ordinary
# image passes them: its refusal is a 400 and this process, the worker here,
# carries on.


@pytest.mark.backend_independent
def test_an_image_that_needs_more_memory_than_the_child_may_take_is_400(api, monkeypatch):
    """A CMYK JPEG of 4000 x 4000 takes some 200 MB to decode and write anew:
    more than 16 MiB and all the memory this process's malloc holds free
    (which the child may use, as the worker's own)."""
    # What this process's malloc holds free depends on what it ran before: a
    # bigger image where that is 100 MB or more (7000 x 7000: some 600 MB).
    side = 4000 if images._free_in_malloc() < 100 * 1024 * 1024 else 7000
    out = io.BytesIO()
    Image.new("CMYK", (side, side), (10, 20, 30, 40)).save(out, "JPEG", quality=80)
    data = out.getvalue()
    assert images._free_in_malloc() < (100 if side == 4000 else 400) * 1024 * 1024
    monkeypatch.setattr(images, "MEMORY_BYTES", 16 * 1024 * 1024)
    error = assert_error(
        api.post(MEDIA, data=data, headers={"Content-Type": "image/jpeg"}), 400, "bad_request"
    )
    assert "16 MiB" in error["message"]
    assert api.get(MEDIA).get_json()["total"] == 0
    monkeypatch.undo()
    made = upload(api, data, "image/jpeg")  # the worker carries on
    assert made["width"] == 4000 if side == 4000 else 0 < made["width"] <= side  # scaled down


@pytest.mark.backend_independent
def test_an_image_that_takes_too_long_to_decode_is_400_at_the_deadline(api, monkeypatch):
    monkeypatch.setattr(images, "SECONDS", 0.05)
    data = image_bytes("PNG", size=(6000, 6000))  # over a second to decode and write anew
    started = time.monotonic()
    error = assert_error(
        api.post(MEDIA, data=data, headers={"Content-Type": "image/png"}), 400, "bad_request"
    )
    assert time.monotonic() - started < 2  # not the seconds the whole decode takes
    assert "0.05 seconds" in error["message"]
    assert api.get(MEDIA).get_json()["total"] == 0
