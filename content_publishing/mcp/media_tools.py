"""upload_media: an image or a PDF into the workspace's media library, from
a URL (fetched by this server, guarded: fetch.py) or from base64 bytes,
with its alt text. The service checks and cleans the file as for any
upload; this side only finds the bytes and says what type they are."""

import binascii
import re
from typing import Annotated

from mcp.server.fastmcp import Context
from pydantic import Field

from content_publishing.mcp.calls import caller, segment
from content_publishing.mcp.errors import invalid
from content_publishing.mcp.fetch import fetch
from content_publishing.mcp.shapes import Media

TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf")
SIGNATURES = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)
DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?(;[^,]*)?;base64,", re.I)


def sniffed(data):
    """The type the first bytes say, or None."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for magic, kind in SIGNATURES if data.startswith(magic)), None)


def decoded(text):
    """Base64 (or a data: URL of it) as bytes, and the type the URL names."""
    text = text.strip()
    declared = None
    prefix = DATA_URL.match(text)
    if prefix:
        declared, text = prefix.group(1), text[prefix.end() :]
    try:
        return binascii.a2b_base64("".join(text.split()), strict_mode=True), declared
    except binascii.Error:
        raise invalid({"base64": ["Not base64: give the file's bytes in base64."]}) from None


async def upload_media(
    ctx: Context,
    url: Annotated[
        str | None,
        Field(description="An http(s) URL of the image or PDF, fetched by this server."),
    ] = None,
    base64: Annotated[
        str | None,
        Field(description="Or the file itself in base64 (a data: URL is fine)."),
    ] = None,
    alt_text: Annotated[
        str | None,
        Field(
            description="What the image shows, for people who cannot see it (up to 4,086 "
            "characters): used by every post that takes the image without its own."
        ),
    ] = None,
) -> Media:
    """Add an image (JPEG, PNG, GIF, WebP; 20 MiB at most, over 11 give `url`) or a PDF document
    to the workspace's media library, with its alt text; give `url` or
    `base64`. Put the answer's `id` in create_draft's media_ids. The same
    file uploaded twice is one medium."""
    if (url is None) == (base64 is None):
        raise invalid({"url": ["Give url or base64, one of them."]})
    if url is not None:
        found = await fetch(url, ctx.fastmcp.settings_fetch_private)
        data, declared = found.data, found.content_type
    else:
        data, declared = decoded(base64)
    content_type = declared if declared in TYPES else sniffed(data) or declared or "unknown"
    api = caller(ctx)
    record = (await api.upload("/media", data, content_type)).data
    if alt_text is not None and alt_text != record.get("alt_text"):
        path = "/media-item/" + segment(record["id"])
        version = f'"{record["version"]}"'
        record = (await api.send("PATCH", path, {"alt_text": alt_text}, if_match=version)).data
    return {**record, "ref": f"media:{record['id']}"}


TOOLS = [upload_media]
