"""The sign-in side of the LinkedIn stand-in (harness/linkedin_standin.py):
members and the pages they administer, the apps that may sign them in, and
OAuth 2.0's authorization code flow as LinkedIn runs it.

    GET  /oauth/v2/authorization    response_type=code, client_id, redirect_uri, state, scope
         -> 302 to redirect_uri?code=..&state=.. at once (auto_approve), or a page
            with Approve and Cancel buttons for a person (POST .../decision)
    POST /oauth/v2/accessToken      grant_type=authorization_code | refresh_token (a form)
         -> {access_token, expires_in, refresh_token?, refresh_token_expires_in?, scope}
    POST /oauth/v2/revoke           client_id, client_secret, token -> 200
    GET  /v2/userinfo               -> {sub, name, given_name, family_name, locale}
    GET  /rest/organizationAcls?q=roleAssignee&role=..&state=..&start=..&count=..
    GET  /rest/organizations?ids=List(1,2)   -> {results: {"1": {localizedName, ...}}}

It refuses what LinkedIn refuses: an unknown client or a redirect_uri not
registered for it (a 400 page: LinkedIn never redirects there), a scope the
app has no product for (redirected with error=unauthorized_scope_error), a
code used twice, expired (30 minutes) or sent with another redirect_uri, a
wrong client secret, and, on the APIs, a token that is unknown, expired or
revoked (401 with LinkedIn's codes 65600, 65602 and 65601), or that lacks
the scope an API needs (403).
"""

import html
import itertools
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode

CODE_LIFETIME = 30 * 60
ACCESS_LIFETIME = 60 * 86400
REFRESH_LIFETIME = 365 * 86400
# What an app gets without LinkedIn's review: Sign In with LinkedIn (openid,
# profile, email), Share on LinkedIn (w_member_social), and the Community
# Management API's page scopes. r_member_social is granted to approved apps only.
OPEN_SCOPES = frozenset(
    {
        "openid",
        "profile",
        "email",
        "w_member_social",
        "r_organization_admin",
        "w_organization_social",
        "r_organization_social",
    }
)
CANCELLED = "The user cancelled the authorization"


class OAuthRefusal(Exception):
    """A refusal: `status`, and either an OAuth body or a REST one."""

    def __init__(self, status, body, headers=None, html_page=None):
        super().__init__(str(body))
        self.status, self.body, self.headers, self.html_page = (
            status,
            body,
            headers or {},
            html_page,
        )


@dataclass
class Member:
    sub: str
    name: str
    pages: dict = field(default_factory=dict)  # organization id -> (name, role)

    @property
    def urn(self):
        return f"urn:li:person:{self.sub}"


@dataclass
class App:
    client_id: str
    client_secret: str
    redirect_uris: set
    scopes: frozenset = OPEN_SCOPES


@dataclass
class Grant:
    """One access token, and the refresh token it came with."""

    member: Member
    client_id: str
    scopes: frozenset
    access_token: str
    expires_at: float
    refresh_token: str | None
    refresh_expires_at: float | None
    revoked: bool = False


class Accounts:
    """What the stand-in knows of members, apps and tokens; thread-safe."""

    def __init__(self):
        self.members = {}
        self.apps = {}
        self.codes = {}  # code -> dict(client_id, redirect_uri, member, scopes, expires_at, used)
        self.grants = []
        self.lock = threading.Lock()
        self.auto_approve = True  # False: the authorize page waits for a person's click
        self.signed_in = None  # the Member who approves (the browser's LinkedIn session)
        self.access_lifetime = ACCESS_LIFETIME
        self.refresh_lifetime = REFRESH_LIFETIME  # None: no refresh tokens (most apps)
        self._serial = itertools.count(1)

    # --- what a test sets up -----------------------------------------------------------

    def add_member(self, sub, name, pages=None, role="ADMINISTRATOR"):
        """A member; `pages`: {organization id: name} they hold `role` of."""
        member = Member(sub, name, {str(k): (v, role) for k, v in (pages or {}).items()})
        self.members[sub] = member
        if self.signed_in is None:
            self.signed_in = member
        return member

    def add_app(self, client_id, client_secret, redirect_uri, scopes=OPEN_SCOPES):
        self.apps[client_id] = App(client_id, client_secret, {redirect_uri}, frozenset(scopes))
        return self.apps[client_id]

    def sign_in(self, sub):
        self.signed_in = self.members[sub]

    @property
    def issued(self):
        """Every token issued, access and refresh (for the tests' leak checks)."""
        with self.lock:
            found = [g.access_token for g in self.grants]
            found += [g.refresh_token for g in self.grants if g.refresh_token]
        return sorted(set(found))

    def expire_access_tokens(self):
        """Every access token issued so far ends now (a refresh still works)."""
        with self.lock:
            for grant in self.grants:
                grant.expires_at = time.time() - 1

    def revoke_all(self):
        """As if the member removed the app at LinkedIn: every token refused."""
        with self.lock:
            for grant in self.grants:
                grant.revoked = True

    # --- the authorize page --------------------------------------------------------------

    def authorize(self, query):
        """(status, headers, body) of GET /oauth/v2/authorization."""
        args = {k: v[0] for k, v in parse_qs(query).items()}
        app = self.apps.get(args.get("client_id"))
        if app is None:
            return _page(400, "Invalid client", "The passed in client_id is invalid.")
        redirect_uri = args.get("redirect_uri")
        if redirect_uri not in app.redirect_uris:
            return _page(
                400,
                "Invalid redirect_uri",
                "The redirect_uri does not match the registered value.",
            )
        if args.get("response_type") != "code":
            return _redirect(
                redirect_uri,
                args,
                error="invalid_request",
                error_description="response_type must be code",
            )
        scopes = frozenset(args.get("scope", "").split())
        refused = sorted(scopes - app.scopes)
        if not scopes or refused:
            return _redirect(
                redirect_uri,
                args,
                error="unauthorized_scope_error",
                error_description=f'Scope "{refused[0] if refused else ""}" is not authorized '
                "for your application",
            )
        if self.auto_approve:
            return self.decide(args, approve=True)
        fields = "".join(
            f'<input type=hidden name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in args.items()
        )
        body = (
            "<!doctype html><html lang=en><meta charset=utf-8><title>LinkedIn stand-in: "
            "sign in</title><h1>Allow this app to use your LinkedIn account?</h1>"
            f"<p>Signed in as {html.escape(self.signed_in.name)}. The app asks for: "
            f"{html.escape(', '.join(sorted(scopes)))}.</p>"
            f'<form method=post action="/oauth/v2/authorization/decision">{fields}'
            "<button name=decision value=approve>Allow</button> "
            "<button name=decision value=cancel>Cancel</button></form>"
        )
        return 200, {"Content-Type": "text/html; charset=utf-8"}, body.encode()

    def decision(self, form):
        args = {k: v[0] for k, v in parse_qs(form).items()}
        app = self.apps.get(args.get("client_id"))
        if app is None or args.get("redirect_uri") not in app.redirect_uris:
            return _page(400, "Invalid request", "The sign-in request is not valid.")
        return self.decide(args, approve=args.get("decision") == "approve")

    def decide(self, args, approve):
        if not approve:
            return _redirect(
                args["redirect_uri"],
                args,
                error="user_cancelled_authorize",
                error_description=CANCELLED,
            )
        code = secrets.token_urlsafe(48)
        with self.lock:
            self.codes[code] = {
                "client_id": args["client_id"],
                "redirect_uri": args["redirect_uri"],
                "member": self.signed_in,
                "scopes": frozenset(args["scope"].split()),
                "expires_at": time.time() + CODE_LIFETIME,
                "used": False,
            }
        return _redirect(args["redirect_uri"], args, code=code)

    # --- the token endpoint ----------------------------------------------------------------

    def token(self, form):
        """(status, headers, JSON) of POST /oauth/v2/accessToken."""
        args = {k: v[0] for k, v in parse_qs(form).items()}
        app = self.apps.get(args.get("client_id"))
        if app is None or args.get("client_secret") != app.client_secret:
            raise OAuthRefusal(
                401,
                {"error": "invalid_client", "error_description": "Client authentication failed"},
            )
        kind = args.get("grant_type")
        if kind == "authorization_code":
            return self._from_code(app, args)
        if kind == "refresh_token":
            return self._from_refresh(app, args)
        raise OAuthRefusal(
            400, {"error": "unsupported_grant_type", "error_description": f"{kind!r} is unknown"}
        )

    def _from_code(self, app, args):
        with self.lock:
            found = self.codes.get(args.get("code", ""))
            bad = (
                found is None
                or found["used"]
                or found["client_id"] != app.client_id
                or found["redirect_uri"] != args.get("redirect_uri")
                or found["expires_at"] <= time.time()
            )
            if found is not None:
                found["used"] = True
        if bad:
            raise OAuthRefusal(
                400,
                {
                    "error": "invalid_request",
                    "error_description": "Unable to retrieve access token: appid/redirect uri/"
                    "code verifier does not match authorization code. Or authorization code "
                    "expired. Or external member binding exists",
                },
            )
        grant = self._issue(found["member"], app.client_id, found["scopes"])
        return 200, {}, self._answer(grant)

    def _from_refresh(self, app, args):
        with self.lock:
            grant = next(
                (
                    g
                    for g in self.grants
                    if g.refresh_token and g.refresh_token == args.get("refresh_token")
                ),
                None,
            )
        if (
            grant is None
            or grant.revoked
            or grant.client_id != app.client_id
            or grant.refresh_expires_at <= time.time()
        ):
            raise OAuthRefusal(
                400,
                {
                    "error": "invalid_request",
                    "error_description": "The provided authorization grant or refresh token is "
                    "invalid, expired or revoked",
                },
            )
        fresh = Grant(  # the old access token works on until it ends, as at LinkedIn
            grant.member,
            grant.client_id,
            grant.scopes,
            _token("AQV"),
            min(time.time() + self.access_lifetime, grant.refresh_expires_at),
            grant.refresh_token,
            grant.refresh_expires_at,
        )
        with self.lock:
            self.grants.append(fresh)
        return 200, {}, self._answer(fresh)

    def _issue(self, member, client_id, scopes):
        refresh = _token("AQX") if self.refresh_lifetime else None
        grant = Grant(
            member,
            client_id,
            scopes,
            _token("AQV"),
            time.time() + self.access_lifetime,
            refresh,
            time.time() + self.refresh_lifetime if refresh else None,
        )
        with self.lock:
            self.grants.append(grant)
        return grant

    def _answer(self, grant):
        answer = {
            "access_token": grant.access_token,
            "expires_in": max(0, int(grant.expires_at - time.time())),
            "scope": ",".join(sorted(grant.scopes)),
        }
        if grant.refresh_token:
            answer["refresh_token"] = grant.refresh_token
            answer["refresh_token_expires_in"] = max(0, int(grant.refresh_expires_at - time.time()))
        return answer

    def revoke(self, form):
        args = {k: v[0] for k, v in parse_qs(form).items()}
        app = self.apps.get(args.get("client_id"))
        if app is None or args.get("client_secret") != app.client_secret:
            raise OAuthRefusal(
                401,
                {"error": "invalid_client", "error_description": "Client authentication failed"},
            )
        token = args.get("token")
        with self.lock:
            for grant in self.grants:
                if token in (grant.access_token, grant.refresh_token):
                    grant.revoked = True
                    for other in self.grants:  # the whole authorization goes
                        if other.member is grant.member and other.client_id == grant.client_id:
                            other.revoked = True
        return 200, {}, None

    # --- a token presented to an API ---------------------------------------------------------

    def caller(self, token):
        """The Grant of a Bearer token; OAuthRefusal 401 as LinkedIn answers."""
        with self.lock:
            grant = next((g for g in reversed(self.grants) if g.access_token == token), None)
        if grant is None:
            raise _rest(401, "INVALID_ACCESS_TOKEN", "Invalid access token", 65600)
        if grant.revoked:
            raise _rest(
                401,
                "REVOKED_ACCESS_TOKEN",
                "The token used in the request has been revoked by the user",
                65601,
            )
        if grant.expires_at <= time.time():
            raise _rest(
                401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65602
            )
        return grant

    def may_act_as(self, grant, author):
        """Whether the grant may post (or upload) as `author`."""
        if author == grant.member.urn:
            return "w_member_social" in grant.scopes
        if author.startswith("urn:li:organization:"):
            page = grant.member.pages.get(author.rsplit(":", 1)[-1])
            return page is not None and "w_organization_social" in grant.scopes
        return False

    def may_read(self, grant, author):
        """Whether the grant may list `author`'s posts."""
        if author == grant.member.urn:
            return "r_member_social" in grant.scopes
        page = grant.member.pages.get(author.rsplit(":", 1)[-1])
        return (
            author.startswith("urn:li:organization:")
            and page is not None
            and "r_organization_social" in grant.scopes
        )

    def userinfo(self, grant):
        if not {"openid", "profile"} <= grant.scopes:
            raise _rest(403, "ACCESS_DENIED", "Not enough permissions to access: userinfo", 100)
        given, _, family = grant.member.name.partition(" ")
        return {
            "sub": grant.member.sub,
            "name": grant.member.name,
            "given_name": given,
            "family_name": family,
            "locale": {"country": "US", "language": "en"},
        }

    def organization_acls(self, grant, query):
        if "r_organization_admin" not in grant.scopes:
            raise _rest(
                403, "ACCESS_DENIED", "Not enough permissions to access: organizationAcls", 100
            )
        args = {k: v[0] for k, v in parse_qs(query).items()}
        if args.get("q") != "roleAssignee":
            raise _rest(400, "BAD_REQUEST", f"Unknown finder: {args.get('q')!r}", 0)
        elements = [
            {
                "roleAssignee": grant.member.urn,
                "state": "APPROVED",
                "role": role,
                "organization": f"urn:li:organization:{org_id}",
            }
            for org_id, (_, role) in grant.member.pages.items()
            if args.get("role") in (None, role)
        ]
        start, count = int(args.get("start", 0)), int(args.get("count", 10))
        return {
            "paging": {"start": start, "count": count, "links": [], "total": len(elements)},
            "elements": elements[start : start + count],
        }

    def organizations(self, grant, query):
        if "r_organization_admin" not in grant.scopes:
            raise _rest(
                403, "ACCESS_DENIED", "Not enough permissions to access: organizations", 100
            )
        ids = parse_qs(query).get("ids", [""])[0]
        if not (ids.startswith("List(") and ids.endswith(")")):
            raise _rest(400, "BAD_REQUEST", "ids must be List(...)", 0)
        wanted = [i for i in ids[5:-1].split(",") if i]
        results, statuses = {}, {}
        for org_id in wanted:
            page = grant.member.pages.get(org_id)
            statuses[org_id] = 200 if page else 403
            if page:
                results[org_id] = {"id": int(org_id), "localizedName": page[0]}
        return {"results": results, "statuses": statuses, "errors": {}}


def _token(prefix):
    return prefix + secrets.token_urlsafe(40)


def _rest(status, code, message, service_code):
    return OAuthRefusal(
        status,
        {"status": status, "serviceErrorCode": service_code, "code": code, "message": message},
    )


def _page(status, title, message):
    body = (
        f"<!doctype html><html lang=en><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(message)}</p>"
    )
    return status, {"Content-Type": "text/html; charset=utf-8"}, body.encode()


def _redirect(redirect_uri, args, **fields):
    """302 back to the app, with the state it sent."""
    if args.get("state") is not None:
        fields["state"] = args["state"]
    sep = "&" if "?" in redirect_uri else "?"
    return 302, {"Location": f"{redirect_uri}{sep}{urlencode(fields)}"}, b""
