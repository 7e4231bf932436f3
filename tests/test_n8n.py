"""The n8n kit (integrations/n8n/) against real n8n (marker `n8n`, `make test-n8n`).

The service (gunicorn) with its dispatcher, the shipped nginx in front, the
LinkedIn stand-in (harness/linkedin_standin.py) and n8n 2.40.7 installed
from the npm registry (harness/n8n.py), all on loopback. Both workflows are
imported as shipped, their base URL pointed at nginx, with the credentials
a user would make, and run on posts that include a tricky text:

- claim and publish, run with `n8n execute`: a claim of 30 posts publishes
  all 30 through nginx's limits; a post LinkedIn refuses ends Failed with
  LinkedIn's message while the others of its claim are published;
- push: the service delivers `post.due` to n8n's Webhook node, which checks
  the token header, publishes and reports before it answers; a repeated
  `webhook-id` is dropped.

Every post ends Published with the URN the stand-in returned, or Failed with
its message; the stand-in received each post exactly once, with exactly the
escaped text.
"""

import json
import time
from types import SimpleNamespace

import pytest

from content_publishing.linkedin import escape
from harness import Client, Dispatcher, Nginx, create_key, nginx_binary, serve
from harness.api import CHANNELS, CLAIM, DELIVERIES, HOOK, HOOKS, IMPORT, ITEM
from harness.clock import ahead
from harness.linkedin_standin import LinkedInStandIn
from harness.n8n import N8N_VERSION, N8n, installed
from harness.paths import ROOT
from harness.server import free_port
from tests.browser_support import ARTIFACTS, new_page

pytestmark = [
    pytest.mark.n8n,
    pytest.mark.skipif(not installed(), reason="n8n is not installed (make test-n8n)"),
    pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (make nginx)"),
]

KIT = ROOT / "integrations" / "n8n"
CLAIM_WORKFLOW, PUSH_WORKFLOW = "cpsClaimPublish1", "cpsPushPublish01"
WEBHOOK = "/webhook/content-publishing-post-due"  # the push workflow's production path
LINKEDIN_TOKEN = "AQX-stand-in-access-token"
AUTHOR = "urn:li:person:n8nKit_1"
TRICKY = (
    "Launch day (finally) for snake_case_fans with @[Ann_B (PM)](urn:li:person:a_b-1) "
    "#launch_day and #2026: https://x.example/a_(b)?q=1*2 ~ {braces} <3 \\o/ | a*b"
)
# What LinkedIn must receive for TRICKY, spelled out rather than computed
TRICKY_COMMENTARY = (
    "Launch day \\(finally\\) for snake\\_case\\_fans with @[Ann\\_B \\(PM\\)](urn:li:person:a_b-1) "
    "#launch\\_day and #2026: https://x.example/a_(b)?q=1*2 \\~ \\{braces\\} \\<3 \\\\o/ \\| a\\*b"
)
SERVER_ENV = {
    "FLASK_SCHEDULE_MIN_LEAD_SECONDS": "-1000000000",  # posts may be due at once
    "FORWARDED_ALLOW_IPS": "127.0.0.1",
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("n8n")
    nginx_port = free_port()
    with LinkedInStandIn(LINKEDIN_TOKEN) as linkedin:
        linkedin.fail_on("FAIL-ME", 422, "Stand-in refusal: this post breaks a rule (FAIL-ME)")
        linkedin.fail_on("FAIL-500", 500, "Internal Server Error")
        linkedin.drop_on("DROP-ME")
        n8n = N8n(tmp / "n8n-home")
        env = {
            **SERVER_ENV,
            "FLASK_WEBHOOK_ALLOWED_PRIVATE": f"127.0.0.1/32:{n8n.port}",  # n8n on the same host
            "FLASK_LINKEDIN_API_BASE": linkedin.url,
            "FLASK_PUBLIC_URL": f"http://127.0.0.1:{nginx_port}",
        }
        with (
            serve(tmp, workers=2, env=env, log=tmp / "gunicorn.log") as server,
            Nginx(server.port, tmp / "nginx", port=nginx_port) as nginx,
            Dispatcher(server.database, env=env, log=tmp / "dispatcher.log"),
        ):
            key = create_key(server.database, user="n8n-user")
            api = Client(server.url, key, timeout=30)
            r = api.post(CHANNELS, {"type": "personal", "name": "Me", "author_urn": AUTHOR})
            assert r.status == 201, r
            hook = api.post(
                HOOKS,
                {
                    "url": n8n.url + WEBHOOK,
                    "events": ["post.due"],
                    "auth_header": {"name": "X-Hook-Token"},
                },
            )
            assert hook.status == 201, hook
            # Off until the push test: the claim tests pull the same user's posts.
            off = api.patch(HOOK + hook.json["id"], {"enabled": False})
            assert off.status == 200, off
            setup_n8n(n8n, tmp, nginx.url, key, hook.json["auth_header"]["token"])
            n8n.start()
            try:
                yield SimpleNamespace(
                    server=server,
                    nginx=nginx,
                    linkedin=linkedin,
                    n8n=n8n,
                    api=api,
                    hook_id=hook.json["id"],
                    hook_token=hook.json["auth_header"]["token"],
                )
            finally:
                n8n.stop()


def setup_n8n(n8n, tmp, base_url, key, hook_token):
    """What a user does in n8n's editor: import both workflows, fill in the
    base URL and the credentials, activate the push workflow."""
    credentials = [
        {
            "id": "cpsApiKeyHeader1",
            "name": "Content Publishing API key",
            "type": "httpHeaderAuth",
            "data": {"name": "X-API-Key", "value": key},
        },
        {
            "id": "linkedInBearer01",
            "name": "LinkedIn access token",
            "type": "httpHeaderAuth",
            "data": {"name": "Authorization", "value": f"Bearer {LINKEDIN_TOKEN}"},
        },
        {
            "id": "cpsHookToken0001",
            "name": "Content Publishing webhook token",
            "type": "httpHeaderAuth",
            "data": {"name": "X-Hook-Token", "value": hook_token},
        },
    ]
    (tmp / "credentials.json").write_text(json.dumps(credentials))
    n8n.import_credentials(tmp / "credentials.json")
    for name in ("claim-and-publish.json", "push.json"):
        workflow = json.loads((KIT / name).read_text())
        for node in workflow["nodes"]:
            if node["name"] == "Settings":
                for field in node["parameters"]["assignments"]["assignments"]:
                    if field["name"] == "baseUrl":
                        field["value"] = base_url
                    if field["name"] == "claimLimit":
                        field["value"] = 30
        (tmp / name).write_text(json.dumps(workflow))
        n8n.import_workflow(tmp / name)
    n8n.activate(PUSH_WORKFLOW)


def schedule(api, contents):
    """Scheduled posts, due at once (a few seconds ago: a pushed post must be
    delivered within FLASK_HANDOFF_MAX_DELAY_SECONDS of its time): their ids."""
    rows = [
        {"type": "personal", "scheduled_at": ahead(-60 + i)}
        | (content if isinstance(content, dict) else {"content": content})
        for i, content in enumerate(contents)
    ]
    r = api.post(IMPORT, {"posts": rows})
    assert r.status == 201, r
    return [post["id"] for post in r.json["data"]]


def read(api, ids):
    posts = {}
    for post_id in ids:
        r = api.get(ITEM + post_id)
        assert r.status == 200, r
        posts[post_id] = r.json
    return posts


def wait_settled(api, ids, timeout=120):
    """The posts once none is Scheduled or Publishing."""
    deadline = time.monotonic() + timeout
    while True:
        posts = read(api, ids)
        if all(p["status"] in {"Published", "Failed"} for p in posts.values()):
            return posts
        if time.monotonic() > deadline:
            raise AssertionError({p["id"]: p["status"] for p in posts.values()})
        time.sleep(0.5)


def assert_published_once(stack, posts):
    """Each post Published with the URN the stand-in gave for its text, which
    it received exactly once, escaped as the service escapes it."""
    created = {}
    for received in stack.linkedin.created:
        created.setdefault(received.commentary, []).append(received)
    for post in posts:
        assert post["status"] == "Published", post
        arrivals = created.get(escape(post["content"]), [])
        assert len(arrivals) == 1, (post["content"], arrivals)
        assert arrivals[0].body["author"] == AUTHOR
        assert post["linkedin_post_id"] == arrivals[0].urn
        assert post["live_url"] == f"https://www.linkedin.com/feed/update/{arrivals[0].urn}/"


def test_a_claim_of_30_publishes_all_30_through_nginx(stack):
    contents = [TRICKY] + [f"Post {i} of the batch (n8n_kit) #batch{i}" for i in range(1, 30)]
    ids = schedule(stack.api, contents)
    started = time.monotonic()
    output = stack.n8n.execute(CLAIM_WORKFLOW)
    took = time.monotonic() - started
    posts = wait_settled(stack.api, ids, timeout=30)
    assert_published_once(stack, [posts[i] for i in ids])
    tricky = [r for r in stack.linkedin.created if r.commentary == TRICKY_COMMENTARY]
    assert len(tricky) == 1 and posts[ids[0]]["linkedin_post_id"] == tricky[0].urn
    log = stack.nginx.access_log()
    callbacks = [
        line for line in log.splitlines() if "POST /functions/v1/make-post-callback" in line
    ]
    assert len(callbacks) == 30 and all('" 200 ' in line for line in callbacks), callbacks
    print(
        f"\nn8n {N8N_VERSION}: claim of 30 published in {took:.1f} s (n8n execute)\n{output[-300:]}"
    )


def test_a_post_linkedin_refuses_ends_failed_with_its_message_and_the_rest_go_on(stack):
    contents = ["Good one (a)", "Please FAIL-ME (b)", "FAIL-500 (c)", "DROP-ME (d)", "Good two (e)"]
    with_media = {"content": "With an image (f)", "media_urls": ["https://cdn.example/a.png"]}
    ids = schedule(stack.api, [*contents, with_media])
    stack.n8n.execute(CLAIM_WORKFLOW)
    posts = wait_settled(stack.api, ids, timeout=30)
    assert_published_once(stack, [posts[ids[0]], posts[ids[4]]])
    failed = [posts[i] for i in ids[1:4]]
    assert [p["status"] for p in failed] == ["Failed"] * 3, failed
    assert all(p["handoff_id"] is None for p in failed)
    assert failed[0]["last_error"] == (
        "LinkedIn answered 422: Stand-in refusal: this post breaks a rule (FAIL-ME)"
    )
    assert failed[1]["last_error"] == "LinkedIn answered 500: Internal Server Error"
    # No answer at all: the node's error output reports it too.
    assert failed[2]["last_error"].startswith("LinkedIn could not be reached: "), failed[2]
    for content in contents[1:4]:
        sent = [r for r in stack.linkedin.received if r.commentary == escape(content)]
        assert len(sent) == 1, (content, sent)
    # The kit publishes text only: a post with media is not sent without it.
    media = posts[ids[5]]
    assert media["status"] == "Failed" and media["last_error"].startswith(
        "This workflow publishes text only, and the post has 1 media URL(s)"
    ), media
    assert not [r for r in stack.linkedin.received if "With an image" in (r.commentary or "")]


def test_nothing_due_is_a_quiet_run(stack):
    before = len(stack.linkedin.received)
    stack.n8n.execute(CLAIM_WORKFLOW)
    assert len(stack.linkedin.received) == before


def test_push_publishes_each_due_post_and_drops_a_repeated_delivery(stack):
    r = stack.api.patch(HOOK + stack.hook_id, {"enabled": True})
    assert r.status == 200, r
    contents = [TRICKY + " (pushed)", "Pushed plain post_2", "Pushed FAIL-ME post"]
    ids = schedule(stack.api, contents)
    posts = wait_settled(stack.api, ids, timeout=120)
    assert_published_once(stack, [posts[ids[0]], posts[ids[1]]])
    failed = posts[ids[2]]
    assert failed["status"] == "Failed" and failed["last_error"] == (
        "LinkedIn answered 422: Stand-in refusal: this post breaks a rule (FAIL-ME)"
    ), failed

    deliveries = stack.api.get(f"{DELIVERIES}?endpoint_id={stack.hook_id}&limit=100")
    assert deliveries.status == 200, deliveries
    by_post = {d["post_id"]: d for d in deliveries.json["data"] if d["event_type"] == "post.due"}
    assert set(by_post) == set(ids)
    for delivery in by_post.values():
        assert delivery["outcome"] == "delivered", delivery
        # n8n answered after the workflow: the answer is the Respond node's.
        assert [a["status_code"] for a in delivery["attempts"]] == [200], delivery

    # A delivery again under a webhook-id n8n has taken (as a retry whose
    # first answer was lost would come): n8n drops it. One post pushed on
    # its own first: n8n saves a workflow's static data when a run ends, so
    # runs side by side overwrite each other's record (integrations/README.md).
    [alone] = schedule(stack.api, ["Pushed on its own"])
    assert wait_settled(stack.api, [alone])[alone]["status"] == "Published"
    log = stack.api.get(f"{DELIVERIES}?post_id={alone}").json["data"]
    taken = [d["event_id"] for d in log if d["outcome"] == "delivered"][0]
    # The service does not send a delivery again for a post no longer in its
    # handoff, so the test sends one, as the service does, for a post claimed
    # with the endpoint off.
    assert stack.api.patch(HOOK + stack.hook_id, {"enabled": False}).status == 200
    [post_id] = schedule(stack.api, ["Sent twice under one webhook-id"])
    claimed = stack.api.post(CLAIM, {"limit": 1})
    assert [p["id"] for p in claimed.json["data"]] == [post_id], claimed
    record = claimed.json["data"][0]
    payload = {
        "type": "post.due",
        "timestamp": ahead(0),
        "data": {
            "post": {k: v for k, v in record.items() if k != "linkedin_request"},
            "handoff_id": record["handoff_id"],
            "callback_url": f"{stack.nginx.url}/functions/v1/make-post-callback",
            "lease_seconds": 600,
            "linkedin_request": record["linkedin_request"],
        },
    }
    before = len(stack.linkedin.received)
    with Client(stack.n8n.url, timeout=60) as n8n:
        wrong = n8n.post(WEBHOOK, payload, headers={"webhook-id": "msg_x", "X-Hook-Token": "no"})
        repeated = n8n.post(WEBHOOK, payload, headers=hook_headers(stack, taken))
        assert (wrong.status, repeated.status) == (403, 200), (wrong, repeated)
        assert len(stack.linkedin.received) == before
        assert read(stack.api, [post_id])[post_id]["status"] == "Publishing"
        fresh = n8n.post(WEBHOOK, payload, headers=hook_headers(stack, "msg_fresh_n8n_kit"))
        assert fresh.status == 200, fresh
    assert_published_once(stack, [read(stack.api, [post_id])[post_id]])


def hook_headers(stack, webhook_id):
    return {"webhook-id": webhook_id, "X-Hook-Token": stack.hook_token}


def test_both_workflows_open_in_n8ns_editor(stack, browser):
    """What a user sees after importing the kit: each workflow opens in the
    editor with every node on the canvas under its name. The pictures go to
    test-artifacts/n8n-*.png; integrations/n8n/*.png are copies of them."""
    owner = {
        "email": "owner@example.com",
        "firstName": "Kit",
        "lastName": "Tester",
        "password": "KitTester2026",
    }
    page = new_page(browser, viewport={"width": 1600, "height": 900})
    try:
        assert page.request.post(f"{stack.n8n.url}/rest/owner/setup", data=owner).ok
        for workflow_id, name in ((CLAIM_WORKFLOW, "claim-and-publish"), (PUSH_WORKFLOW, "push")):
            nodes = [
                node["name"]
                for node in json.loads((KIT / f"{name}.json").read_text())["nodes"]
                if not node["type"].endswith("stickyNote")
            ]
            page.goto(f"{stack.n8n.url}/workflow/{workflow_id}")
            canvas = page.locator('[data-test-id="canvas-node"]')
            canvas.first.wait_for()
            assert canvas.count() == len(nodes)
            for node in nodes:
                assert page.locator('[data-test-id="canvas-node"]', has_text=node).count() >= 1, (
                    node
                )
            page.wait_for_timeout(1000)  # the canvas fits the view after the nodes appear
            page.screenshot(path=ARTIFACTS / f"n8n-{name}.png")
    finally:
        page.context.close()
