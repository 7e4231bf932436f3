"""The service's HTTP API, as this server calls it: one request per call,
with the caller's key, and the answer or the API's error envelope.

The key goes in the Authorization header of each request and nowhere else:
no log line holds a header, a query string or a body, only the method, the
path, the status and the service's request id (which is what a person
quotes when asking why a call was refused).
"""

import json
import logging
import time

import httpx

from content_publishing.mcp.errors import ToolFailure

log = logging.getLogger("content_publishing.mcp")
TIMEOUT = httpx.Timeout(30.0, connect=10.0)


class Answer:
    """A 2xx answer: its JSON body (None when empty) and ETag."""

    def __init__(self, status, data, etag):
        self.status, self.data, self.etag = status, data, etag


class Api:
    """Requests to the service at `api_url` (settings.Settings.api_url)."""

    def __init__(self, api_url, transport=None):
        self.api_url = api_url
        # No redirects: a key is never sent anywhere but the service.
        self.http = httpx.AsyncClient(
            timeout=TIMEOUT, follow_redirects=False, transport=transport, trust_env=False
        )

    async def close(self):
        await self.http.aclose()

    async def call(self, key, method, path, *, query=None, body=None, data=None, headers=None):
        """`path` under /functions/v1; `body` sent as JSON, or `data` (bytes)
        as is with the Content-Type in `headers`. Raises ToolFailure with the
        API's code and message for anything but a 2xx."""
        if not key:
            raise ToolFailure(
                "unauthorized",
                "No API key: set CPS_API_KEY (stdio), or send Authorization: Bearer <key> (HTTP).",
            )
        sent = {"Authorization": f"Bearer {key}", **(headers or {})}
        params = {name: value for name, value in (query or {}).items() if value is not None}
        started = time.monotonic()
        try:
            response = await self.http.request(
                method,
                self.api_url + path,
                params=params,
                json=body,
                content=data,
                headers=sent,
            )
        except httpx.HTTPError as error:
            log.warning("%s %s: no answer (%s)", method, path, type(error).__name__)
            raise ToolFailure(
                "service_unreachable",
                f"The service at {self.api_url} did not answer ({type(error).__name__}); "
                "try again later.",
            ) from None
        log.info(
            "%s %s -> %s in %.0f ms (request %s)",
            method,
            path,
            response.status_code,
            (time.monotonic() - started) * 1000,
            response.headers.get("x-request-id", "-"),
        )
        return _answer(response)


def _answer(response):
    try:
        parsed = response.json() if response.content else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        parsed = None
    if response.is_success:
        return Answer(response.status_code, parsed, response.headers.get("etag"))
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and "code" in error:
        raise ToolFailure(
            error["code"],
            error.get("message", ""),
            error.get("details") or {},
            response.status_code,
        )
    raise ToolFailure(
        "unexpected_answer",
        f"The service answered {response.status_code} without its error envelope (a proxy in "
        "front of it, or the wrong CPS_BASE_URL).",
        status=response.status_code,
    )
