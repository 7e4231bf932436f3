"""A stand-in for LinkedIn's Posts API (`POST /rest/posts`) on 127.0.0.1.

What an automation sends to LinkedIn is checked the way LinkedIn checks it,
so that a workflow proven against the stand-in sends what LinkedIn takes:

- the headers: `Authorization: Bearer <token>` (401 otherwise),
  `LinkedIn-Version` of six digits, `X-Restli-Protocol-Version: 2.0.0` and a
  JSON `Content-Type` (400 otherwise);
- the body's shape: `author` a person or organization URN, `commentary` a
  string, `visibility`, `distribution`, `lifecycleState` and no field the
  Posts API does not know (422, as LinkedIn answers);
- `commentary` in LinkedIn's "little" text format: a reserved character
  (``\\ | { } @ [ ] ( ) < > # * _ ~``) must be escaped with a backslash,
  except in a mention `@[Name](urn:li:person:ID)` (at the start, after white
  space or after an opening bracket or quote), a hashtag (`#` at the start
  or after white space, then a letter or digit) and an http(s) URL.
  LinkedIn itself answers 201 and publishes the post cut off at such a
  character; the stand-in refuses it with a 422 so that a test sees it. A
  URL is read narrowly, so that nothing passes here that LinkedIn might
  not read as part of a link: it starts after the start or a character
  that is not a letter, digit or `_`, has a letter or digit after `//`, and
  runs over the ASCII characters RFC 3986 allows unescaped but `[ ]`;
  parentheses count only in balanced pairs, and punctuation and quotes at
  its end are not part of it;
- `commentary` at most 3,000 characters, counted in UTF-16 code units (422
  otherwise).

The check is written here on its own, not taken from the service's escaper
(content_publishing/linkedin.py), so that it can catch that escaper's bugs.

A post that passes gets 201 with `x-restli-id: urn:li:share:<n>` and an
empty body, as LinkedIn answers. `fail_on(text, status, message)` makes
every post whose commentary contains `text` fail with that answer instead;
`drop_on(text)` closes the connection on such a post without an answer.
Every request is recorded in `received` (`created` holds the posts made).
"""

import json
import re
import socket
import threading
import unicodedata

from harness.loopback import LoopbackServer, QuietHandler
from harness.server import free_port

RESERVED = frozenset("\\|{}@[]()<>#*_~")
KNOWN_FIELDS = {
    "author",
    "commentary",
    "visibility",
    "distribution",
    "lifecycleState",
    "isReshareDisabledByAuthor",
    "content",
    "contentLandingPage",
    "contentCallToActionLabel",
    "reshareContext",
    "container",
    "adContext",
}
_MENTION = re.compile(
    r"@\[(?P<name>(?:\\.|[^\]\\\n])*)\]\(urn:li:(?:person|organization):[A-Za-z0-9_-]+\)"
)
_URL_CHARACTERS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#@!$&'()*+,;=%"
)
COMMENTARY_LIMIT = 3000
_AUTHOR = re.compile(r"urn:li:(?:person|organization):[A-Za-z0-9_-]+")


def unescaped_reserved(text):
    """The first reserved character of `text` that is neither escaped nor
    part of a mention, hashtag or URL, as (index, character); None if none."""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 < len(text) and text[i + 1] in RESERVED:
                i += 2
                continue
            return i, c
        url = url_length(text, i)
        if url:
            i += url
            continue
        if c == "@" and _may_open(text, i) and (mention := _MENTION.match(text, i)):
            inner = unescaped_reserved(mention["name"])
            if inner is not None:
                return mention.start("name") + inner[0], inner[1]
            i = mention.end()
            continue
        if (
            c == "#"
            and (i == 0 or text[i - 1].isspace())
            and i + 1 < len(text)
            and text[i + 1].isalnum()
        ):
            i += 1
            continue
        if c in RESERVED:
            return i, c
        i += 1
    return None


def _may_open(text, i):
    """A mention is read only where one can begin: the start, after white
    space, or after an opening bracket or quote; glued to a word or a URL
    (`x@[...`, `http://@[...`) LinkedIn may not read it as one."""
    if i == 0 or text[i - 1].isspace() or text[i - 1] in "\"'":
        return True
    return unicodedata.category(text[i - 1]) in ("Ps", "Pi")  # ( [ { « “ 「 ...


def url_length(text, i):
    """How many characters of `text` from `i` are a URL (0: none there)."""
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        return 0
    scheme = next((s for s in ("http://", "https://") if text[i : i + len(s)].lower() == s), None)
    if scheme is None:
        return 0
    start = i + len(scheme)
    if start >= len(text) or not (text[start].isascii() and text[start].isalnum()):
        return 0
    end, depth, first_open = start, 0, None
    while end < len(text) and text[end] in _URL_CHARACTERS and text[end] not in "[]":
        if text[end] == "(":
            if depth == 0:
                first_open = end
            depth += 1
        elif text[end] == ")":
            if depth == 0:
                break
            depth -= 1
        end += 1
    if depth:  # a ( never closed: the URL ends before it
        end = first_open
    while text[end - 1] in ".,:;!?'\"":
        end -= 1
    return end - i


class Received:
    """One request as it arrived, and what the stand-in answered."""

    def __init__(self, method, path, headers, raw):
        self.method, self.path, self.raw = method, path, raw
        self.headers = {k.lower(): v for k, v in headers.items()}
        try:
            self.body = json.loads(raw)
        except ValueError:
            self.body = None
        self.status = None
        self.urn = None
        self.error = None

    @property
    def commentary(self):
        return self.body.get("commentary") if isinstance(self.body, dict) else None

    def __repr__(self):
        return f"<{self.method} {self.path} {self.status} {self.urn or self.error!r}>"


class LinkedInStandIn(LoopbackServer):
    """`with LinkedInStandIn(token) as linkedin:`; `linkedin.url` is the API
    base (FLASK_LINKEDIN_API_BASE); `received`, `created`."""

    def __init__(self, token, port=None):
        self.token = token
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.received = []
        self.failures = []  # (text, status, message)
        self.drops = []  # texts
        self.lock = threading.Lock()
        self._next = 7_100_000_000_000_000_000

    def fail_on(self, text, status=422, message=None):
        """Answer `status` with `message` to every post whose commentary holds `text`."""
        self.failures.append((text, status, message or f"The stand-in refuses posts with {text}"))

    def drop_on(self, text):
        """Close the connection, unanswered, on every post whose commentary holds `text`."""
        self.drops.append(text)

    @property
    def created(self):
        with self.lock:
            return [r for r in self.received if r.status == 201]

    def answer(self, received):
        """(status, headers, body) for one request."""
        if received.method != "POST" or received.path != "/rest/posts":
            return _error(404, "NOT_FOUND", f"No resource at {received.method} {received.path}")
        h = received.headers
        if h.get("authorization") != f"Bearer {self.token}":
            return _error(401, "INVALID_ACCESS_TOKEN", "Invalid access token")
        if not re.fullmatch(r"\d{6}", h.get("linkedin-version", "")):
            return _error(400, "VERSION_MISSING", "A version must be present in LinkedIn-Version")
        if h.get("x-restli-protocol-version") != "2.0.0":
            return _error(400, "BAD_REQUEST", "X-Restli-Protocol-Version must be 2.0.0")
        if h.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return _error(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json")
        problem = body_problem(received.body)
        if problem:
            return _error(422, "UNPROCESSABLE_ENTITY", problem)
        for text, status, message in self.failures:
            if text in received.commentary:
                return _error(status, "STAND_IN_FAILURE", message)
        with self.lock:
            self._next += 1
            urn = f"urn:li:share:{self._next}"
        return 201, {"x-restli-id": urn, "x-linkedin-id": urn}, b""

    def start(self):
        standin = self

        class Handler(QuietHandler):
            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", errors="replace")
                received = Received(self.command, self.path, dict(self.headers), raw)
                if any(text in (received.commentary or "") for text in standin.drops):
                    received.error = "dropped"
                    with standin.lock:
                        standin.received.append(received)
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status, headers, body = standin.answer(received)
                received.status = status
                received.urn = headers.get("x-restli-id")
                if status >= 400:
                    received.error = json.loads(body)["message"]
                with standin.lock:
                    standin.received.append(received)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if body:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = handle_any

        return self.serve(Handler)


def body_problem(body):
    """What LinkedIn would refuse in a Posts API body, or None."""
    if not isinstance(body, dict):
        return "The request body is not a JSON object"
    unknown = sorted(set(body) - KNOWN_FIELDS)
    if unknown:
        return f"Unpermitted fields present in REQUEST_BODY: {', '.join(unknown)}"
    for field in ("author", "commentary", "visibility", "distribution", "lifecycleState"):
        if field not in body or body[field] is None:
            return f"Field Value validation failed in REQUEST_BODY: Data Processing Exception while processing fields [/{field}]"
    if not isinstance(body["author"], str) or not _AUTHOR.fullmatch(body["author"]):
        return f"/author: {body['author']!r} is not a person or organization URN"
    if not isinstance(body["commentary"], str):
        return "/commentary must be a string"
    if body["visibility"] not in {"PUBLIC", "CONNECTIONS", "LOGGED_IN", "CONTAINER"}:
        return f"/visibility: unknown value {body['visibility']!r}"
    if body["lifecycleState"] not in {"PUBLISHED", "DRAFT"}:
        return f"/lifecycleState: unknown value {body['lifecycleState']!r}"
    distribution = body["distribution"]
    if not isinstance(distribution, dict) or distribution.get("feedDistribution") not in {
        "MAIN_FEED",
        "NONE",
    }:
        return "/distribution/feedDistribution must be MAIN_FEED or NONE"
    units = len(body["commentary"].encode("utf-16-le")) // 2
    if units > COMMENTARY_LIMIT:
        return f"/commentary: {units} characters, more than {COMMENTARY_LIMIT}"
    found = unescaped_reserved(body["commentary"])
    if found:
        index, character = found
        return (
            f"/commentary: reserved character {character!r} at index {index} is not escaped "
            "(LinkedIn would cut the post off there)"
        )
    return None


def _error(status, code, message):
    body = json.dumps({"status": status, "code": code, "message": message}).encode()
    return status, {}, body
