"""The n8n kit's "collect stats" workflow (integrations/n8n/collect-stats.json)
against real n8n (marker `n8n`, `make test-n8n`).

The service under gunicorn, a stand-in for LinkedIn's two statistics
endpoints (a page's `organizationalEntityShareStatistics`, a member's
`socialActions`) and n8n 2.40.7 (harness/n8n.py), all on loopback. The
workflow is imported as shipped, with the settings and credentials a user
fills in, and run with `n8n execute`, as its hourly trigger would: every
post published in the last 30 days gets a snapshot of what LinkedIn says,
read through the API; a post whose LinkedIn call fails gets none, and the
others are not held up by it; a second run adds a second snapshot.
"""

import json
import threading
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from harness import Client, create_key, serve
from harness.api import CALLBACK, CHANNELS, ITEM, POSTS, STATS
from harness.clock import PastMinutes
from harness.loopback import LoopbackServer, QuietHandler
from harness.n8n import N8n, installed
from harness.paths import ROOT
from harness.server import free_port

pytestmark = [
    pytest.mark.n8n,
    pytest.mark.skipif(not installed(), reason="n8n is not installed (make test-n8n)"),
]

WORKFLOW = ROOT / "integrations" / "n8n" / "collect-stats.json"
WORKFLOW_ID = "cpsCollectStats1"
TOKEN = "AQX-stats-stand-in-token"
ORGANIZATION = "urn:li:organization:4242"


class StatsStandIn(LoopbackServer):
    """LinkedIn's statistics, as far as the workflow reads them: figures per
    post URN, a 500 for the URNs in `failing`; every request is kept."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.pages, self.members, self.failing = {}, {}, set()
        self.requests = []
        self.lock = threading.Lock()

    def start(self):
        standin = self

        class Handler(QuietHandler):
            def do_GET(self):
                with standin.lock:
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    standin.requests.append((self.path, headers))
                status, body = standin.answer(self.path, self.headers)
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return self.serve(Handler)

    def answer(self, path, headers):
        if headers.get("Authorization") != f"Bearer {TOKEN}":
            return 401, {"status": 401, "message": "Invalid access token"}
        if headers.get("X-Restli-Protocol-Version") != "2.0.0" or not headers.get(
            "LinkedIn-Version"
        ):
            return 400, {"status": 400, "message": "Missing versions"}
        parts = urlsplit(path)
        if parts.path == "/rest/organizationalEntityShareStatistics":
            query = parse_qs(parts.query)
            assert query["q"] == ["organizationalEntity"], query
            assert query["organizationalEntity"] == [ORGANIZATION], query
            listed = query.get("shares") or query.get("ugcPosts")
            urn = listed[0].removeprefix("List(").removesuffix(")")
            if urn in self.failing:
                return 500, {"status": 500, "message": "Internal Server Error"}
            return 200, {"elements": [{"share": urn, "totalShareStatistics": self.pages[urn]}]}
        if parts.path.startswith("/rest/socialActions/"):
            urn = unquote(parts.path.removeprefix("/rest/socialActions/"))
            if urn in self.failing:
                return 500, {"status": 500, "message": "Internal Server Error"}
            return 200, self.members[urn]
        return 404, {"status": 404, "message": "Not here"}


def header_credential(credential_id, name, header, value):
    return {
        "id": credential_id,
        "name": name,
        "type": "httpHeaderAuth",
        "data": {"name": header, "value": value},
    }


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("n8n-stats")
    env = {"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000"}  # posts may go out at once
    with StatsStandIn() as linkedin, serve(tmp, workers=2, env=env) as server:
        key = create_key(server.database, user="collector")
        n8n = N8n(tmp / "n8n-home")
        credentials = [
            header_credential("userMadeApiKey01", "Content Publishing API key", "X-API-Key", key),
            header_credential(
                "userMadeLinkedIn", "LinkedIn access token", "Authorization", f"Bearer {TOKEN}"
            ),
        ]
        (tmp / "credentials.json").write_text(json.dumps(credentials))
        n8n.import_credentials(tmp / "credentials.json")
        workflow = json.loads(WORKFLOW.read_text())
        settings = {"baseUrl": server.url, "linkedinApi": linkedin.url}
        for node in workflow["nodes"]:
            if node["name"] == "Settings":
                for field in node["parameters"]["assignments"]["assignments"]:
                    field["value"] = settings.get(field["name"], field["value"])
        (tmp / "collect-stats.json").write_text(json.dumps(workflow))
        n8n.import_workflow(tmp / "collect-stats.json")
        yield server, Client(server.url, key, timeout=30), linkedin, n8n


PAST = PastMinutes()


def published(api, content, urn, brand=None):
    body = {"type": "brand", "brand_id": brand} if brand else {"type": "personal"}
    [at] = PAST.take(1)  # no two posts of a channel share a minute
    post = api.post(POSTS, {**body, "content": content, "scheduled_at": at}).json
    assert api.patch(ITEM + post["id"], {"status": "Scheduled"}).status == 200
    r = api.post(CALLBACK, {"post_id": post["id"], "linkedin_post_id": urn})
    assert r.status == 200, r
    return r.json


def test_collect_stats_reads_linkedin_and_posts_the_figures(stack):
    server, api, linkedin, n8n = stack
    r = api.post(
        CHANNELS,
        {"type": "brand", "brand_id": "acme", "name": "Acme", "author_urn": ORGANIZATION},
    )
    assert r.status == 201, r
    page_post = published(api, "Launch day at Acme", "urn:li:share:7001", brand="acme")
    page_ugc = published(api, "Hiring at Acme", "urn:li:ugcPost:7002", brand="acme")
    member_post = published(api, "My own notes", "urn:li:share:7003")
    broken = published(api, "LinkedIn fails on this one", "urn:li:share:7004")
    draft = api.post(POSTS, {"type": "personal", "content": "not out yet"}).json
    linkedin.pages["urn:li:share:7001"] = {
        "impressionCount": 1200,
        "uniqueImpressionsCount": 900,
        "likeCount": 40,
        "commentCount": 6,
        "shareCount": 3,
        "clickCount": 11,
        "engagement": 0.05,
    }
    linkedin.failing.add("urn:li:share:7004")
    linkedin.members["urn:li:share:7003"] = {
        "likesSummary": {"totalLikes": 17},
        "commentsSummary": {"aggregatedTotalComments": 4, "totalFirstLevelComments": 3},
    }
    # A page post that LinkedIn names ugcPost is asked for by ugcPosts=List(...)
    # (the stand-in reads the list either way): it fails here, as LinkedIn's
    # own 500 would, to show the others go on.
    linkedin.failing.add("urn:li:ugcPost:7002")

    out = n8n.execute(WORKFLOW_ID, timeout=300)
    assert "Execution was successful" in out, out[-3000:]

    page = api.get(f"{STATS}/{page_post['id']}").json
    assert [
        {
            k: s[k]
            for k in (
                "impressions",
                "members_reached",
                "reactions",
                "comments",
                "reshares",
                "clicks",
            )
        }
        for s in page["data"]
    ] == [
        {
            "impressions": 1200,
            "members_reached": 900,
            "reactions": 40,
            "comments": 6,
            "reshares": 3,
            "clicks": 11,
        }
    ]
    assert page["latest"]["engagement"] == pytest.approx((40 + 6 + 3 + 11) / 1200)
    member = api.get(f"{STATS}/{member_post['id']}").json["latest"]
    assert (member["reactions"], member["comments"]) == (17, 4)
    assert member["impressions"] is None and member["engagement"] is None
    for untouched in (broken, page_ugc, draft):
        assert api.get(f"{STATS}/{untouched['id']}").json["data"] == []
    paths = [path for path, _ in linkedin.requests]
    assert any("ugcPosts=List(urn%3Ali%3AugcPost%3A7002)" in p for p in paths), paths
    assert any(p.startswith("/rest/socialActions/urn%3Ali%3Ashare%3A7003") for p in paths), paths
    assert all(headers.get("linkedin-version") == "202511" for _, headers in linkedin.requests)
    assert api.get(ITEM + page_post["id"]).json["stats"]["impressions"] == 1200

    # The next hour's run: a second snapshot, the latest one on the post.
    linkedin.pages["urn:li:share:7001"] = {
        **linkedin.pages["urn:li:share:7001"],
        "impressionCount": 2000,
    }
    linkedin.failing.discard("urn:li:share:7004")
    linkedin.members["urn:li:share:7004"] = {
        "likesSummary": {"totalLikes": 2},
        "commentsSummary": {},
    }
    out = n8n.execute(WORKFLOW_ID, timeout=300)
    assert "Execution was successful" in out, out[-3000:]
    again = api.get(f"{STATS}/{page_post['id']}").json
    assert [s["impressions"] for s in again["data"]] == [1200, 2000]
    assert api.get(f"{STATS}/{broken['id']}").json["latest"]["reactions"] == 2
