"""A phone photo through the composer: a 12 MB JPEG from a phone (4000 x
3000, EXIF orientation and GPS) is picked, uploaded, stored scaled down,
upright and without its EXIF, and saved as a post; a damaged one is refused
naming its file.

Headless Chromium against real gunicorn (the module's server, as
tests/test_dashboard_planner.py); a screenshot lands in
test-artifacts/dashboard-phone-photo.png.
"""

import io
import re

import pytest
from PIL import Image

from content_publishing.media import images
from harness import Client
from harness.api import DASHBOARD, ITEM
from tests.dashboard_support import assert_clean, new_user, shoot, sign_in, tab
from tests.test_media_photos import MB, phone_photo


@pytest.fixture
def server(dashboard_gunicorn):
    return dashboard_gunicorn


def test_a_twelve_mb_phone_photo_becomes_a_post(browser, server):
    _, key = new_user(server)
    api = Client(server.url, key, timeout=60)
    photo = phone_photo(quality=95)
    assert len(photo) >= 12 * MB
    with tab(browser, server) as page:
        sign_in(page, server, key)
        page.goto(f"{server.url}{DASHBOARD}#/posts/new")
        page.fill("#content", "The view from the office this morning.")

        # A damaged photo first: refused, naming the file.
        page.set_input_files(
            "#media-files",
            {"name": "IMG_0041.jpg", "mimeType": "image/jpeg", "buffer": photo[: 3 * MB]},
        )
        refusal = page.locator(".media-problem [role=alert]")
        refusal.wait_for()
        assert "IMG_0041.jpg: The image is damaged or cut off" in refusal.text_content()

        page.set_input_files(
            "#media-files", {"name": "IMG_0042.jpg", "mimeType": "image/jpeg", "buffer": photo}
        )
        page.locator(".composer-thumbs .thumb img").wait_for(timeout=60_000)
        [url] = page.input_value("#media_urls").split("\n")
        assert url.startswith(f"{server.url}/media/") and url.endswith(".jpg")
        page.wait_for_function(
            "() => [...document.querySelectorAll('.composer-thumbs img')].every(i => i.complete)"
        )
        shoot(page, "phone-photo")
        page.get_by_role("button", name="Save draft").click()
        page.wait_for_url(re.compile(r"#/posts/[0-9a-f-]{36}$"))
        post = api.get(ITEM + page.url.rsplit("/", 1)[1]).json
        assert post["status"] == "Draft" and post["media_urls"] == [url]
        assert_clean(page, server)

    served = api.get(url.removeprefix(server.url)).body
    assert len(served) <= images.STORED_MAX_BYTES < len(photo)
    stored = Image.open(io.BytesIO(served))
    assert stored.height > stored.width and stored.width < 3000  # upright, scaled
    assert dict(stored.getexif()) == {} and b"PhoneMaker" not in served
