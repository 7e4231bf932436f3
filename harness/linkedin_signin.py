"""Connecting a channel to the LinkedIn stand-in as a person does, for the
tests, the faults and a browser: the stand-in set up with this service's
app (its redirect URI registered) and a member who administers pages, the
settings that point the service at it, the walk through LinkedIn's
authorize page that a browser makes, and the check that no token the
stand-in issued shows anywhere."""

import contextlib
from urllib.parse import parse_qs, urlsplit

from harness.http_client import Client
from harness.linkedin_standin import LinkedInStandIn

CLIENT_ID = "cps-test-app"
CLIENT_SECRET = "cps-test-app-secret-0123456789"
CALLBACK = "/functions/v1/linkedin/callback"
CONNECT = "/functions/v1/channels-connect/"
CHANNEL = "/functions/v1/channels-item/"
CHANNELS = "/functions/v1/channels"
ADA = "ada-5ub"  # the member who signs in
PAGES = {"2414183": "Acme Europe", "90210": "Globex"}


def settings(standin, public_url):
    """FLASK_ settings (without the prefix) that point the service at `standin`."""
    return {
        "LINKEDIN_CLIENT_ID": CLIENT_ID,
        "LINKEDIN_CLIENT_SECRET": CLIENT_SECRET,
        "LINKEDIN_AUTH_BASE": standin.url,
        "LINKEDIN_API_BASE": standin.url,
        "PUBLIC_URL": public_url,
    }


def environment(standin, public_url, **more):
    """The same as FLASK_* environment variables, for a server or a dispatcher."""
    return {f"FLASK_{k}": str(v) for k, v in {**settings(standin, public_url), **more}.items()}


@contextlib.contextmanager
def linkedin_for(public_url, pages=None, token=None):
    """The stand-in, with this service's app registered (its redirect URI
    under `public_url`) and Ada signed in, administering `pages`."""
    with LinkedInStandIn(token) as standin:
        standin.accounts.add_app(CLIENT_ID, CLIENT_SECRET, public_url.rstrip("/") + CALLBACK)
        standin.accounts.add_member(ADA, "Ada Lovelace", pages if pages is not None else PAGES)
        yield standin


def authorize(standin, authorize_url, decision=None):
    """What the browser does at LinkedIn: open the authorize URL (approved at
    once, or with `decision` on the page a person sees); (status, the
    callback's path and query when LinkedIn redirects, the page otherwise)."""
    parts = urlsplit(authorize_url)
    assert f"{parts.scheme}://{parts.netloc}" == standin.url, authorize_url
    with Client(standin.url) as client:
        r = client.get(f"{parts.path}?{parts.query}")
        if decision is not None and r.status == 200:
            r = client.post(  # the page's form: its hidden fields, and the button pressed
                "/oauth/v2/authorization/decision",
                f"{parts.query}&decision={decision}",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
    if r.status != 302:
        return r.status, r.text
    back = urlsplit(r.headers["location"])
    return 302, f"{back.path}?{back.query}"


def callback_args(path_and_query):
    return {k: v[0] for k, v in parse_qs(urlsplit(path_and_query).query).items()}


def leaked(standin, *texts):
    """The tokens the stand-in issued that appear in any of `texts`."""
    found = []
    for token in standin.accounts.issued:
        if any(token in text for text in texts):
            found.append(token[:6] + "...")
    return found


def connect_live(client, standin, channel_id):
    """Connect one of `client`'s channels through a live server, as the
    dashboard and a browser do; the channel record after it."""
    r = client.post(CONNECT + channel_id)
    assert r.status == 200, r
    status, back = authorize(standin, r.json["authorize_url"])
    assert status == 302, back
    r = client.get(back)
    assert r.status == 303 and "connected=" in r.headers["location"], r
    return client.get(CHANNEL + channel_id).json
