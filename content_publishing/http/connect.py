"""Connecting a channel to LinkedIn (OAuth 2.0, authorization code flow).

POST   /functions/v1/channels-connect/{id}   start a sign-in: the authorize URL (posts:publish)
DELETE /functions/v1/channels-connect/{id}   disconnect: revoke the token, forget it (posts:publish)
GET    /functions/v1/linkedin/callback       where LinkedIn sends the browser back (no key)

The callback takes no key (the browser arrives from LinkedIn): the state is
what ties it to the channel and the workspace that started the sign-in
(connections.py). The network calls to LinkedIn run outside every
transaction: take the state (one transaction), trade the code and find the
author (LinkedIn), keep the connection (a second transaction). A refused
callback is a page, not JSON: a person reads it in their browser. Nothing
here writes a token anywhere but the sealed connection.
"""

import html
import logging
import secrets
from urllib.parse import quote, urlencode

from flask import Blueprint, current_app, g, make_response, request

from content_publishing import timestamps
from content_publishing.auth import require_scope
from content_publishing.channels import connections
from content_publishing.errors import linkedin_not_configured, not_found
from content_publishing.http.apidoc import doc
from content_publishing.http.common import check_if_match, render, with_etag
from content_publishing.linkedin import signin
from content_publishing.linkedin.api import Api, LinkedInError
from content_publishing.schemas.channels import channel_schema, connect_start_schema
from content_publishing.store import channels as channel_store
from content_publishing.store.db import transaction

bp = Blueprint("linkedin", __name__)
callback = Blueprint("linkedin_callback", __name__, url_prefix="/functions/v1")
log = logging.getLogger("linkedin")
CALLBACK_PATH = "/functions/v1/linkedin/callback"
DASHBOARD_PATH = "/functions/v1/dashboard"
COOKIE = "cps_linkedin_signin"  # binds a sign-in started from the dashboard to its browser
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",  # the callback's URL (code, state) goes nowhere else
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
KNOWN_ERRORS = {
    "user_cancelled_authorize": "You cancelled the sign-in at LinkedIn: nothing was connected.",
    "user_cancelled_login": "You cancelled the sign-in at LinkedIn: nothing was connected.",
}


def redirect_uri(config):
    """The callback's address, as registered in LinkedIn's developer portal."""
    return config["PUBLIC_URL"].rstrip("/") + CALLBACK_PATH


def _configured():
    config = current_app.config
    if not config["LINKEDIN_CLIENT_ID"]:
        raise linkedin_not_configured()
    return config


def _owned(fetch, channel_id):
    channel = fetch(g.workspace_id, channel_id)
    if channel is None:
        raise not_found("channel")
    return channel


def _from_the_dashboard():
    """A request the service's own pages made: its answer's cookie is kept by
    the browser that will come back from LinkedIn."""
    return request.headers.get("Sec-Fetch-Site") == "same-origin"


@bp.post("/channels-connect/<path:channel_id>")
@doc(
    "Start connecting a channel to LinkedIn",
    response=connect_start_schema,
    errors=[409],
    description="Answers the URL of LinkedIn's consent page: send the person's browser there. "
    "Its state works once, for 10 minutes, for this channel and this key's workspace; LinkedIn then "
    "sends the browser to GET /functions/v1/linkedin/callback, which keeps the connection and "
    "goes on to the dashboard. Scopes: `openid profile w_member_social` (personal), "
    "`r_organization_admin w_organization_social r_organization_social` (brand). A 409 "
    "`linkedin_not_configured` when the operator has not set the LinkedIn app. A member's "
    "personal channel is connected by that member alone (403 `forbidden` for anyone else), "
    "as their own LinkedIn account: the callback refuses another account than the one it "
    "was connected as before, or one connected to another member's channel.",
)
@require_scope("posts:publish")
def start_connect(channel_id):
    config = _configured()
    nonce = secrets.token_urlsafe(32) if _from_the_dashboard() else None
    with transaction():
        channel = _owned(channel_store.get_channel, channel_id)
        connections.check_starter(channel, g.member_id)
        state = signin.begin(g.workspace_id, channel, g.actor, nonce, timestamps.now_text())
    scopes = signin.scopes_for(channel["type"], config["LINKEDIN_MEMBER_POSTS_READABLE"])
    url = Api(config).authorize_url(redirect_uri(config), state, scopes)
    response = make_response(render(connect_start_schema, {"authorize_url": url}))
    if nonce:
        response.set_cookie(
            COOKIE,
            nonce,
            max_age=signin.STATE_SECONDS,
            path=CALLBACK_PATH,
            secure=config["PUBLIC_URL"].startswith("https://"),
            httponly=True,
            samesite="Lax",  # sent on the top-level navigation back from LinkedIn
        )
    return response


@bp.delete("/channels-connect/<path:channel_id>")
@doc(
    "Disconnect a channel from LinkedIn",
    response=channel_schema,
    errors=[409, 412],
    headers=["ETag"],
    request_headers=["If-Match"],
    description="Revokes the token at LinkedIn, forgets it (`connection.status` becomes "
    "`revoked`) and sets `publisher` back to `automation`. A channel that is not connected is "
    "answered as it is.",
)
@require_scope("posts:publish")
def disconnect(channel_id):
    config = _configured()
    with transaction():
        channel = _owned(channel_store.lock_channel, channel_id)
        check_if_match(channel)
        channel, token = connections.disconnect(g.workspace_id, channel, timestamps.now_text())
    if token:
        revoke_quietly(config, token)
    return with_etag(render(channel_schema, channel), channel)


def revoke_quietly(config, token):
    """Revoke a token at LinkedIn once it is forgotten here; a failure is
    logged (without the token) and does not undo the forgetting."""
    if not config["LINKEDIN_CLIENT_ID"]:
        return
    try:
        Api(config).revoke(token)
    except LinkedInError as error:
        log.warning("could not revoke a LinkedIn token at LinkedIn: %s", error.message)


# --- the browser comes back -------------------------------------------------------------------


@callback.get("/linkedin/callback")
def finish_connect():
    config = current_app.config
    if not config["LINKEDIN_CLIENT_ID"]:
        return _page(
            409,
            "LinkedIn is not set up",
            "linkedin_not_configured: the service's operator has not set "
            "FLASK_LINKEDIN_CLIENT_ID and FLASK_LINKEDIN_CLIENT_SECRET, so no channel can be "
            "connected.",
        )
    args = request.args
    now = timestamps.now_text()
    try:
        with transaction():  # committed even when the state is refused below: used up
            taken = signin.take_state(args.get("state"))
        started = signin.check_taken(taken, request.cookies.get(COOKIE), now)
    except signin.StateRefused as refusal:
        log.info("LinkedIn sign-in refused: %s", refusal)
        return _page(400, "This LinkedIn sign-in cannot be finished", str(refusal))
    channel_id = started["channel_id"]
    if args.get("error"):
        message = KNOWN_ERRORS.get(args["error"]) or "LinkedIn did not connect the channel: " + (
            args.get("error_description") or args["error"]
        )
        log.info("LinkedIn sign-in of channel %s ended by LinkedIn: %s", channel_id, args["error"])
        return _to_dashboard(config, channel_id, error=args["error"][:100], message=message[:300])
    return _connect(config, started, args.get("code"), now)


def _connect(config, started, code, now):
    workspace_id, channel_id = started["workspace_id"], started["channel_id"]
    if not code:
        return _page(400, "This LinkedIn sign-in cannot be finished", "LinkedIn sent no code.")
    api = Api(config)
    try:
        tokens = api.exchange(code, redirect_uri(config))
    except LinkedInError as error:
        log.warning("LinkedIn refused the sign-in's code: %s", error.message)
        status = 400 if error.status and error.status < 500 else 502
        return _page(status, "LinkedIn did not finish the sign-in", error.message)
    channel = channel_store.get_channel(workspace_id, channel_id)
    member = None
    try:
        if channel is not None:
            member = _who(api, tokens, channel["type"])
    except LinkedInError as error:
        log.warning("LinkedIn did not say who signed in: %s", error.message)
        revoke_quietly(config, tokens.access_token)
        return _page(502, "LinkedIn did not say who signed in", error.message)
    if channel is not None and channel["type"] == "brand" and not member["organizations"]:
        revoke_quietly(config, tokens.access_token)
        return _to_dashboard(
            config,
            channel_id,
            error="no_pages",
            message="The LinkedIn member you signed in as administers no LinkedIn page: sign in "
            "as an administrator of the page to connect it.",
        )
    if channel is not None:
        try:
            with transaction():
                channel = connections.connect(
                    workspace_id, channel_id, tokens, member, now, started
                )
        except connections.NotTheirs as refusal:
            log.info("LinkedIn sign-in of channel %s refused: %s", channel_id, refusal)
            revoke_quietly(config, tokens.access_token)
            return _page(409, "This LinkedIn account cannot connect this channel", str(refusal))
    if channel is None:
        revoke_quietly(config, tokens.access_token)
        return _page(400, "The channel is gone", "It was deleted while you signed in.")
    log.info("channel %s connected to LinkedIn", channel_id)
    return _to_dashboard(config, channel_id, connected=channel_id)


def _who(api, tokens, channel_type):
    """{member_urn, member_name, organizations} of a sign-in: the member
    (personal), or the pages they administer (brand)."""
    if channel_type == "personal":
        urn, name = api.member(tokens.access_token)
        return {"member_urn": urn, "member_name": name, "organizations": []}
    pages = api.administered_pages(tokens.access_token)
    return {"member_urn": None, "member_name": None, "organizations": pages}


def _to_dashboard(config, channel_id, **shown):
    """303 to the dashboard's channels page, which shows what happened."""
    query = urlencode({"channel": channel_id, **shown}, quote_via=quote)
    response = make_response("", 303)
    response.headers["Location"] = (
        f"{config['PUBLIC_URL'].rstrip('/')}{DASHBOARD_PATH}#/channels?{query}"
    )
    return _finished(response)


def _page(status, title, message):
    body = (
        "<!doctype html>\n<html lang=en><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>\n"
        f"<h1>{html.escape(title)}</h1>\n<p>{html.escape(message)}</p>\n"
        f'<p><a href="{DASHBOARD_PATH}#/channels">Back to the channels</a></p>\n'
    )
    response = make_response(body, status)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    return _finished(response)


def _finished(response):
    response.headers.update(PAGE_HEADERS)
    response.delete_cookie(COOKIE, path=CALLBACK_PATH)
    return response
