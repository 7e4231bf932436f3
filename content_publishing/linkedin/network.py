"""LinkedIn behind the publisher's seam (publisher/network.py says what a
network must do): a publish plan run at LinkedIn, an unknown outcome looked
for among the author's posts, a token refreshed, a post's figures read.

    upload    each medium of the plan: POST initialize, PUT the bytes to the
              uploadUrl it answers; {{ref}} becomes the image's or document's
              URN. Nothing is posted yet.
    post      the POST of the post itself (once: the publisher marks the
              handoff sending first); {{post_urn}} is its x-restli-id.
    after     the first comment: its URN, or why it failed.
    find      the author's newest posts (GET /rest/posts?q=author): those with
              the post's commentary, made since the handoff was marked sending.
    figures   a page's post: organizationalEntityShareStatistics; a member's
              post: socialActions (needs r_member_social).

Every call goes through the caller's `session` (`session.use(call)`: the
channel's token, refreshed once on a 401). A refusal is an
outbound.CallFailed with LinkedIn's status and words (api.py), never a token.
"""

import json
from urllib.parse import quote, unquote

from content_publishing.linkedin import signin
from content_publishing.linkedin.api import Api, LinkedInError
from content_publishing.linkedin.text import escape
from content_publishing.outbound import TokenExpired


class LinkedIn:
    """The seam's network, for one configuration (the app's settings)."""

    name = "LinkedIn"
    # Why an unknown outcome of a member's post cannot be looked for.
    cannot_find = (
        "reading a member's own posts needs the r_member_social permission, which LinkedIn "
        "grants only to approved apps. Look at the profile on LinkedIn: retry the post if it "
        "is not there, or mark it Published if it is."
    )

    def __init__(self, config):
        self.api = Api(config)

    def refresh(self, refresh_token):
        """New tokens (api.Tokens) from a refresh token; CallFailed if refused."""
        return self.api.refresh(refresh_token)

    def upload(self, session, plan, read):
        """Every upload of the plan done, with `read(upload)` giving its bytes:
        {ref: URN}. A CallFailed names the medium; nothing was posted."""
        urns = {}
        for upload in plan["uploads"]:
            what = f"{upload['kind']} {upload['source']}"
            try:
                _, _, answer = session.use(
                    lambda t, step=upload["initialize"]: self.api.send(t, step)
                )
                value = (answer or {}).get("value") or {}
                urn = value.get("image") or value.get("document")
                if not value.get("uploadUrl") or not urn:
                    raise LinkedInError(
                        200, f"LinkedIn's initializeUpload for {what} named no upload URL or URN."
                    )
                put = (value["uploadUrl"], read(upload), upload["content_type"])
                session.use(lambda t, put=put: self.api.put_bytes(t, *put))
            except LinkedInError as error:
                raise _upload_failed(error, what) from None
            urns[upload["ref"]] = urn
        return urns

    def post(self, session, plan, refs):
        """The post itself, sent once: its URN. CallFailed otherwise; an
        answer without the URN is an unknown outcome (status None, sent)."""
        step = filled({k: plan[k] for k in ("method", "url", "headers", "body")}, refs)
        _, headers, _ = session.use(lambda t: self.api.send(t, step))
        urn = headers.get("x-restli-id")
        if not urn:
            raise LinkedInError(None, "LinkedIn answered 201 without the post's x-restli-id")
        return urn

    def after(self, session, plan, post_urn):
        """The steps after the post (its first comment): {"first_comment_urn"}
        or {"first_comment_error"} of the first comment; {} when there is none."""
        outcome = {}
        for step in plan["after"]:
            try:
                _, headers, answer = session.use(
                    lambda t, s=filled(step, {"post_urn": post_urn}): self.api.send(t, s)
                )
            except (LinkedInError, TokenExpired) as error:
                message = error.message if isinstance(error, LinkedInError) else str(error)
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

    def can_find(self, connection, kind):
        """Whether the connection may read the author's posts (r_member_social
        for a member, r_organization_social for a page)."""
        return signin.can_read_posts(connection, kind)

    def find(self, session, author, content, since):
        """The URNs of the author's posts with this commentary, made at
        `since` (epoch seconds) or later, newest first: [] if there is none
        among the newest. LinkedIn keeps no field of a caller's own on an
        organic post (docs/choices.md), so the text, the author and the time
        are all that identify it; the caller drops the URNs its other posts hold."""
        commentary = escape(content)
        found = []
        for element in session.use(lambda t: self.api.posts_by(t, author)):
            made = element.get("createdAt") or element.get("publishedAt") or 0
            urn = element.get("id")
            if element.get("commentary") == commentary and made / 1000 >= since and urn:
                found.append(urn)
        return found

    def can_read_figures(self, connection, kind):
        """A page's figures need only the page's own permissions; a member's
        need r_member_social."""
        return kind == "brand" or signin.can_read_posts(connection, kind)

    def figures(self, session, channel, post_urn):
        """The post's figures: {impressions, members_reached, reactions, ...}."""
        if channel["type"] == "personal":
            return session.use(lambda t: self.api.social_actions(t, post_urn))
        return session.use(lambda t: self.api.share_statistics(t, channel["author_urn"], post_urn))


def _upload_failed(error, what):
    """An upload's failure, in words that say nothing was posted."""
    if error.may_retry or error.unknown_outcome:
        message = f"uploading the {what}: {error.message}"
    else:
        message = f"Nothing was posted: LinkedIn refused the {what}. {error.message}"
    return LinkedInError(
        error.status, message, error.code, retry_after=error.retry_after, sent=error.sent
    )


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
