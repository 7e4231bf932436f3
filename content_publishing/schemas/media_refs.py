"""How a post names its media: an item of the media library by reference,
anything else by its URL.

A post's `media_urls` may name library media as `media:<id>` or by any URL
whose path ends in `/media/<id>.<ext>` (the address the library gave it,
whatever service address that was built with). The service keeps the id,
stored as `media:<id>.<ext>`, and shows it as `<FLASK_PUBLIC_URL>/media/<id>.<ext>`
with the setting in force when it answers: moving the service to another
address moves every post's media with it. Whether such a URL names an item
of the caller's library is for the domain to find out (posts/attachments.py);
one that does not is kept as written, like any other URL.
"""

import re
from contextvars import ContextVar

import ada_url
from marshmallow import ValidationError

from content_publishing.schemas import urls

# The service's address as the process answering knows it (FLASK_PUBLIC_URL
# of its app): set for each request by the HTTP layer (app.py) and for each
# round by the dispatcher, read where a post record is rendered. A post
# record is rendered in views and in the webhook events the domain writes,
# and which address a record goes out with is no rule of the domain: it is
# where the answer is made, as a request's own URL is.
PUBLIC_URL = ContextVar("public_url")
REFERENCE = re.compile(r"media:(?P<id>[0-9a-f]{32})")  # as a client writes it
STORED = re.compile(r"media:(?P<id>[0-9a-f]{32})\.(?P<ext>[a-z]{3,4})")  # as the store keeps it
LIBRARY_PATH = re.compile(r"/media/(?P<id>[0-9a-f]{32})\.(?P<ext>jpg|png|gif|webp|pdf)")
PATTERN = r"^(?:media:[0-9a-f]{32}$|[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#@\\])"
DESCRIPTION = (
    "An item of the caller's media library, as media:<id> or as its URL (any address ending "
    "in /media/<id>.<ext>: it is kept by id and shown at the service's current address), or "
    "any other absolute http(s) URL, kept as written. " + urls.DESCRIPTION
)


def check(value):
    """marshmallow validator: `media:<id>`, or a URL the service accepts."""
    if value[:6].lower() == "media:":
        if not REFERENCE.fullmatch(value):
            raise ValidationError(
                "A media of the library is named media:<its id> (32 hex digits), or by its URL."
            )
        return
    urls.check(value)


def library_id(entry):
    """(id, whether it must be the caller's) of the library media `entry`
    may name: `media:<id>` must be; a URL ending in `/media/<id>.<ext>`
    (no query or fragment) may be. (None, False) for any other URL."""
    found = REFERENCE.fullmatch(entry)
    if found:
        return found["id"], True
    url = ada_url.parse_url(entry)
    if url["search"] or url["hash"]:
        return None, False
    found = LIBRARY_PATH.search(url["pathname"])
    if found and found.end() == len(url["pathname"]):
        return found["id"], False
    return None, False


def stored(media_id, ext):
    """How a post keeps a reference to library media."""
    return f"media:{media_id}.{ext}"


def stored_id(entry):
    """The media id of a kept reference, or None for a URL kept as written."""
    found = STORED.fullmatch(entry)
    return found["id"] if found else None


def shown(entries, public_url=None):
    """A post's media as its record shows them: references as URLs under
    `public_url` (by default the address in force, PUBLIC_URL), other URLs
    as written."""
    if not any(entry.startswith("media:") for entry in entries):
        return entries
    base = (public_url or PUBLIC_URL.get()).rstrip("/")
    return [f"{base}/media/{entry[6:]}" if STORED.fullmatch(entry) else entry for entry in entries]


def extension(url):
    """The lower-case extension of a URL's last path segment, or None."""
    last = ada_url.parse_url(url)["pathname"].rsplit("/", 1)[-1]
    name, dot, ext = last.rpartition(".")
    return ext.lower() if dot and name and ext.isalnum() else None
