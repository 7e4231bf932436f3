"""The media library.

POST   /functions/v1/media             upload an image or a PDF (posts:write)
GET    /functions/v1/media             list the caller's media, newest first (posts:read)
GET    /functions/v1/media-item/{id}   read one (posts:read)
PATCH  /functions/v1/media-item/{id}   its alt text, If-Match its version (posts:write; its
                                       uploader, or an editor or higher)
DELETE /functions/v1/media-item/{id}   delete one; 409 while a planned post names it (posts:write)
GET    /media/{id}.{ext}               the file itself, without a key (FLASK_MEDIA_PUBLIC=0: the
                                       owner's key with posts:read); a WebP's PNG rendition at
                                       /media/{id}.png

The upload's body is the file itself, so it is not declared as a JSON
requestBody: generated clients would refuse an image/* one.
"""

import io
import re

from flask import Blueprint, current_app, g, request, send_file

from content_publishing import auth, timestamps
from content_publishing.auth import require_scope
from content_publishing.errors import not_found
from content_publishing.http.apidoc import doc
from content_publishing.http.common import (
    check_if_match,
    lead_seconds,
    page_body,
    render,
    with_etag,
)
from content_publishing.media import library
from content_publishing.schemas.media import (
    media_list_query_schema,
    media_page_schema,
    media_schema,
    media_update_schema,
)
from content_publishing.store import media as media_store
from content_publishing.store.db import snapshot, transaction

bp = Blueprint("media", __name__)
files = Blueprint("media_files", __name__)
MEDIA_ID = re.compile(r"[0-9a-f]{32}")
YEAR = 365 * 24 * 3600
# A served image is inert: nothing in it may run or load, and no browser may
# take it for another type.
FILE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'",
}


def media_url(record):
    return f"{current_app.config['PUBLIC_URL'].rstrip('/')}/media/{record['id']}.{record['ext']}"


def shown(record):
    return render(media_schema, {**record, "url": media_url(record)})


@bp.post("/media")
@doc(
    "Upload an image or a PDF document to the media library",
    response=media_schema,
    status=201,
    errors=[413, 415],
    description="The body is the file itself. An image: Content-Type image/jpeg, image/png, "
    "image/gif or image/webp, at most FLASK_MEDIA_MAX_BYTES (20 MiB; 413 over it). It is "
    "decoded: a body that is not an image of that type, or is cut off, is a 400, and so is one "
    "over the caps, read from its header before anything is decoded: more than 250 frames, or "
    "more than 36 million pixels in all its frames together (frames x width x height; a WebP: "
    "16,777,216). EXIF (with GPS), XMP and comments are stripped, a JPEG turned upright by its "
    "EXIF orientation first; a multi-picture JPEG (MPO) keeps its first picture. A still "
    "image is stored within 5 MiB and no larger than its upload (but a few headers): written "
    "at lower qualities, then scaled down (a JPEG of up to 16 times the pixel cap is decoded "
    "at 1/2 or 1/4 of its size); an animation over 5 MiB is a 400. A WebP also "
    "gets a PNG rendition, at /media/<id>.png, which LinkedIn is handed. A document: "
    "Content-Type application/pdf, at most FLASK_MEDIA_MAX_DOCUMENT_BYTES (100 MiB) and 300 "
    "pages; it is read whole, and an encrypted, damaged or empty PDF, or one with a JavaScript "
    "or Launch action, an XFA script or an embedded file that runs a script (an embedded PDF is "
    "checked as the upload is), is a 400 saying which; its document information (author, producer, "
    "dates) and XMP metadata are removed. `bytes` and `sha256` describe the stored file. The "
    "same bytes uploaded again answer the same media with 200. Put `url` (or media:<id>) in a "
    "post's media_urls.",
)
@require_scope("posts:write")
def upload_media():
    """The earlier upload of the same bytes is looked for first (its read
    also confirms the key), then the image is decoded with no transaction
    open (media.py says why), then stored."""
    library.check_type(request.mimetype)  # before the body is read: a 415 reads none of it
    data = request.get_data(cache=False)
    with snapshot():
        record = library.earlier(g.workspace_id, data, request.mimetype)
    if record is not None:
        return shown(record), 200
    fields = library.clean(data, request.mimetype)
    with transaction():
        record, created = library.store(g.workspace_id, fields, timestamps.now_text(), g.member_id)
    return shown(record), 201 if created else 200


@bp.get("/media")
@doc("List the caller's media", query=media_list_query_schema, response=media_page_schema)
@require_scope("posts:read")
def list_media(query):
    with snapshot():
        page = media_store.list_media(g.workspace_id, query)
    return page_body(media_schema, page, query, [{**r, "url": media_url(r)} for r in page.rows])


def owned(fetch, media_id):
    """The caller's media through `fetch(workspace_id, id)`, or a 404 (another
    workspace's, or an id that is no media's)."""
    record = MEDIA_ID.fullmatch(media_id) and fetch(g.workspace_id, media_id)
    if not record:
        raise not_found("media")
    return record


@bp.get("/media-item/<media_id>")
@doc("Get one media", response=media_schema, errors=[404], headers=["ETag"])
@require_scope("posts:read")
def get_media_item(media_id):
    record = owned(media_store.get_media, media_id)
    return with_etag(shown(record), record)


@bp.patch("/media-item/<media_id>")
@doc(
    "Set a media's alt text",
    body=media_update_schema,
    response=media_schema,
    errors=[404, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="alt_text: what the image shows, at most 4,086 characters (LinkedIn's limit), "
    "null for none. A post's images are handed to LinkedIn with it unless the post gives its "
    "own (media_alt); a post that is already handed over keeps what it was given. Whoever "
    "uploaded the media changes it, or an editor or higher (403 forbidden otherwise). A post "
    "under review or approved that takes this alt text loses its approval, as an edit of it "
    "would: back to Draft.",
)
@require_scope("posts:write")
def update_media_item(media_id, body):
    lead = lead_seconds()
    with transaction():
        now = timestamps.now_text()
        using = (
            library.lock_posts_taking(g.workspace_id, media_id)
            if MEDIA_ID.fullmatch(media_id)
            else []
        )
        record = owned(media_store.lock_media, media_id)
        check_if_match(record)
        if "alt_text" in body:
            record = library.set_alt_text(
                g.workspace_id, record, body["alt_text"], g.scopes, using, lead, now, g.actor
            )
    return with_etag(shown(record), record)


@bp.delete("/media-item/<media_id>")
@doc(
    "Delete a media",
    status=204,
    errors=[404, 409],
    description="Gone for good, and its URL with it; a 409 while one of the caller's Scheduled or "
    "Publishing posts names it (`details.post_ids`), whatever address the post was given it by.",
)
@require_scope("posts:write", role="editor")
def delete_media_item(media_id):
    with transaction():
        library.delete(g.workspace_id, owned(media_store.lock_media, media_id))
    return "", 204


@files.get("/media/<media_id>.<ext>")
def media_file(media_id, ext):
    """Range and If-None-Match through send_file (conditional), the Range
    read first as RFC 9110 asks (read_range); an id, or an extension, that
    is neither the media's own nor its PNG rendition's is a 404."""
    record = MEDIA_ID.fullmatch(media_id) and media_store.get_file(media_id, ext)
    if not record and ext == "png":
        record = _made_rendition(media_id)
    if not record:
        raise not_found("media")
    if not current_app.config["MEDIA_PUBLIC"]:
        auth.authenticate()
        auth.ensure_scope("posts:read")
        if g.workspace_id != record["workspace_id"]:
            raise not_found("media")
    read_range(request.environ, len(record["data"]))
    response = send_file(
        io_of(record["data"]),
        mimetype=record["content_type"],
        conditional=True,
        etag=record["sha256"],
        max_age=YEAR,
        last_modified=None,
    )
    response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    if not current_app.config["MEDIA_PUBLIC"]:
        response.headers["Cache-Control"] = f"private, max-age={YEAR}, immutable"
    response.headers.update(FILE_HEADERS)
    return response


def _made_rendition(media_id):
    """The PNG rendition of a WebP stored before renditions were made at
    upload: made now, outside any transaction, kept, and served (None if
    the id is no WebP's)."""
    webp = media_store.get_file(media_id, "webp")
    fields = webp and library.rendition(bytes(webp["data"]))
    if not fields:
        return None
    with transaction():
        library.keep_rendition(media_id, fields, timestamps.now_text())
    return media_store.get_file(media_id, "png")


# One byte range: `bytes=first-last`, `bytes=first-` or `bytes=-suffix`. A
# number of more than 18 digits is past any file, and past what int() should read.
ONE_RANGE = re.compile(r"bytes=(\d{0,18})-(\d{0,18})", re.IGNORECASE)


def read_range(environ, length):
    """The request's Range as werkzeug then answers it (RFC 9110, section 14):
    a suffix longer than the file is the whole file (206); an end past the
    file ends with it (werkzeug); a start past the end is a 416. Several
    ranges, another unit, or a range that cannot be read (`bytes=5-2`) are
    ignored, as a server may: the whole file, 200. (werkzeug would answer
    416 to all of these.) `bytes=-0` asks for no byte at all: a 416.
    """
    header = environ.get("HTTP_RANGE")
    if header is None:
        return
    found = ONE_RANGE.fullmatch(header.strip(" \t"))
    first, last = found.groups() if found else ("", "")
    if not (first or last) or (first and last and int(last) < int(first)):
        del environ["HTTP_RANGE"]
    elif not first and int(last) >= length:
        environ["HTTP_RANGE"] = "bytes=0-"


def io_of(data):
    return io.BytesIO(bytes(data))  # psycopg may give a memoryview
