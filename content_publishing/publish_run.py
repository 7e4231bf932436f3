"""One post's publish plan run by the service's own publisher (publisher.py):
the uploads, the post, then the steps after it (its first comment), with
the channel's token (publish_plan.py says what the plan holds).

    uploads   POST initialize, PUT the bytes to the uploadUrl it answers, and
              {{ref}} becomes the image's or document's URN. Nothing is posted
              yet: a failure gives the post back (429, LinkedIn away, an
              unknown answer: tried again later) or fails it (a refusal, bytes
              that are not what the plan says), "Nothing was posted".
    the post  sent once, after the handoff is marked sending (publisher.py
              judges LinkedIn's answer); {{post_urn}} is its x-restli-id.
    after     the first comment: its URN, or why it failed, is kept on the
              Published post (history `commented` or `comment_failed`).

A 401 anywhere is refreshed once (Token): nothing LinkedIn refuses with a
401 was created, so the one retry is safe.

Library media are read from the store (with the PNG rendition of a WebP
made if it is not yet); a medium named by URL is fetched under the
webhooks' SSRF guard. Its size and SHA-256 are checked against the plan's.
"""

import hashlib
import json
from urllib.parse import quote, unquote, urlsplit

from content_publishing import connections, media, timestamps
from content_publishing.linkedin_api import LinkedInError
from content_publishing.schemas import media_refs
from content_publishing.store import media as media_store
from content_publishing.store.db import transaction


class Expired(Exception):
    """The connection's token was refused, and a refresh could not replace it."""


class NothingPosted(Exception):
    """An upload went wrong: the post was not sent. `give_back`: try it again
    later (LinkedIn asked to wait, was away, or its answer is unknown)."""

    def __init__(self, message, give_back=False, retry_after=None):
        super().__init__(message)
        self.message, self.give_back, self.retry_after = message, give_back, retry_after


class Token:
    """The channel's access token for one post: refreshed once, on the first 401."""

    def __init__(self, publisher, workspace_id, channel_id, connection, value):
        self.publisher, self.workspace_id, self.channel_id = publisher, workspace_id, channel_id
        self.connection, self.value = connection, value
        self.refreshed = False

    def use(self, call):
        try:
            return call(self.value)
        except LinkedInError as error:
            if error.status != 401:
                raise
            if self.refreshed:
                raise Expired from None
            self.refreshed = True
            fresh = self.publisher.refreshed_token(
                self.workspace_id, self.channel_id, self.connection
            )
            if fresh is None:
                raise Expired from None
            self.value = fresh
        try:
            return call(self.value)
        except LinkedInError as error:
            if error.status == 401:
                raise Expired from None
            raise


def upload_all(api, token, plan, fetch, limit):
    """Every upload of the plan done; {ref: URN}. NothingPosted otherwise."""
    urns = {}
    for upload in plan["uploads"]:
        what = f"{upload['kind']} {upload['source']}"
        try:
            _, _, answer = token.use(lambda t, step=upload["initialize"]: api.send(t, step))
            value = (answer or {}).get("value") or {}
            urn = value.get("image") or value.get("document")
            if not value.get("uploadUrl") or not urn:
                raise NothingPosted(
                    f"Nothing was posted: LinkedIn's initializeUpload for {what} "
                    "named no upload URL or URN."
                )
            data = _bytes(upload, fetch, limit)
            put = (value["uploadUrl"], data, upload["content_type"])
            token.use(lambda t, put=put: api.put_bytes(t, *put))
        except LinkedInError as error:
            raise _not_posted(error, what) from None
        urns[upload["ref"]] = urn
    return urns


def _not_posted(error, what):
    if error.status == 429 or not error.sent or error.unknown_outcome:
        return NothingPosted(
            f"uploading the {what}: {error.message}", give_back=True, retry_after=error.retry_after
        )
    return NothingPosted(f"Nothing was posted: LinkedIn refused the {what}. {error.message}")


def _bytes(upload, fetch, limit):
    """The bytes of an upload's source, as the plan describes them."""
    source = upload["source"]
    found = media_refs.LIBRARY_PATH.fullmatch(urlsplit(source).path or "")
    data = _library_bytes(found["id"], found["ext"]) if found else None
    if data is None:
        try:
            data, _ = fetch(source, limit)
        except ValueError as error:
            raise NothingPosted(
                f"Nothing was posted: the {upload['kind']} could not be fetched ({error})."
            ) from None
    if upload.get("bytes") is not None and len(data) != upload["bytes"]:
        raise NothingPosted(
            f"Nothing was posted: {source} is {len(data)} bytes, not the {upload['bytes']} the "
            "plan says."
        )
    if upload.get("sha256") and hashlib.sha256(data).hexdigest() != upload["sha256"]:
        raise NothingPosted(
            f"Nothing was posted: {source} is not the file the plan names (its SHA-256 differs)."
        )
    return data


def _library_bytes(media_id, ext):
    """A library medium's file (or its PNG rendition, made if need be); None
    if the library has no such file."""
    record = media_store.get_file(media_id, ext)
    if record is None and ext == "png":
        webp = media_store.get_file(media_id, "webp")
        fields = webp and media.rendition(bytes(webp["data"]))
        if fields:
            with transaction():
                media.keep_rendition(media_id, fields, timestamps.now_text())
            record = media_store.get_file(media_id, "png")
    return bytes(record["data"]) if record else None


def filled(step, refs):
    """The step with each {{ref}} replaced: percent-encoded in its URL, as it
    is in a body or a header (LinkedIn takes a URN in a path only encoded)."""
    url, rest = step.get("url", ""), {k: v for k, v in step.items() if k != "url"}
    text = json.dumps(rest, ensure_ascii=False)
    for ref, urn in refs.items():
        url = url.replace("{{" + ref + "}}", quote(urn, safe=""))
        text = text.replace("{{" + ref + "}}", urn.replace("\\", "\\\\").replace('"', '\\"'))
    return {**json.loads(text), "url": url} if "url" in step else json.loads(text)


def comment_urn(headers, answer):
    """The first comment's URN, from LinkedIn's answer."""
    if isinstance(answer, dict) and answer.get("commentUrn"):
        return answer["commentUrn"]
    found = headers.get("x-restli-id")
    return unquote(found) if found else None


def run_after(api, token, plan, post_urn):
    """The steps after the post (its first comment): {"first_comment_urn"} or
    {"first_comment_error"} of the first comment; {} when there is none."""
    outcome = {}
    for step in plan["after"]:
        try:
            _, headers, answer = token.use(
                lambda t, s=filled(step, {"post_urn": post_urn}): api.send(t, s)
            )
        except (LinkedInError, Expired) as error:
            message = (
                error.message if isinstance(error, LinkedInError) else connections.EXPIRED_ERROR
            )
            if step.get("ref") == "first_comment":
                outcome = {"first_comment_error": message[:1000]}
            continue
        if step.get("ref") == "first_comment":
            urn = comment_urn(headers, answer)
            outcome = (
                {"first_comment_urn": urn}
                if urn
                else {"first_comment_error": "LinkedIn answered without the comment's URN"}
            )
    return outcome
