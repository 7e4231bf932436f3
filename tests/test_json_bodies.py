"""What a JSON body must be (content_publishing/http/common.py, json_body): UTF-8 (a
byte-order mark allowed), and no key twice in one object. Both are refused
before anything is stored, with a message that says which."""

import json

import pytest

from harness.api import POSTS
from tests.conftest import assert_error

pytestmark = pytest.mark.sqlite_only  # refused before the store is reached

JSON = {"Content-Type": "application/json"}
DOCUMENT = '{"type": "personal", "content": "caf\u00e9 \U0001f642"}'


def stored(api):
    return api.get(POSTS).get_json()["total"]


REPEATED = [
    ('{"type": "personal", "content": "a", "content": "b"}', "content"),
    ('{"type": "personal", "type": "brand", "content": "a"}', "type"),
    ('{"type": "personal", "content": "a", "media_urls": [{"u": 1, "u": 2}]}', "u"),
    ('{"content": "a", "type": "personal", "Content": "b", "content": "c"}', "content"),
]


@pytest.mark.parametrize("body, repeated", REPEATED)
def test_a_key_given_twice_is_a_400_naming_it(api, body, repeated):
    error = assert_error(api.post(POSTS, data=body, headers=JSON), 400, "bad_request")
    assert error["details"] == {"repeated_key": repeated}
    assert f'"{repeated}"' in error["message"]
    assert stored(api) == 0


def test_the_same_name_in_two_objects_is_fine(api):
    body = '{"type": "personal", "content": "a", "media_urls": []}'
    assert api.post(POSTS, data=body, headers=JSON).status_code == 201


NOT_UTF8 = {
    "UTF-16 with its mark": DOCUMENT.encode("utf-16"),
    "UTF-16 big-endian": DOCUMENT.encode("utf-16-be"),
    "UTF-32 with its mark": DOCUMENT.encode("utf-32"),
    "UTF-32 little-endian": DOCUMENT.encode("utf-32-le"),
    "Latin-1": DOCUMENT.replace(" \U0001f642", "").encode("latin-1"),
    "a cut-off UTF-8 sequence": DOCUMENT.encode()[:-4] + b'\xf0\x9f"}',
}


@pytest.mark.parametrize("body", NOT_UTF8.values(), ids=NOT_UTF8.keys())
def test_a_body_that_is_not_utf8_is_a_400(api, body):
    error = assert_error(api.post(POSTS, data=body, headers=JSON), 400, "bad_request")
    assert "not UTF-8" in error["message"]
    assert stored(api) == 0


def test_a_utf8_byte_order_mark_is_allowed(api):
    r = api.post(POSTS, data=b"\xef\xbb\xbf" + DOCUMENT.encode(), headers=JSON)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["content"] == json.loads(DOCUMENT)["content"]
