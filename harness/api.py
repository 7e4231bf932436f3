"""The service's URLs, and reading a user's posts back through them.

The ledger checks what the service stored by asking the service, not by
opening its database file: the checks then hold for any storage backend
(a PostgreSQL one is coming), and they see what a client would see.
"""

from datetime import UTC

# The service's paths: the one place the tests, the bench and the faults take them from.
API = "/functions/v1"
POSTS = f"{API}/api-v2-posts"
ITEM = f"{API}/api-v2-posts-item/"
CALLBACK = f"{API}/make-post-callback"
CLAIM = f"{API}/api-v2-posts-claim"
IMPORT = f"{API}/api-v2-posts-import"
QUEUE = f"{API}/api-v2-posts-queue"
RECYCLE = f"{API}/api-v2-posts-recycle/"
HISTORY = f"{API}/api-v2-posts-history/"
STATS = f"{API}/api-v2-posts-stats"
ANALYTICS = f"{API}/analytics"
CHANNELS = f"{API}/channels"
CHANNEL = f"{API}/channels-item/"
SLOTS = f"{API}/channels-slots/"
HOOKS = f"{API}/webhooks"
HOOK = f"{API}/webhooks-item/"
DELIVERIES = f"{API}/webhook-deliveries"
REDELIVER = f"{API}/webhook-deliveries-redeliver"
PING = f"{API}/webhooks-ping"
ARTICLES = f"{API}/articles-api"
ARTICLE = f"{API}/articles-api-item/"
MEDIA = f"{API}/media"
ME = f"{API}/me"
SPEC = f"{API}/openapi.json"
DASHBOARD = f"{API}/dashboard"
PAGE = 100  # the list endpoint's largest page


class ReadError(RuntimeError):
    """The posts could not be read back completely."""


def read_posts(client):
    """Every post of the client's key's user: {id: post record}.

    Pages through the list (newest first, ties broken by id, so the order is
    stable while nothing writes) and checks the count against `total`."""
    posts, offset, total = {}, 0, None
    while total is None or offset < total:
        r = client.get(f"{POSTS}?limit={PAGE}&offset={offset}")
        if r.status != 200:
            raise ReadError(f"GET {POSTS} offset {offset}: {r.status or r.error} {r.text[:300]}")
        page = r.json
        total = page["total"]
        if not page["data"]:
            break
        for post in page["data"]:
            posts[post["id"]] = post
        offset += len(page["data"])
    if len(posts) != total:
        raise ReadError(f"read {len(posts)} distinct posts, the list's total is {total}")
    return posts


def rfc3339(moment):
    """An aware datetime as the service's RFC 3339 text (UTC, microseconds)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
