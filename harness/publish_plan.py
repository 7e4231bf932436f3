"""Run a publish plan (`linkedin_request`) as an automation runs it, in
Python, against LinkedIn or its stand-in (harness/linkedin_standin.py), so
that a test proves the service's plans are what LinkedIn takes, kind by
kind, without n8n (tests/test_publish_plan.py; docs/linkedin.md gives the
contract):

1. each upload: POST `initialize`, PUT the bytes fetched from `source` to
   the answer's value.uploadUrl, then `{{<ref>}}` stands for the answer's
   value.image or value.document URN;
2. the post: POST `url` with `headers` and `body`, every placeholder
   filled; `{{post_urn}}` is then its x-restli-id;
3. each step of `after`, filled the same way.

In a URL a placeholder is filled percent-encoded, anywhere else as it is.
The automation's own `Authorization: Bearer <token>` goes with each request.
"""

import hashlib
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from harness.http_client import Client

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")


class PlanFailed(AssertionError):
    """A step of the plan was refused, or fetched bytes are not what it said."""


@dataclass
class Outcome:
    post_urn: str
    urns: dict  # ref -> URN of each upload
    steps: list = field(default_factory=list)  # (ref, status, body) of each step after the post


def fill(value, names, in_url=False):
    """`value` with every {{ref}} of `names` replaced (percent-encoded in a URL)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(
            lambda m: (
                (quote(names[m[1]], safe="") if in_url else names[m[1]]) if m[1] in names else m[0]
            ),
            value,
        )
    if isinstance(value, list):
        return [fill(item, names, in_url) for item in value]
    if isinstance(value, dict):
        return {key: fill(item, names, in_url) for key, item in value.items()}
    return value


def run(plan, token, fetch):
    """Run `plan` against the API its URLs name; `fetch(url)` -> the bytes
    of an upload's source. Returns the Outcome; raises PlanFailed at the
    first refusal, as an automation stops there (nothing is posted half)."""
    names, auth = {}, {"Authorization": f"Bearer {token}"}
    with Client(_origin(plan["url"]), timeout=30) as client:
        for upload in plan["uploads"]:
            names[upload["ref"]] = _upload(client, upload, auth, fetch)
        urns = dict(names)
        r = _send(client, plan["method"], fill(plan["url"], names, True), plan, names, auth)
        if r.status != 201 or "x-restli-id" not in r.headers:
            raise PlanFailed(f"the post was refused: {r.status} {r.text}")
        names["post_urn"] = r.headers["x-restli-id"]
        outcome = Outcome(names["post_urn"], urns)
        for step in plan["after"]:
            s = _send(client, step["method"], fill(step["url"], names, True), step, names, auth)
            outcome.steps.append((step["ref"], s.status, s.json))
    return outcome


def _origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _path(url):
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _send(client, method, url, request, names, auth):
    headers = {**fill(request["headers"], names), **auth}
    return client.request(method, _path(url), fill(request["body"], names), headers=headers)


def _upload(client, upload, auth, fetch):
    init = upload["initialize"]
    r = client.request(
        init["method"], _path(init["url"]), init["body"], headers={**init["headers"], **auth}
    )
    if r.status != 200:
        raise PlanFailed(f"{upload['ref']}: initializeUpload was refused: {r.status} {r.text}")
    value = r.json["value"]
    urn = value.get(upload["kind"])
    if not urn:
        raise PlanFailed(f"{upload['ref']}: the answer names no {upload['kind']} URN: {value}")
    data = fetch(upload["source"])
    if upload["bytes"] is not None and len(data) != upload["bytes"]:
        raise PlanFailed(f"{upload['ref']}: {len(data)} bytes fetched, not {upload['bytes']}")
    if upload["sha256"] is not None and hashlib.sha256(data).hexdigest() != upload["sha256"]:
        raise PlanFailed(f"{upload['ref']}: the bytes fetched are not the plan's SHA-256")
    headers = {**auth, "Content-Type": upload["content_type"] or "application/octet-stream"}
    put = client.request("PUT", _path(value["uploadUrl"]), data, headers=headers)
    if not 200 <= (put.status or 0) < 300:
        raise PlanFailed(f"{upload['ref']}: the bytes were refused: {put.status} {put.text}")
    return urn
