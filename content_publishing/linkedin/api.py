"""LinkedIn's APIs as the service calls them itself: the OAuth 2.0 grants of a
channel's sign-in (authorization code, refresh, revoke), who signed in and
which pages they may post for, the steps of a publish plan, and the posts
an author made (to settle an unknown outcome), and what a post did (its
statistics, for the service's own collection of stats).

One HTTP client (urllib3, as outbound.py's): no retries,
no redirects followed, every request bounded by FLASK_LINKEDIN_TIMEOUT_SECONDS.
A refusal is a LinkedInError with LinkedIn's status and message, and whether
the request may have reached LinkedIn (`sent`): a connection that was never
made proves that nothing was created; a timeout or a dropped connection
after the request went out does not.

Tokens go into an Authorization header or a form body and nowhere else:
never into a message, an exception or a log line. What LinkedIn answers is
read for the fields the service needs; its error text is kept (it names
the problem, never the token).
"""

import json
from collections import namedtuple
from urllib.parse import quote, urlencode

import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    NameResolutionError,
    NewConnectionError,
)

from content_publishing.outbound import CallFailed

# What a grant gave: the tokens, their lifetimes in seconds (None: not said),
# and the scopes LinkedIn granted.
Tokens = namedtuple("Tokens", "access_token expires_in refresh_token refresh_expires_in scopes")
MESSAGE_LIMIT = 500  # characters of LinkedIn's own text kept in an error
POSTS_CHECKED = 50  # an author's newest posts read to settle an unknown outcome
# Our figure: LinkedIn's field in totalShareStatistics.
SHARE_FIGURES = {
    "impressions": "impressionCount",
    "members_reached": "uniqueImpressionsCount",
    "reactions": "likeCount",
    "comments": "commentCount",
    "reshares": "shareCount",
    "clicks": "clickCount",
}
_NOT_SENT = (NewConnectionError, NameResolutionError, ConnectTimeoutError)


class LinkedInError(CallFailed):
    """LinkedIn refused, or could not be asked. `status` None: no answer."""


class Api:
    """The calls, for one configuration (the app's settings)."""

    def __init__(self, config):
        self.auth_base = config["LINKEDIN_AUTH_BASE"].rstrip("/")
        self.api_base = config["LINKEDIN_API_BASE"].rstrip("/")
        self.version = config["LINKEDIN_VERSION"]
        self.client_id = config["LINKEDIN_CLIENT_ID"]
        self.client_secret = config["LINKEDIN_CLIENT_SECRET"]
        timeout = config["LINKEDIN_TIMEOUT_SECONDS"]
        self.http = urllib3.PoolManager(
            retries=False,
            timeout=urllib3.Timeout(total=timeout, connect=min(10.0, timeout)),
            maxsize=config["LINKEDIN_PUBLISH_WORKERS"],
            headers={"User-Agent": "content-publishing-service/1.0"},
        )

    # --- the sign-in -------------------------------------------------------------------

    def authorize_url(self, redirect_uri, state, scopes):
        """Where the member's browser is sent to consent."""
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "state": state,
                "scope": " ".join(scopes),
            },
            quote_via=quote,
        )
        return f"{self.auth_base}/oauth/v2/authorization?{query}"

    def exchange(self, code, redirect_uri):
        """The code of a consent, traded for tokens."""
        return self._grant(
            {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        )

    def refresh(self, refresh_token):
        return self._grant({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def revoke(self, token):
        self._form("/oauth/v2/revoke", {"token": token})

    def _grant(self, fields):
        answer = self._form("/oauth/v2/accessToken", fields)
        if not isinstance(answer, dict) or not answer.get("access_token"):
            raise LinkedInError(502, "LinkedIn's token answer holds no access_token")
        scope = answer.get("scope") or ""
        return Tokens(
            answer["access_token"],
            _seconds(answer.get("expires_in")),
            answer.get("refresh_token") or None,
            _seconds(answer.get("refresh_token_expires_in")),
            sorted(set(scope.replace(",", " ").split())),
        )

    def _form(self, path, fields):
        body = urlencode(
            {**fields, "client_id": self.client_id, "client_secret": self.client_secret}
        )
        return self._call(
            "POST",
            self.auth_base + path,
            {"Content-Type": "application/x-www-form-urlencoded"},
            body.encode(),
        )

    # --- who signed in ------------------------------------------------------------------

    def member(self, token):
        """(urn:li:person:<sub>, name) of the member the token is for."""
        answer = self._call("GET", f"{self.api_base}/v2/userinfo", _bearer(token))
        sub = answer.get("sub") if isinstance(answer, dict) else None
        if not isinstance(sub, str) or not sub:
            raise LinkedInError(502, "LinkedIn's userinfo answer holds no sub")
        name = answer.get("name") or " ".join(
            part for part in (answer.get("given_name"), answer.get("family_name")) if part
        )
        return f"urn:li:person:{sub}", name or None

    def administered_pages(self, token):
        """[{urn, name}] of the pages the member administers, in LinkedIn's order."""
        urns, start = [], 0
        while True:
            answer = self._call(
                "GET",
                f"{self.api_base}/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR"
                f"&state=APPROVED&start={start}&count=100",
                self._rest(token),
            )
            elements = answer.get("elements") or []
            for element in elements:
                urn = element.get("organization") or element.get("organizationTarget")
                if isinstance(urn, str) and urn not in urns:
                    urns.append(urn)
            total = (answer.get("paging") or {}).get("total")
            start += len(elements)
            if not elements or total is None or start >= total:
                break
        names = self._names(token, urns)
        return [{"urn": urn, "name": name} for urn, name in zip(urns, names, strict=True)]

    def _names(self, token, urns):
        """The pages' localized names (None where LinkedIn gives none)."""
        ids = [urn.rsplit(":", 1)[-1] for urn in urns]
        if not ids:
            return []
        answer = self._call(
            "GET",
            f"{self.api_base}/rest/organizations?ids=List({','.join(ids)})",
            self._rest(token),
        )
        results = answer.get("results") or {}
        return [(results.get(i) or {}).get("localizedName") for i in ids]

    # --- publishing ----------------------------------------------------------------------

    def send(self, token, step):
        """One step of a publish plan ({method, url, headers, body}); (status,
        headers with lower-case names, the answer's JSON or None)."""
        headers = {**step.get("headers", {}), **_bearer(token)}
        body = step.get("body")
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        return self._call(step["method"], step["url"], headers, data, whole=True)

    def put_bytes(self, token, url, data, content_type):
        """The bytes of an upload, to the URL initializeUpload gave."""
        headers = {**_bearer(token), "Content-Type": content_type or "application/octet-stream"}
        return self._call("PUT", url, headers, data, whole=True)

    def posts_by(self, token, author_urn):
        """The author's newest posts (up to POSTS_CHECKED), newest first."""
        answer = self._call(
            "GET",
            f"{self.api_base}/rest/posts?q=author&author={quote(author_urn, safe='')}"
            f"&count={POSTS_CHECKED}",
            {**self._rest(token), "X-RestLi-Method": "FINDER"},
        )
        return [e for e in answer.get("elements") or [] if isinstance(e, dict)]

    # --- what a post did ----------------------------------------------------------------

    def share_statistics(self, token, organization, post_urn):
        """A page's post's lifetime figures (organic), from
        organizationalEntityShareStatistics: {impressions, members_reached,
        reactions, comments, reshares, clicks}."""
        kind = "ugcPosts" if post_urn.startswith("urn:li:ugcPost:") else "shares"
        answer = self._call(
            "GET",
            f"{self.api_base}/rest/organizationalEntityShareStatistics?q=organizationalEntity"
            f"&organizationalEntity={quote(organization, safe='')}"
            f"&{kind}=List({quote(post_urn, safe='')})",
            self._rest(token),
        )
        for element in answer.get("elements") or []:
            if isinstance(element, dict) and post_urn in (
                element.get("share"),
                element.get("ugcPost"),
            ):
                figures = element.get("totalShareStatistics") or {}
                return {name: _count(figures.get(field)) for name, field in SHARE_FIGURES.items()}
        raise LinkedInError(502, f"LinkedIn's statistics answer holds no figures for {post_urn}")

    def social_actions(self, token, post_urn):
        """A member's post's likes and comments, from socialActions:
        {reactions, comments} (LinkedIn gives members no impressions)."""
        answer = self._call(
            "GET",
            f"{self.api_base}/rest/socialActions/{quote(post_urn, safe='')}",
            self._rest(token),
        )
        likes = answer.get("likesSummary") or {}
        comments = answer.get("commentsSummary") or {}
        return {
            "reactions": _count(likes.get("totalLikes", likes.get("aggregatedTotalLikes"))),
            "comments": _count(
                comments.get("aggregatedTotalComments", comments.get("totalFirstLevelComments"))
            ),
        }

    # --- one request -----------------------------------------------------------------------

    def _rest(self, token):
        return {
            **_bearer(token),
            "LinkedIn-Version": self.version,
            "X-Restli-Protocol-Version": "2.0.0",
        }

    def _call(self, method, url, headers, body=None, whole=False):
        try:
            answer = self.http.request(
                method, url, body=body, headers=headers, redirect=False, preload_content=True
            )
        except _NOT_SENT as error:
            raise LinkedInError(
                None, f"LinkedIn could not be reached: {_why(error)}", sent=False
            ) from None
        except HTTPError as error:
            raise LinkedInError(None, f"No answer from LinkedIn: {_why(error)}") from None
        parsed = _json(answer.data)
        if not 200 <= answer.status < 300:
            raise LinkedInError(
                answer.status,
                _message(answer.status, parsed, answer.data),
                code=_code(parsed),
                retry_after=answer.headers.get("Retry-After"),
            )
        if whole:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, parsed
        return parsed if parsed is not None else {}


def _bearer(token):
    return {"Authorization": f"Bearer {token}"}


def _seconds(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _count(value):
    """A figure as LinkedIn gave it, if it is a whole number of at least 0; else None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _json(data):
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


def _code(parsed):
    if isinstance(parsed, dict):
        return parsed.get("code") or parsed.get("error")
    return None


def _message(status, parsed, data):
    """LinkedIn's own words: `message` of the API, `error_description` of
    OAuth, else the start of the body."""
    text = None
    if isinstance(parsed, dict):
        text = parsed.get("message") or parsed.get("error_description") or parsed.get("error")
    if not text:
        text = data[:MESSAGE_LIMIT].decode("utf-8", "replace").strip() or "no message"
    return f"LinkedIn answered {status}: {str(text)[:MESSAGE_LIMIT]}"


def _why(error):
    """An exception in a few words, without the request's headers."""
    reason = getattr(error, "reason", None) or error
    return type(reason).__name__ + (": timed out" if "timed out" in str(reason).lower() else "")
