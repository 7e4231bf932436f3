"""Fetching a medium that upload_media is given by URL, guarded.

The URL comes from a model, which may have read it anywhere, so it is a
request this server makes on someone else's word: it is fetched only from
a public address (unless CPS_FETCH_ALLOW_PRIVATE=1), with the address
checked after the name is resolved and the connection made to that same
address (no second lookup that could answer otherwise), each redirect
checked again, and the body capped. No key is sent.
"""

import ipaddress
import socket

import anyio
import httpx

from content_publishing.mcp.errors import ToolFailure, invalid

MAX_BYTES = 100 * 1024 * 1024  # the service's own cap, a PDF's (FLASK_MEDIA_MAX_DOCUMENT_BYTES)
MAX_REDIRECTS = 5
TIMEOUT = httpx.Timeout(30.0, connect=10.0)


class Fetched:
    def __init__(self, data, content_type):
        self.data, self.content_type = data, content_type


async def fetch(url, allow_private=False):
    """GET `url`: its bytes and Content-Type, or a ToolFailure saying why not."""
    async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False, trust_env=False) as http:
        for _ in range(MAX_REDIRECTS + 1):
            target = _checked(url)
            address = await _public_address(target, allow_private)
            response = await _get(http, target, address)
            if response.is_redirect:
                url = str(target.join(response.headers["location"]))
                await response.aclose()
                continue
            return await _body(response)
    raise ToolFailure("fetch_failed", f"More than {MAX_REDIRECTS} redirects from the URL.")


def _checked(url):
    try:
        target = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise invalid({"url": ["Not a URL."]}) from None
    if target.scheme not in ("http", "https") or not target.host:
        raise invalid({"url": ["Give an http(s) URL."]})
    if target.userinfo:
        raise invalid({"url": ["A URL with a user name or password is not fetched."]})
    return target


async def _public_address(target, allow_private):
    """The address to connect to: the first the name resolves to, each of
    them checked (a name with one private address among public ones is
    refused, since another lookup could pick that one)."""
    port = target.port or (443 if target.scheme == "https" else 80)
    try:
        found = await anyio.getaddrinfo(target.host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise ToolFailure("fetch_failed", f"The name {target.host} does not resolve.") from None
    addresses = [ipaddress.ip_address(entry[4][0]) for entry in found]
    for address in addresses:
        if not (address.is_global or allow_private):
            raise ToolFailure(
                "url_not_allowed",
                f"{target.host} is at {address}, a loopback, private or reserved address: this "
                "server fetches media from public addresses only (CPS_FETCH_ALLOW_PRIVATE=1 "
                "allows others).",
                {"url": target.host},
            )
    return addresses[0]


async def _get(http, target, address):
    host_header = target.netloc.decode("ascii")
    request = http.build_request(
        "GET",
        target.copy_with(host=str(address)),
        headers={"Host": host_header, "Accept": "image/*, application/pdf"},
        extensions={"sni_hostname": target.host} if target.scheme == "https" else {},
    )
    try:
        return await http.send(request, stream=True)
    except httpx.HTTPError as error:
        raise ToolFailure(
            "fetch_failed", f"Could not fetch the URL ({type(error).__name__})."
        ) from None


async def _body(response):
    try:
        if response.status_code != 200:
            raise ToolFailure("fetch_failed", f"The URL answered {response.status_code}, not 200.")
        data = bytearray()
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > MAX_BYTES:
                raise ToolFailure(
                    "payload_too_large", f"The file at the URL is over {MAX_BYTES} bytes."
                )
    finally:
        await response.aclose()
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    return Fetched(bytes(data), content_type)
