"""A stand-in for LinkedIn on 127.0.0.1: its sign-in (OAuth 2.0, the
authorize page, tokens, revoke: harness/linkedin_accounts.py), userinfo
and organizationAcls, and the Posts, Images, Documents and Comments APIs,
faithful to what the service and the publish plan use of them, so that
what is proven against it is what LinkedIn takes.

    POST /rest/images?action=initializeUpload      {"initializeUploadRequest": {"owner": urn}}
    POST /rest/documents?action=initializeUpload   the same
         -> 200 {"value": {"uploadUrlExpiresAt", "uploadUrl", "image" | "document"}}
    PUT  <uploadUrl>                               the bytes -> 201
    POST /rest/posts                               -> 201, x-restli-id: urn:li:share:<n>
    POST /rest/socialActions/<post URN, percent-encoded>/comments
         {"actor", "object", "message": {"text"}}  -> 201, the comment
    GET  /rest/posts?q=author&author=<URN>&count=N  the author's posts, newest first
    GET  /rest/organizationalEntityShareStatistics?q=organizationalEntity
         &organizationalEntity=<page URN>&shares=List(<URN>,...) (or ugcPosts=List(...))
         -> 200 {"elements": [{"share", "organizationalEntity", "totalShareStatistics"}]}
    GET  /rest/socialActions/<post URN, percent-encoded>
         -> 200 {"target", "likesSummary": {"totalLikes", ...}, "commentsSummary": {...}}

A request carries either the stand-in's own `token` (an automation's
credential, which may act as any author), or a token the sign-in issued:
that one may post and upload only as its member or a page they administer
(w_member_social, w_organization_social; 403 otherwise), and list an
author's posts only with r_member_social or r_organization_social. A
LinkedIn-Version that is not active is a 426 NONEXISTENT_VERSION.

What LinkedIn checks is checked (harness/linkedin_rules.py): the headers,
the body's fields, the escaping of `commentary` and of a comment's text.
A post's `content` may name only URNs the stand-in issued, for the post's
author (the upload's owner), whose bytes were PUT, and whose bytes are what
the kind says (a JPEG, PNG or GIF image; a PDF document): otherwise 422,
or 403 for another owner's upload, with a JSON body as LinkedIn's.

Behaviours a test asks for, each for the posts whose commentary holds a
text (`on`):

- `fail_on(on, status, message)`: that answer; nothing is created;
- `fail_after_create_on(on, status, message)`: the post is created, then
  that answer (a 5xx of LinkedIn's after the write: the outcome the caller
  cannot know);
- `rate_limit_on(on, retry_after, times)`: 429 with `Retry-After`, the
  first `times` times; nothing is created;
- `drop_on(on)`: the connection is closed unanswered; nothing is created;
- `delay_on(on, seconds)`: created, answered `seconds` later;
- `hold_on(on)`: created, then held unanswered until its Hold is
  released; `Hold.holding` is set while it holds (a test kills the
  client meanwhile);
- `refuse_uploads_for(owner, status, message)`: initializeUpload refused;
- `hold_upload()`: the next PUT of an upload's bytes is taken, then held
  unanswered until its Hold is released (a test kills the client before
  the post is sent);
- `fail_comment_on(on, status, message)`: a comment whose text holds `on`;
- `hold_comment_on(on)`: such a comment made, then held unanswered until
  its Hold is released (a test kills the client meanwhile);
- `set_figures(urn, impressions=, members_reached=, reactions=, comments=,
  reshares=, clicks=)`: what the two statistics endpoints answer for a post
  the stand-in holds (0 for what is not set); a page's statistics name only
  the page's own posts, and reading them needs r_organization_admin (or
  rw_organization_admin) on a page the member administers; a member's post's
  socialActions need r_member_social (the stand-in's own token reads all);
- `made_elsewhere(author, commentary, seconds_ago)`: a post made at
  LinkedIn without the service (that long ago), held as any other;
- `fail_statistics_for(urn, status, message, times)`: a statistics call
  naming `urn` gets that answer, the first `times` times (None: always).

Every request is recorded in `received`, in order (each with the time it
came and, once written, the time its answer went: `answered`); `created` are the posts
made (a held or delayed one as soon as it is made), `comments` the comments
made and `uploads` every upload by URN.
"""

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, unquote, urlsplit

from harness import linkedin_rules as rules
from harness.linkedin_accounts import Accounts, OAuthRefusal
from harness.linkedin_rules import unescaped_reserved, url_length  # noqa: F401 (the tests' names)
from harness.loopback import LoopbackServer, QuietHandler
from harness.server import free_port

SIGNATURES = {
    "image": (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a"),
    "document": (b"%PDF-",),
}
UPLOAD_URL_LIFETIME_MS = 24 * 3600 * 1000
FIGURES = ("impressions", "members_reached", "reactions", "comments", "reshares", "clicks")
LINKEDIN_FIELDS = {  # a figure: its field in totalShareStatistics
    "impressions": "impressionCount",
    "members_reached": "uniqueImpressionsCount",
    "reactions": "likeCount",
    "comments": "commentCount",
    "reshares": "shareCount",
    "clicks": "clickCount",
}


class Received:
    """One request as it arrived, and what the stand-in answered."""

    def __init__(self, method, path, headers, raw):
        self.method, self.raw = method, raw
        parts = urlsplit(path)
        self.path, self.query = parts.path, parts.query
        self.headers = {k.lower(): v for k, v in headers.items()}
        try:
            self.body = json.loads(raw)
        except ValueError:
            self.body = None
        self.status = None
        self.urn = None
        self.error = None
        self.at = time.monotonic()
        self.wall = time.time()  # to compare with the service's timestamps
        self.answered = None  # time.time() once its answer was written (bench/publisher.py)

    @property
    def commentary(self):
        return self.body.get("commentary") if isinstance(self.body, dict) else None

    @property
    def is_statistics(self):
        return self.method == "GET" and (
            self.path == "/rest/organizationalEntityShareStatistics"
            or self.path.startswith("/rest/socialActions/")
        )

    @property
    def is_post(self):
        return self.method == "POST" and self.path == "/rest/posts"

    def __repr__(self):
        return f"<{self.method} {self.path} {self.status} {self.urn or self.error!r}>"


@dataclass
class Upload:
    kind: str  # image or document
    urn: str
    owner: str
    token: str
    data: bytes | None = None
    content_type: str | None = None

    @property
    def ready(self):
        return self.data is not None

    @property
    def readable(self):
        return self.data is not None and self.data.startswith(SIGNATURES[self.kind])


class Hold:
    """A post held unanswered: `holding` is set once one is held; release()
    lets it be answered (to whoever still listens)."""

    def __init__(self, text):
        self.text = text
        self.holding = threading.Event()
        self.released = threading.Event()

    def release(self):
        self.released.set()


@dataclass
class Behaviours:
    failures: list = field(default_factory=list)  # (on, status, message)
    failures_after_create: list = field(default_factory=list)  # (on, status, message)
    rate_limits: list = field(default_factory=list)  # [on, retry_after, times left]
    drops: list = field(default_factory=list)
    delays: list = field(default_factory=list)  # (on, seconds)
    holds: list = field(default_factory=list)
    upload_refusals: dict = field(default_factory=dict)  # owner -> (status, message)
    comment_failures: list = field(default_factory=list)  # (on, status, message)
    statistics_failures: list = field(default_factory=list)  # [urn, status, message, times left]
    upload_holds: list = field(default_factory=list)  # each holds one PUT of bytes
    comment_holds: list = field(default_factory=list)


class Answer(Exception):
    """A refusal: raised by a route, answered by the handler."""

    def __init__(self, status, code, message, headers=None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}


class LinkedInStandIn(LoopbackServer):
    """`with LinkedInStandIn(token) as linkedin:`; `linkedin.url` is the API
    base (FLASK_LINKEDIN_API_BASE)."""

    def __init__(self, token=None, port=None):
        self.token = token
        self.accounts = Accounts()
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.received = []
        self.uploads = {}  # URN -> Upload
        self.comments = []  # (post URN, comment URN, body)
        self.posts = {}  # URN -> body
        self.made_at = {}  # URN -> milliseconds since the epoch
        self.figures = {}  # URN -> {impressions, members_reached, reactions, ...}
        self.on = Behaviours()
        self.lock = threading.Lock()
        self._next = 7_100_000_000_000_000_000

    # --- what a test asks for ---------------------------------------------------------

    def fail_on(self, text, status=422, message=None):
        self.on.failures.append(
            (text, status, message or f"The stand-in refuses posts with {text}")
        )

    def fail_after_create_on(self, text, status=500, message=None):
        self.on.failures_after_create.append((text, status, message or "Internal Server Error"))

    def rate_limit_on(self, text, retry_after=3, times=1):
        self.on.rate_limits.append([text, retry_after, times])

    def drop_on(self, text):
        self.on.drops.append(text)

    def delay_on(self, text, seconds):
        self.on.delays.append((text, seconds))

    def hold_on(self, text):
        hold = Hold(text)
        self.on.holds.append(hold)
        return hold

    def hold_upload(self):
        hold = Hold("the next upload")
        self.on.upload_holds.append(hold)
        return hold

    def refuse_uploads_for(self, owner, status=403, message=None):
        self.on.upload_refusals[owner] = (
            status,
            message or f"Not enough permissions to upload for {owner}",
        )

    def fail_comment_on(self, text, status=422, message=None):
        self.on.comment_failures.append(
            (text, status, message or f"The stand-in refuses comments with {text}")
        )

    def hold_comment_on(self, text):
        hold = Hold(text)
        self.on.comment_holds.append(hold)
        return hold

    def set_figures(self, urn, **figures):
        unknown = set(figures) - set(FIGURES)
        assert not unknown, f"not a figure: {unknown}"
        with self.lock:
            self.figures[urn] = {**self.figures.get(urn, {}), **figures}

    def made_elsewhere(self, author, commentary, seconds_ago=0):
        """A post the author made at LinkedIn without the service (an
        automation with its own token, say), `seconds_ago`; its URN."""
        urn = f"urn:li:share:{self._new_id()}"
        with self.lock:
            self.posts[urn] = {"author": author, "commentary": commentary}
            self.made_at[urn] = int((time.time() - seconds_ago) * 1000)
        return urn

    def fail_statistics_for(self, urn, status=500, message=None, times=1):
        self.on.statistics_failures.append(
            [urn, status, message or f"The stand-in refuses the statistics of {urn}", times]
        )

    # --- what it holds ----------------------------------------------------------------

    @property
    def created(self):
        with self.lock:
            return [r for r in self.received if r.is_post and r.status == 201]

    def posts_with(self, text):
        """Every POST /rest/posts whose commentary holds `text`, whatever it got."""
        with self.lock:
            return [r for r in self.received if r.is_post and text in (r.commentary or "")]

    def statistics_calls(self, urn=None):
        """Every statistics request (either endpoint), or those naming `urn`."""
        with self.lock:
            found = [r for r in self.received if r.is_statistics]
        return [r for r in found if urn is None or urn in unquote(r.path + "?" + r.query)]

    def _new_id(self):
        with self.lock:
            self._next += 1
            return self._next

    # --- the routes -------------------------------------------------------------------

    def route(self, received):
        """(status, headers, body) for one request, or raises Answer."""
        method, path = received.method, received.path
        if path.startswith("/oauth/v2/"):
            return self.sign_in(received)
        if method == "GET" and path == "/v2/userinfo":
            return 200, {}, self.accounts.userinfo(self._grant(received))
        if method == "GET" and path == "/rest/organizationAcls":
            grant = self._check_headers(received, json_body=False)
            return 200, {}, self.accounts.organization_acls(grant, received.query)
        if method == "GET" and path == "/rest/organizations":
            grant = self._check_headers(received, json_body=False)
            return 200, {}, self.accounts.organizations(grant, received.query)
        if method == "GET" and path == "/rest/posts":
            return self.list_posts(received)
        if method == "PUT" and path.startswith("/upload/"):
            return self.put_bytes(received)
        if method == "POST" and path in ("/rest/images", "/rest/documents"):
            return self.initialize(received, "image" if path == "/rest/images" else "document")
        if method == "POST" and path == "/rest/posts":
            return self.create_post(received)
        if method == "POST" and path.startswith("/rest/socialActions/"):
            return self.create_comment(received)
        if method == "GET" and path == "/rest/organizationalEntityShareStatistics":
            return self.share_statistics(received)
        if method == "GET" and path.startswith("/rest/socialActions/"):
            return self.social_actions(received)
        raise Answer(404, "NOT_FOUND", f"No resource at {method} {path}")

    def sign_in(self, received):
        method, path = received.method, received.path
        accounts = self.accounts
        if method == "GET" and path == "/oauth/v2/authorization":
            return accounts.authorize(received.query)
        if method == "POST" and path == "/oauth/v2/authorization/decision":
            return accounts.decision(received.raw)
        if method == "POST" and path == "/oauth/v2/accessToken":
            return accounts.token(received.raw)
        if method == "POST" and path == "/oauth/v2/revoke":
            return accounts.revoke(received.raw)
        raise Answer(404, "NOT_FOUND", f"No resource at {method} {path}")

    def _grant(self, received):
        """The sign-in's Grant of the request's token; None for the stand-in's
        own token; 401 for any other."""
        presented = received.headers.get("authorization", "").removeprefix("Bearer ")
        if self.token is not None and presented == self.token:
            return None
        return self.accounts.caller(presented)

    def _check_headers(self, received, json_body=True):
        grant = self._grant(received)
        presented = received.headers.get("authorization", "").removeprefix("Bearer ")
        problem = rules.headers_problem(received.headers, presented, json_body)
        if problem:
            raise Answer(*problem)
        return grant

    def _may_act_as(self, grant, author, what):
        if grant is not None and not self.accounts.may_act_as(grant, author):
            raise Answer(403, "ACCESS_DENIED", f"Not enough permissions to {what} as {author}")

    def initialize(self, received, kind):
        grant = self._check_headers(received)
        if received.query != "action=initializeUpload":
            raise Answer(400, "BAD_REQUEST", f"Unknown action: {received.query!r}")
        request = (received.body or {}).get("initializeUploadRequest")
        owner = request.get("owner") if isinstance(request, dict) else None
        if not isinstance(owner, str) or not rules.AUTHOR.fullmatch(owner):
            raise Answer(
                422,
                "UNPROCESSABLE_ENTITY",
                "/initializeUploadRequest/owner: a person or organization URN is required",
            )
        self._may_act_as(grant, owner, "upload")
        if owner in self.on.upload_refusals:
            status, message = self.on.upload_refusals[owner]
            raise Answer(status, "ACCESS_DENIED", message)
        token = f"{kind[0]}{self._new_id()}"
        urn = f"urn:li:{kind}:D4E10AQ{token}"
        with self.lock:
            self.uploads[urn] = Upload(kind, urn, owner, token)
        value = {
            "uploadUrlExpiresAt": int(time.time() * 1000) + UPLOAD_URL_LIFETIME_MS,
            "uploadUrl": f"{self.url}/upload/{token}",
            kind: urn,
        }
        return 200, {}, {"value": value}

    def put_bytes(self, received):
        self._grant(received)
        token = received.path.removeprefix("/upload/")
        with self.lock:
            upload = next((u for u in self.uploads.values() if u.token == token), None)
        if upload is None:
            raise Answer(404, "NOT_FOUND", "No upload at this URL")
        if not received.data:
            raise Answer(400, "BAD_REQUEST", "The upload has no bytes")
        upload.data = received.data
        upload.content_type = received.headers.get("content-type")
        return 201, {}, None

    def create_post(self, received):
        grant = self._check_headers(received)
        problem = rules.post_problem(received.body) or rules.content_shape_problem(
            received.body.get("content")
        )
        if problem:
            raise Answer(*problem)
        self._may_act_as(grant, received.body["author"], "create a post")
        self._check_content_urns(received.body)
        commentary = received.commentary
        for text, status, message in self.on.failures:
            if text in commentary:
                raise Answer(status, "STAND_IN_FAILURE", message)
        with self.lock:
            for limit in self.on.rate_limits:
                if limit[0] in commentary and limit[2] > 0:
                    limit[2] -= 1
                    raise Answer(
                        429,
                        "TOO_MANY_REQUESTS",
                        "Resource level throttle APPLICATION DAY limit for calls to this "
                        "resource is reached.",
                        {"Retry-After": str(limit[1])},
                    )
        urn = f"urn:li:share:{self._new_id()}"
        with self.lock:
            self.posts[urn] = received.body
            self.made_at[urn] = int(time.time() * 1000)
        for text, status, message in self.on.failures_after_create:
            if text in commentary:
                raise Answer(status, "STAND_IN_FAILURE", message)  # made all the same
        return 201, {"x-restli-id": urn, "x-linkedin-id": urn}, None

    def list_posts(self, received):
        """GET /rest/posts?q=author: the author's posts, newest first, as LinkedIn
        answers them (id, author, commentary, createdAt, ...)."""
        grant = self._check_headers(received, json_body=False)
        args = {k: v[0] for k, v in parse_qs(received.query).items()}
        if args.get("q") != "author" or not args.get("author"):
            raise Answer(400, "BAD_REQUEST", "The author finder needs q=author and author")
        author = args["author"]
        if grant is not None and not self.accounts.may_read(grant, author):
            raise Answer(403, "ACCESS_DENIED", f"Not enough permissions to read posts of {author}")
        count = min(int(args.get("count", 10)), 100)
        with self.lock:
            mine = [
                (self.made_at[urn], urn, body)
                for urn, body in self.posts.items()
                if body.get("author") == author
            ]
        mine.sort(reverse=True)
        elements = [
            {
                "id": urn,
                "author": author,
                "commentary": body.get("commentary"),
                "visibility": body.get("visibility"),
                "lifecycleState": body.get("lifecycleState"),
                "createdAt": made,
                "publishedAt": made,
                "lastModifiedAt": made,
            }
            for made, urn, body in mine[:count]
        ]
        return 200, {}, {"paging": {"start": 0, "count": count, "links": []}, "elements": elements}

    def _check_content_urns(self, body):
        for where, urn in rules.content_urns(body.get("content")):
            with self.lock:
                upload = self.uploads.get(urn)
            if upload is None:
                raise Answer(
                    422,
                    "UNPROCESSABLE_ENTITY",
                    f"{where}: {urn} was never issued by initializeUpload",
                )
            if upload.owner != body["author"]:
                raise Answer(
                    403,
                    "ACCESS_DENIED",
                    f"{where}: {urn} was uploaded for {upload.owner}, not for the author "
                    f"{body['author']}",
                )
            if not upload.ready:
                raise Answer(
                    422,
                    "UNPROCESSABLE_ENTITY",
                    f"{where}: {urn} is WAITING_UPLOAD: its bytes were never PUT",
                )
            if not upload.readable:
                raise Answer(
                    422,
                    "UNPROCESSABLE_ENTITY",
                    f"{where}: {urn} is PROCESSING_FAILED: its bytes are not a "
                    + ("JPEG, PNG or GIF image" if upload.kind == "image" else "PDF document"),
                )

    def create_comment(self, received):
        grant = self._check_headers(received)
        encoded = received.path.removeprefix("/rest/socialActions/").removesuffix("/comments")
        if ":" in encoded or not received.path.endswith("/comments"):
            raise Answer(
                400,
                "BAD_REQUEST",
                f"The post URN in the path must be percent-encoded: {received.path}",
            )
        post_urn = unquote(encoded)
        with self.lock:
            known = post_urn in self.posts
        if not known:
            raise Answer(404, "NOT_FOUND", f"Post {post_urn} not found")
        problem = rules.comment_problem(received.body, post_urn)
        if problem:
            raise Answer(*problem)
        self._may_act_as(grant, received.body["actor"], "comment")
        text = received.body["message"]["text"]
        for on, status, message in self.on.comment_failures:
            if on in text:
                raise Answer(status, "STAND_IN_FAILURE", message)
        comment_id = str(self._new_id())
        comment_urn = f"urn:li:comment:({post_urn},{comment_id})"
        with self.lock:
            self.comments.append((post_urn, comment_urn, received.body))
        answer = {
            **received.body,
            "id": comment_id,
            "commentUrn": comment_urn,
            "$URN": comment_urn,
            "created": {"actor": received.body["actor"], "time": int(time.time() * 1000)},
        }
        return 201, {"x-restli-id": quote(comment_urn, safe="")}, answer

    # --- what a post did -------------------------------------------------------------

    def _figures(self, urn):
        with self.lock:
            held = dict(self.figures.get(urn, {}))
        return {name: held.get(name, 0) for name in FIGURES}

    def _statistics_failure(self, urns):
        with self.lock:
            for failure in self.on.statistics_failures:
                if failure[0] in urns and (failure[3] is None or failure[3] > 0):
                    if failure[3] is not None:
                        failure[3] -= 1
                    raise Answer(failure[1], "STAND_IN_FAILURE", failure[2])

    def share_statistics(self, received):
        """A page's lifetime share statistics of the posts named, as LinkedIn
        answers them."""
        grant = self._check_headers(received, json_body=False)
        args = {k: v[0] for k, v in parse_qs(received.query).items()}
        if args.get("q") != "organizationalEntity" or not args.get("organizationalEntity"):
            raise Answer(
                400,
                "BAD_REQUEST",
                "The finder needs q=organizationalEntity and organizationalEntity",
            )
        page = args["organizationalEntity"]
        if not page.startswith("urn:li:organization:"):
            raise Answer(400, "BAD_REQUEST", f"Invalid organizationalEntity: {page}")
        if grant is not None and not (
            grant.scopes & {"r_organization_admin", "rw_organization_admin"}
            and grant.member.pages.get(page.rsplit(":", 1)[-1])
        ):
            raise Answer(
                403,
                "ACCESS_DENIED",
                "Not enough permissions to access: organizationalEntityShareStatistics",
            )
        kind = "shares" if "shares" in args else "ugcPosts" if "ugcPosts" in args else None
        raw = dict(part.split("=", 1) for part in received.query.split("&") if "=" in part)
        listed = args.get(kind or "", "")
        if not (listed.startswith("List(") and listed.endswith(")")) or ":" in raw.get(kind, ""):
            raise Answer(
                400,
                "BAD_REQUEST",
                "shares or ugcPosts must be List(...) of percent-encoded URNs",
            )
        urns = [u for u in listed[5:-1].split(",") if u]
        self._statistics_failure(urns)
        elements = []
        for urn in urns:
            with self.lock:
                body = self.posts.get(urn)
            if body is None or body.get("author") != page:
                continue
            figures = self._figures(urn)
            acted = (
                figures["reactions"] + figures["comments"] + figures["reshares"] + figures["clicks"]
            )
            statistics = {field: figures[name] for name, field in LINKEDIN_FIELDS.items()}
            statistics["engagement"] = (
                acted / figures["impressions"] if figures["impressions"] else 0.0
            )
            elements.append(
                {
                    "share" if kind == "shares" else "ugcPost": urn,
                    "organizationalEntity": page,
                    "totalShareStatistics": statistics,
                }
            )
        return 200, {}, {"paging": {"start": 0, "count": 10, "links": []}, "elements": elements}

    def social_actions(self, received):
        """A post's likes and comments summaries, as LinkedIn answers them."""
        grant = self._check_headers(received, json_body=False)
        encoded = received.path.removeprefix("/rest/socialActions/")
        if ":" in encoded or "/" in encoded:
            raise Answer(
                400,
                "BAD_REQUEST",
                f"The post URN in the path must be percent-encoded: {received.path}",
            )
        urn = unquote(encoded)
        with self.lock:
            body = self.posts.get(urn)
        if body is None:
            raise Answer(404, "NOT_FOUND", f"Post {urn} not found")
        if grant is not None and not self.accounts.may_read(grant, body["author"]):
            raise Answer(403, "ACCESS_DENIED", "Not enough permissions to access: socialActions")
        self._statistics_failure([urn])
        figures = self._figures(urn)
        return (
            200,
            {},
            {
                "target": urn,
                "likesSummary": {
                    "totalLikes": figures["reactions"],
                    "aggregatedTotalLikes": figures["reactions"],
                    "likedByCurrentUser": False,
                    "selectedLikes": [],
                },
                "commentsSummary": {
                    "totalFirstLevelComments": figures["comments"],
                    "aggregatedTotalComments": figures["comments"],
                    "selectedComments": [],
                },
            },
        )

    # --- the server -------------------------------------------------------------------

    def start(self):
        standin = self

        class Handler(QuietHandler):
            def setup(self):
                super().setup()
                # Status line, headers and body go out in separate writes:
                # without this each answer would wait for a delayed ACK.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                received = Received(
                    self.command,
                    self.path,
                    dict(self.headers),
                    data.decode("utf-8", errors="replace"),
                )
                received.data = data
                standin.answer(self, received)

            do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = handle_any

        return self.serve(Handler)

    def _is_comment_with(self, text, received):
        body = received.body if isinstance(received.body, dict) else {}
        message = body.get("message") if isinstance(body.get("message"), dict) else {}
        return (
            received.method == "POST"
            and received.path.endswith("/comments")
            and text in str(message.get("text") or "")
        )

    def _matches(self, texts, received):
        return received.is_post and any(t in (received.commentary or "") for t in texts)

    def _routed(self, received):
        """(status, headers, body) of the route, a refusal's in LinkedIn's shape."""
        try:
            return self.route(received)
        except OAuthRefusal as refusal:
            received.error = str(
                refusal.body.get("message") or refusal.body.get("error_description")
            )
            return refusal.status, refusal.headers, refusal.body
        except Answer as refusal:
            body = {"status": refusal.status, "code": refusal.code, "message": refusal.message}
            if refusal.status == 403:
                body["serviceErrorCode"] = 100
            received.error = refusal.message
            return refusal.status, refusal.headers, body

    def _hold_or_delay(self, received, status):
        """What a test asked for this request: hold it until released, or delay it."""
        for hold in self.on.holds:
            if status == 201 and self._matches([hold.text], received):
                hold.holding.set()
                hold.released.wait()
        if received.method == "PUT" and status == 201 and self.on.upload_holds:
            with self.lock:
                hold = self.on.upload_holds.pop(0) if self.on.upload_holds else None
            if hold is not None:
                hold.holding.set()
                hold.released.wait()
        for hold in self.on.comment_holds:
            if status == 201 and self._is_comment_with(hold.text, received):
                hold.holding.set()
                hold.released.wait()
        for text, seconds in self.on.delays:
            if status == 201 and self._matches([text], received):
                time.sleep(seconds)

    def answer(self, handler, received):
        with self.lock:
            self.received.append(received)
        if self._matches(self.on.drops, received):
            received.error = "dropped"
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        status, headers, body = self._routed(received)
        received.status = status
        received.urn = headers.get("x-restli-id") if received.is_post else None
        self._hold_or_delay(received, status)
        raw = isinstance(body, bytes)  # a page, with its own Content-Type
        payload = body if raw else json.dumps(body).encode() if body is not None else b""
        try:
            handler.send_response(status)
            for name, value in headers.items():
                handler.send_header(name, value)
            if payload and not raw:
                handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            received.answered = time.time()
        except OSError:
            handler.close_connection = True  # the client went away while held
