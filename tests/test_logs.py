"""The service's logs against real gunicorn and a dispatcher, in both
formats (README "Metrics and logs"): no key, webhook secret or post content
in any line, whatever is sent where; every line of a request names its id,
with the key's id and user; FLASK_LOG_FORMAT=json writes one JSON object
per line.

Two runs (text logs on SQLite, JSON logs on PostgreSQL) send known keys (valid, unknown, malformed,
revoked; in X-API-Key, Bearer, Basic auth `curl -u KEY:`, `?apikey=`, the
path, Referer, User-Agent and X-Request-ID; the prefix also in other cases
and percent-encoded), creates and rotates a webhook
(so `whsec_` secrets are in answers), and puts a unique marker in the
content of posts and articles, through every operation of the OpenAPI
document, the pages outside it, and requests that end in errors (the app's
400, 401, 403, 404, 405, 409, 412, 413, 415 and gunicorn's own 400, 414,
431), while a dispatcher delivers the events (whose bodies hold the marker).
"""

import base64
import io
import json
import re
import socket
import urllib.parse
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import unquote

import pytest
from PIL import Image

from harness import Client, Dispatcher, Receiver, create_key, flask_cli, serve
from tests.conftest import live_database_for

# Both halves in make test: the PostgreSQL one is the run with JSON logs.
pytestmark = pytest.mark.both_backends

V1 = "/functions/v1"
SERVER_ENV = {
    "FLASK_METRICS": "1",
    "FLASK_WEBHOOK_ALLOW_PRIVATE": "1",
    "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000",
}
# A plain key or secret: the prefix in any case and then anything but the
# redaction mark (looked for in the log as written and URL-decoded).
PLAIN_SECRET = re.compile(r"(svc_live_|whsec_|whtok_)(?!\[redacted\])", re.IGNORECASE)


@pytest.fixture(scope="module")
def log_format(live_backend):
    """Each format once, each on one backend: two server runs, not four. What
    a line holds comes from the app and the dispatcher, not the database."""
    return {"sqlite": "text", "postgresql": "json"}[live_backend]


class Run:
    """What one run sent, and the logs it left."""

    def __init__(self, tmp, log_format):
        self.tmp = tmp
        self.log_format = log_format
        self.marker = f"content-marker-{uuid.uuid4().hex}"
        self.secrets = []  # every whsec_ secret an answer showed
        self.sent = set()  # (METHOD, path template) of every request
        self.traced = {}  # request id -> (what, status)

    def lines(self, name):
        return (self.tmp / name).read_text(errors="replace").splitlines()


@pytest.fixture(scope="module")
def run(tmp_path_factory, live_backend, log_format):
    tmp = tmp_path_factory.mktemp(f"logs-{log_format}")
    result = Run(tmp, log_format)
    env = {**SERVER_ENV, "FLASK_LOG_FORMAT": log_format}
    with live_database_for(live_backend) as database, Receiver() as receiver:
        with serve(tmp, workers=2, env=env, log=tmp / "server.log", database=database) as server:
            dispatcher = Dispatcher(
                server.database,
                name="logs",
                log=tmp / "dispatcher.log",
                env={**env, "FLASK_PUBLIC_URL": server.url},
            )
            with dispatcher:
                send_everything(server, receiver, result)
            assert dispatcher.proc.returncode == 0  # stopped by SIGTERM, its last line written
    return result


def new_key(database, user, scopes):
    """(key, key id) made as an operator would."""
    args = ["keys", "create", "--user", user]
    for scope in scopes:
        args += ["--scope", scope]
    output = flask_cli(database, *args)
    key_id = int(re.search(r"Created key (\d+)", output).group(1))
    return output.splitlines()[-1], key_id


def jpeg_with_exif(text):
    """A small JPEG whose EXIF description holds `text`."""
    exif = Image.Exif()
    exif[0x010E] = text  # ImageDescription
    out = io.BytesIO()
    Image.new("RGB", (4, 4), "green").save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def send_everything(server, receiver, run):
    database = server.database
    key = create_key(database, user="writer")
    reader, reader_id = new_key(database, "reader", ["posts:read"])
    revoked = create_key(database, user="gone")
    flask_cli(database, "keys", "revoke", revoked)
    run.keys = [key, reader, revoked]
    run.traced_user, run.traced_key_id = "reader", reader_id
    unknown = "svc_live_" + uuid.uuid4().hex + uuid.uuid4().hex[:8]
    malformed = "svc_live_" + uuid.uuid4().hex[:12]
    run.keys += [unknown, malformed]
    marker = run.marker
    client = Client(server.url, key, timeout=30)
    anonymous = Client(server.url, timeout=30)

    def send(method, template, path=None, body=None, expect=None, via=client, **kw):
        run.sent.add((method, template))
        r = via.request(method, path or template, body, **kw)
        assert r.status is not None, r
        if expect is not None:
            assert r.status == expect, (method, path or template, r)
        return r

    # Webhooks: create (a secret in the answer), read, rotate (another one).
    r = send(
        "POST",
        f"{V1}/webhooks",
        body={
            "url": receiver.url,
            "events": ["post.published", "article.published"],
            "auth_header": {"name": "X-Receiver-Token"},  # a token every delivery carries
        },
        expect=201,
    )
    hook = r.json
    run.secrets += [hook["secret"], hook["auth_header"]["token"]]
    receiver.secrets.append(hook["secret"])
    hook_item = f"{V1}/webhooks-item/{{webhook_id}}"
    send("GET", f"{V1}/webhooks", expect=200, headers={"Authorization": f"Bearer {key}"})
    send("GET", f"{V1}/me", expect=200)
    send("GET", hook_item, f"{V1}/webhooks-item/{hook['id']}", expect=200)
    r = send(
        "PATCH",
        hook_item,
        f"{V1}/webhooks-item/{hook['id']}",
        body={"rotate_secret": True, "rotate_auth_header": True},
        expect=200,
    )
    run.secrets += [r.json["secret"], r.json["auth_header"]["token"]]
    receiver.secrets.append(r.json["secret"])

    # Posts: the marker in content, through the whole lifecycle.
    posts, post_item = f"{V1}/api-v2-posts", f"{V1}/api-v2-posts-item/{{post_id}}"
    idem = {"Idempotency-Key": f"idem-{uuid.uuid4().hex}"}
    body = {"type": "personal", "content": f"{marker} first"}
    post = send("POST", posts, body=body, headers=idem, expect=201).json
    send("POST", posts, body={**body, "content": f"{marker} other"}, headers=idem, expect=409)
    send("GET", posts, f"{posts}?limit=5", expect=200)
    item = f"{V1}/api-v2-posts-item/{post['id']}"
    send("GET", post_item, item, expect=200, headers={"Authorization": f"Bearer {key}"})
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    change = {"content": f"{marker} edited", "status": "Scheduled", "scheduled_at": past}
    send("PATCH", post_item, item, body=change, headers={"If-Match": '"1"'}, expect=200)
    send("PATCH", post_item, item, body=change, headers={"If-Match": '"1"'}, expect=412)
    claimed = send("POST", f"{V1}/api-v2-posts-claim", body={}, expect=200).json
    assert [p["id"] for p in claimed["data"]] == [post["id"]]
    published = {
        "post_id": post["id"],
        "linkedin_post_id": "urn:li:share:7012345678901234567",
        "live_url": "https://www.linkedin.com/feed/update/urn:li:share:7012345678901234567",
    }
    send("POST", f"{V1}/make-post-callback", body=published, expect=200)
    # Its figures, and the analytics they make (the marker is in the post's text).
    snapshot = {"post_id": post["id"], "taken_at": datetime.now(UTC).isoformat(), "clicks": 3}
    send("POST", f"{V1}/api-v2-posts-stats", body={"data": [snapshot]}, expect=200)
    stats = f"{V1}/api-v2-posts-stats/{{post_id}}"
    send("GET", stats, f"{V1}/api-v2-posts-stats/{post['id']}", expect=200)
    send("GET", f"{V1}/analytics", expect=200)
    send("GET", f"{V1}/analytics.csv", expect=200)
    other = send("POST", posts, body={"type": "personal", "content": marker}, expect=201).json
    send("DELETE", post_item, f"{V1}/api-v2-posts-item/{other['id']}", expect=204)

    # Planning: a channel (the marker in its name), its slots, the queue and an import.
    channels, channel_item = f"{V1}/channels", f"{V1}/channels-item/{{channel_id}}"
    slots = [{"day": day, "time": "09:00"} for day in ("mon", "tue", "wed", "thu", "fri")]
    send("POST", channels, body={"type": "personal", "name": marker, "slots": slots}, expect=201)
    send("GET", channels, expect=200)
    send("GET", channel_item, f"{V1}/channels-item/personal", expect=200)
    send("PATCH", channel_item, f"{V1}/channels-item/personal", body={"daily_cap": 5}, expect=200)
    send("GET", f"{V1}/channels-slots/{{channel_id}}", f"{V1}/channels-slots/personal", expect=200)
    queued = send("POST", posts, body={"type": "personal", "content": marker}, expect=201).json
    send("POST", f"{V1}/api-v2-posts-queue", body={"post_id": queued["id"]}, expect=200)
    send("POST", f"{V1}/api-v2-posts-preview", body={"post_id": queued["id"]}, expect=200)
    recycle = f"{V1}/api-v2-posts-recycle/{{post_id}}"
    send("POST", recycle, f"{V1}/api-v2-posts-recycle/{post['id']}", expect=201)
    # Hashtag sets: the marker in a set's name.
    sets, set_item = f"{V1}/hashtag-sets", f"{V1}/hashtag-sets-item/{{set_id}}"
    saved = send("POST", sets, body={"name": marker, "hashtags": ["#B2B"]}, expect=201).json
    send("GET", sets, expect=200)
    one_set = f"{V1}/hashtag-sets-item/{saved['id']}"
    send("GET", set_item, one_set, expect=200)
    send("PATCH", set_item, one_set, body={"hashtags": ["#B2B", "#SaaS"]}, expect=200)
    send("DELETE", set_item, one_set, expect=204)
    history = f"{V1}/api-v2-posts-history/{{post_id}}"
    send("GET", history, f"{V1}/api-v2-posts-history/{queued['id']}", expect=200)
    occurrences = f"{V1}/api-v2-posts-occurrences"
    send(
        "GET",
        occurrences,
        f"{occurrences}?from=2030-01-01T00:00:00Z&to=2030-01-31T00:00:00Z",
        expect=200,
    )
    send("GET", posts, f"{posts}?q={marker.split('-')[0]}", expect=200)

    # Media: an image whose EXIF holds the marker; it is stripped, never logged.
    photo = send(
        "POST",
        f"{V1}/media",
        body=jpeg_with_exif(marker),
        headers={"Content-Type": "image/jpeg"},
        expect=201,
    ).json
    send("GET", f"{V1}/media", expect=200)
    send("GET", "/media/{media_id}.{ext}", urllib.parse.urlsplit(photo["url"]).path, expect=200)
    media_item = f"{V1}/media-item/{{media_id}}"
    photo_item = f"{V1}/media-item/{photo['id']}"
    send("GET", media_item, photo_item, expect=200)
    alt = {"alt_text": f"a photo {marker}"}
    send("PATCH", media_item, photo_item, body=alt, headers={"If-Match": '"1"'}, expect=200)
    send("DELETE", media_item, photo_item, expect=204)
    imported = {"posts": [{"type": "personal", "content": marker, "queue": True}]}
    send("POST", f"{V1}/api-v2-posts-import", body=imported, expect=201)
    # LinkedIn (no app set up on this server: 409s), and a sign-in's callback
    # whose code and state hold the marker: neither is logged.
    connect = f"{V1}/channels-connect/{{channel_id}}"
    send("POST", connect, f"{V1}/channels-connect/personal", expect=409)
    send("DELETE", connect, f"{V1}/channels-connect/personal", expect=409)
    callback = f"{V1}/linkedin/callback"
    sign_in = f"{callback}?code={marker}&state={marker}"
    send("GET", callback, sign_in, via=anonymous, headers={"Referer": sign_in}, expect=409)
    send("DELETE", channel_item, f"{V1}/channels-item/personal", expect=204)

    # Members: the marker in a name and an e-mail; the invitation's token
    # and the key it makes are secrets, never logged.
    members, member_item = f"{V1}/members", f"{V1}/members-item/{{member_id}}"
    invite = {"name": f"m{marker}"[:50], "email": f"x{marker}@example.com", "role": "viewer"}
    invited = send("POST", members, body=invite, expect=201).json
    token = invited["invite_url"].rsplit("/", 1)[1]
    run.secrets.append(token)
    send("GET", members, expect=200)
    accepted = send(
        "POST", f"{V1}/invites-accept", body={"token": token}, via=anonymous, expect=201
    ).json
    run.secrets.append(accepted["key"])
    item = f"{V1}/members-item/{invited['id']}"
    send("PATCH", member_item, item, body={"role": "editor"}, expect=200)
    send("PATCH", member_item, item, body={"notify": ["post.failed"]}, expect=200)
    send("DELETE", member_item, item, expect=204)
    # Accounts: an invitation read and taken up with a password, sessions by
    # cookie, sign-ins right and wrong, links. The password, the session's
    # token (the cookie), its CSRF token and every link's token are secrets.
    password = f"pw-{uuid.uuid4().hex}"
    invite = {"name": "person", "email": "person@example.com", "role": "editor"}
    token = send("POST", members, body=invite, expect=201).json["invite_url"].rsplit("/", 1)[1]
    read = f"{V1}/invites/{{token}}"
    send("GET", read, f"{V1}/invites/{token}", via=anonymous, expect=200)
    r = send(
        "POST",
        f"{V1}/invites-accept",
        body={"token": token, "password": password},
        via=anonymous,
        expect=201,
    )
    cookie = r.headers["set-cookie"].split(";", 1)[0]
    run.secrets += [token, r.json["key"], password, cookie.split("=", 1)[1], r.json["csrf_token"]]
    browser = Client(server.url, timeout=30)
    by_cookie = {"Cookie": cookie, "X-CSRF-Token": r.json["csrf_token"], "Origin": server.url}
    send("GET", f"{V1}/me", via=browser, headers=by_cookie, expect=200)
    sessions = send("GET", f"{V1}/sessions", via=browser, headers=by_cookie, expect=200).json
    switch = {"workspace_id": r.json["workspace"]["id"]}
    send("PATCH", f"{V1}/session", body=switch, via=browser, headers=by_cookie, expect=200)
    wrong = {"email": "person@example.com", "password": f"{password}-wrong"}
    send("POST", f"{V1}/session", body=wrong, via=anonymous, expect=401)
    right = {"email": "person@example.com", "password": password}
    other = send("POST", f"{V1}/session", body=right, via=anonymous, expect=200)
    run.secrets += [other.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]]
    send("POST", f"{V1}/session-link", body={"email": "person@example.com"}, via=anonymous)
    send("POST", f"{V1}/password-reset", body={"email": "person@example.com"}, via=anonymous)
    link = re.search(r"#/link/(\S+)", flask_cli(database, "accounts", "link", "person@example.com"))
    run.secrets.append(link[1])
    used = send(
        "POST", f"{V1}/session-link-use", body={"token": link[1]}, via=anonymous, expect=201
    )
    run.secrets += [used.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]]
    # The account page: its name, the second factor (its secret is shown
    # once), and keys of one's own (shown once).
    account = f"{V1}/account"
    send("GET", account, via=browser, headers=by_cookie, expect=200)
    send("PATCH", account, body={"name": "Person"}, via=browser, headers=by_cookie, expect=200)
    factor = f"{V1}/account-second-factor"
    begun = send("POST", factor, body={"action": "begin"}, via=browser, headers=by_cookie)
    run.secrets.append(begun.json["secret"])
    off = {"action": "off", "current_password": password}
    send("POST", factor, body=off, via=browser, headers=by_cookie, expect=200)
    required = {"required": False}
    send("POST", f"{V1}/workspace-second-factor", body=required, expect=200)
    own = send(
        "POST", f"{V1}/keys", body={"scopes": ["posts:read"]}, via=browser, headers=by_cookie
    )
    run.secrets.append(own.json["key"])
    send("GET", f"{V1}/keys", via=browser, headers=by_cookie, expect=200)
    own_item = f"{V1}/keys-item/{{key_id}}"
    path = f"{V1}/keys-item/{own.json['id']}"
    send("DELETE", own_item, path, via=browser, headers=by_cookie, expect=204)
    listed = send("GET", f"{V1}/sessions", via=browser, headers=by_cookie, expect=200).json["data"]
    assert len(listed) == 3 and sessions["data"]
    ended = next(s for s in listed if not s["current"])
    session_item = f"{V1}/sessions-item/{{session_id}}"
    path = f"{V1}/sessions-item/{ended['id']}"
    send("DELETE", session_item, path, via=browser, headers=by_cookie, expect=204)
    send("DELETE", f"{V1}/sessions", via=browser, headers=by_cookie, expect=204)
    send("DELETE", f"{V1}/session", via=browser, headers=by_cookie, expect=401)
    send("DELETE", f"{V1}/session", expect=409)  # a key has no session

    # The workspace's chat webhook: its URL is the chat's secret, never logged.
    chat = f"{receiver.url}/services/T0/B0/{uuid.uuid4().hex}"
    run.secrets.append(chat)
    send("PATCH", f"{V1}/workspace", body={"chat_webhook_url": chat}, expect=200)
    send("GET", f"{V1}/workspace", expect=200)
    send("POST", f"{V1}/workspace-chat-test", expect=202)

    # Approvals and comments: the marker in a post, a review's comment and a
    # comment of the post.
    workspace = f"{V1}/workspace"
    send("GET", workspace, expect=200)
    send("PATCH", workspace, body={"approvals": "required"}, expect=200)
    reviewed = send("POST", posts, body={"type": "personal", "content": marker}, expect=201).json
    review = f"{V1}/api-v2-posts-review/{{post_id}}"
    review_item = f"{V1}/api-v2-posts-review/{reviewed['id']}"
    send("POST", review, review_item, body={"action": "submit"}, expect=200)
    changes = {"action": "request_changes", "comment": f"{marker} please"}
    send("POST", review, review_item, body=changes, expect=200)
    reviewed_item = f"{V1}/api-v2-posts-item/{reviewed['id']}"
    again = send("GET", post_item, reviewed_item, expect=200).json  # after the changes asked
    bulk = {"action": "submit", "posts": [{"id": reviewed["id"], "version": again["version"]}]}
    send("POST", f"{V1}/api-v2-posts-review-bulk", body=bulk, expect=200)
    comments = f"{V1}/api-v2-posts-comments/{{post_id}}"
    comments_item = f"{V1}/api-v2-posts-comments/{reviewed['id']}"
    send("POST", comments, comments_item, body={"body": f"{marker} noted"}, expect=201)
    send("GET", comments, comments_item, expect=200)
    send("PATCH", workspace, body={"approvals": "off"}, expect=200)

    # Articles: the marker in title and body; publishing sends an event.
    articles, article_item = f"{V1}/articles-api", f"{V1}/articles-api-item/{{article_id}}"
    article = send("POST", articles, body={"title": marker, "body": marker}, expect=201).json
    send("GET", articles, expect=200)
    item = f"{V1}/articles-api-item/{article['id']}"
    send("GET", article_item, item, expect=200)
    send("PATCH", article_item, item, body={"status": "Published", "body": marker}, expect=200)

    # The dispatcher delivers both events (their bodies hold the marker);
    # the log of deliveries, and one sent again.
    receiver.wait_for(lambda arrivals: len(arrivals) >= 2, what="post.published, article.published")
    deliveries = send("GET", f"{V1}/webhook-deliveries", expect=200).json["data"]
    redeliver = {"delivery_id": deliveries[0]["id"]}
    send("POST", f"{V1}/webhook-deliveries-redeliver", body=redeliver, expect=202)
    receiver.wait_for(lambda arrivals: len(arrivals) >= 3, what="the redelivery")
    send("DELETE", article_item, item, expect=204)
    send("POST", f"{V1}/webhooks-ping", body={"webhook_id": hook["id"]}, expect=202)
    send("DELETE", hook_item, f"{V1}/webhooks-item/{hook['id']}", expect=204)

    # Keys where they do not belong, and bad ones where they do.
    basic = base64.b64encode(f"{key}:".encode()).decode()
    for headers, path in [
        ({"Authorization": f"Basic {basic}"}, posts),  # curl -u KEY:
        ({}, f"{posts}?apikey={key}"),
        ({"X-API-Key": key}, f"{posts}?apikey={key}"),  # 400: an unknown parameter
        ({"X-API-Key": unknown}, posts),
        ({"X-API-Key": malformed}, posts),
        ({"X-API-Key": revoked}, posts),
        ({"Authorization": f"Bearer {unknown}"}, posts),
        ({"X-API-Key": key, "Referer": f"https://a.example/?k={key}", "User-Agent": key}, posts),
        ({"X-API-Key": key, "X-Request-ID": key}, posts),
        ({"X-API-Key": key}, f"{V1}/{key}"),  # 404, the key in the path
        ({"X-API-Key": key}, f"{posts}?token={run.secrets[1]}"),  # a header token in a URL
        # The prefix in another case or percent-encoded (once or twice): still a key.
        ({}, f"{posts}?apikey={key.replace('_', '%5F')}"),
        ({}, f"{posts}?apikey={key.replace('_', '%5f')}"),
        ({}, f"{posts}?apikey=SVC_live_{key[9:]}"),
        ({}, f"{posts}?apikey=Svc%5FLive%5F{key[9:]}"),
        ({"User-Agent": key.replace("_", "%255F")}, posts),
        ({"Referer": f"https://a.example/?s={run.secrets[0].replace('_', '%5F')}"}, posts),
        ({}, f"{posts}?secret={run.secrets[1].upper().replace('_', '%5f')}"),
    ]:
        send("GET", posts, path, via=anonymous, headers=headers)
    send("POST", posts, body={"type": "personal", "content": marker}, key=reader, expect=403)

    # Bodies the app refuses, each holding the marker.
    as_json = {"Content-Type": "application/json"}
    send("POST", posts, body=f'{{"content": "{marker}', headers=as_json, expect=400)
    send("POST", posts, body={"type": "personal", "content": marker + "x" * 3000}, expect=400)
    send("POST", posts, body={"type": "personal", "content": "x", marker: key}, expect=400)
    send("POST", posts, body=marker, headers={"Content-Type": "text/plain"}, expect=400)
    send("POST", posts, body=marker, headers={"Content-Type": "application/xml"}, expect=415)
    big = json.dumps({"type": "personal", "content": marker + " " * (1024 * 1024)})
    send("POST", posts, body=big, headers=as_json, expect=413)
    send("PUT", posts, body={"content": marker}, expect=405)
    send("GET", post_item, f"{V1}/api-v2-posts-item/{uuid.uuid4()}", expect=404)

    # A request whose lines are followed: the client's own id, a 404.
    traced = f"trace-{uuid.uuid4().hex}"
    r = send(
        "GET",
        post_item,
        f"{V1}/api-v2-posts-item/{uuid.uuid4()}",
        key=reader,
        headers={"X-Request-ID": traced},
        expect=404,
    )
    assert r.headers["x-request-id"] == traced
    run.traced = traced

    # Answers gunicorn makes itself, with the key in the head.
    r = anonymous.get(f"{posts}?apikey={key}&pad={'x' * 5000}")
    assert r.status == 414, r
    run.gunicorn_ids = [r.headers["x-request-id"]]
    r = anonymous.get(posts, headers={"X-API-Key": key, "X-Big": key + "x" * 9000})
    assert r.status == 431, r
    run.gunicorn_ids.append(r.headers["x-request-id"])
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(f"GET /{key} HTTP/1.1 {key}\r\n\r\n".encode())
        answer = raw.recv(65536).decode("latin-1")
    assert answer.startswith("HTTP/1.1 400"), answer
    run.gunicorn_ids.append(re.search(r"X-Request-ID: (\S+)", answer).group(1))

    # Outside the API document.
    for path in [
        "/health",
        "/metrics",
        f"{V1}/openapi.json",
        f"{V1}/docs",
        f"{V1}/docs/assets/docs.js",
        f"{V1}/dashboard",
        f"{V1}/dashboard/assets/dashboard.css",
    ]:
        send("GET", path, via=anonymous, headers={"X-API-Key": key}, expect=200)
    run.spec = send("GET", f"{V1}/openapi.json", via=anonymous, expect=200).json


def test_every_operation_of_the_document_was_sent(run):
    documented = {
        (method.upper(), path)
        for path, operations in run.spec["paths"].items()
        for method in operations
    }
    assert documented <= run.sent, sorted(documented - run.sent)


def test_no_key_secret_or_content_reaches_a_log(run):
    server, dispatcher = run.lines("server.log"), run.lines("dispatcher.log")
    assert len(server) > 60 and dispatcher, "the logs are missing"
    text = "\n".join(server + dispatcher)
    assert "svc_live_[redacted]" in text  # the keys sent where they do not belong
    decoded = unquote(unquote(text))  # as a reader of the log would decode it
    for where in (text, decoded):
        assert not PLAIN_SECRET.search(where), PLAIN_SECRET.search(where)
        assert "[redacted][redacted]" not in where  # redacted once, however many filters it met
        for key in run.keys:
            random_part = key[len("svc_live_") :]
            assert random_part not in where
            assert base64.b64encode(f"{key}:".encode()).decode() not in where  # Basic auth
        for secret in run.secrets:
            assert secret[len("whsec_") :] not in where
            assert secret[len("whsec_") :].upper() not in where
    assert run.marker not in text


def request_lines(run, request_id):
    """The server's lines that name `request_id`, as dicts (JSON) or text."""
    found = []
    for line in run.lines("server.log"):
        if run.log_format == "json":
            entry = json.loads(line)
            if entry.get("request_id") == request_id:
                found.append(entry)
        elif f"request_id={request_id}" in line:
            found.append(line)
    return found


def test_the_lines_of_a_request_name_its_id_key_id_and_user(run):
    lines = request_lines(run, run.traced)
    assert len(lines) == 2, lines  # the access line, and the app's line saying why
    if run.log_format == "json":
        access, answered = sorted(lines, key=lambda e: e["logger"] != "gunicorn.access")
        assert access["logger"] == "gunicorn.access" and access["status"] == 404
        assert "answered 404 not_found" in answered["message"]
        for entry in lines:
            assert (entry["key_id"], entry["user"]) == (run.traced_key_id, run.traced_user)
    else:
        for line in lines:
            assert f"key_id={run.traced_key_id} user={run.traced_user}" in line
        assert any('HTTP/1.1" 404 ' in line for line in lines)
        assert any("errors: answered 404 not_found" in line for line in lines)


def test_gunicorns_own_answers_name_their_id_in_its_log(run):
    for request_id in run.gunicorn_ids:
        lines = request_lines(run, request_id)
        assert lines, f"no line names {request_id}"
        text = json.dumps(lines)
        assert "Invalid request from ip=127.0.0.1" in text


def test_the_format_is_the_setting(run):
    for name in ("server.log", "dispatcher.log"):
        lines = [line for line in run.lines(name) if line.strip()]
        if run.log_format == "json":
            entries = [json.loads(line) for line in lines]  # each line one object
            assert all(isinstance(e, dict) and e["time"].endswith("Z") for e in entries)
            assert all({"level", "logger", "pid"} <= set(e) for e in entries)
            loggers = {e["logger"] for e in entries}
            if name == "server.log":
                assert {"gunicorn.access", "gunicorn.error", "errors"} <= loggers, loggers
            else:
                assert "dispatcher" in loggers, loggers
        else:
            assert not [line for line in lines if line.startswith("{")], name
    if run.log_format == "text":
        assert [line for line in run.lines("dispatcher.log") if "dispatcher logs stopped" in line]
