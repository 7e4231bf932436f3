"""The n8n kit's workflow files, without n8n (in `make test`): that they are
what harness/n8n_workflows.py writes, and that their graph keeps the kit's
promises whatever LinkedIn answers. `make test-n8n` runs them on real n8n."""

import json

import pytest

from harness import make_blueprint, n8n_workflows

KIT = n8n_workflows.KIT
PUBLISHING = ["claim-and-publish.json", "push.json"]
REPORTS = {"Report published", "Report failed", "Give back"}


def workflow(name):
    return json.loads((KIT / name).read_text())


def test_the_shipped_workflows_are_what_the_builder_writes():
    for name, text in n8n_workflows.rendered().items():
        assert (KIT / name).read_text() == text, (
            f"integrations/n8n/{name} differs: run python -m harness.n8n_workflows"
        )


def successors(flow):
    return {
        source: {link["node"] for output in links["main"] for link in output}
        for source, links in flow["connections"].items()
    }


@pytest.mark.parametrize("name", PUBLISHING)
def test_every_path_from_the_plan_ends_in_a_report(name):
    """No post is left in the workflow's hands: from Plan, every node leads
    on, and the only ends are the reports to the service (the claim loop's
    Next claim? aside, which claims again or ends the run)."""
    flow = workflow(name)
    after = successors(flow)
    seen, todo = set(), ["Plan"]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        nexts = after.get(node, set()) - {"Next claim?", "Claim one post"}
        if not nexts:
            assert node in REPORTS, f"{name}: {node} ends a path without a report"
        todo.extend(nexts)
    assert seen >= REPORTS


@pytest.mark.parametrize("name", PUBLISHING)
def test_every_linkedin_answer_reaches_a_code_node_that_reads_it(name):
    """A LinkedIn call never stops the run: any status, or no answer at all,
    goes on as an item (full response, never an error) to the Code node
    that decides what it proves."""
    flow = workflow(name)
    after = successors(flow)
    calls = [
        node
        for node in flow["nodes"]
        if node.get("credentials", {}).get("httpHeaderAuth", {}).get("name")
        == "LinkedIn access token"
    ]
    assert len(calls) == 5  # initialize, PUT, the post, its comment, the check
    for node in calls:
        response = node["parameters"]["options"]["response"]["response"]
        assert response["fullResponse"] and response["neverError"], node["name"]
        assert node["onError"] == "continueRegularOutput", node["name"]
        [reader] = after[node["name"]]
        kind = {n["name"]: n["type"] for n in flow["nodes"]}[reader]
        assert kind == "n8n-nodes-base.code", (node["name"], reader)


@pytest.mark.parametrize("name", PUBLISHING)
def test_an_unknown_outcome_is_looked_for_at_linkedin_before_it_is_reported(name):
    """A 5xx, a timeout or no answer after the post was sent is never
    reported Failed at once: the author's newest posts are read first, with
    the channel's LinkedIn token, and what is found decides."""
    flow = workflow(name)
    after = successors(flow)
    assert after["Post outcome"] == {"Outcome unknown?"}
    assert after["Outcome unknown?"] == {"Wait before the check", "Comment to add?"}
    assert after["Wait before the check"] == {"Look for it on LinkedIn"}
    assert after["Look for it on LinkedIn"] == {"Found on LinkedIn?"}
    assert after["Found on LinkedIn?"] == {"Comment to add?"}
    look = next(n for n in flow["nodes"] if n["name"] == "Look for it on LinkedIn")
    assert look["parameters"]["method"] == "GET" and "q=author" in look["parameters"]["url"]
    assert "outcome: 'unknown'" in n8n_workflows.POST_OUTCOME
    assert "may have created the post" not in n8n_workflows.POST_OUTCOME


def test_the_push_workflow_acknowledges_before_it_publishes():
    flow = workflow("push.json")
    after = successors(flow)
    path, node = [], "post.due webhook"
    while node != "Plan":
        path.append(node)
        [node] = after[node]
    assert path == [
        "post.due webhook",
        "Verify signature (optional)",
        "Drop repeats",
        "Acknowledge",
        "New post.due?",
    ]
    hook = next(n for n in flow["nodes"] if n["name"] == "post.due webhook")
    assert hook["parameters"]["responseMode"] == "responseNode"
    assert hook["parameters"]["authentication"] == "headerAuth"


def test_the_claim_workflow_claims_one_post_at_a_time():
    flow = workflow("claim-and-publish.json")
    claim = next(n for n in flow["nodes"] if n["name"] == "Claim one post")
    assert "limit: 1," in claim["parameters"]["jsonBody"]
    assert "Claim one post" in successors(flow)["Next claim?"]


def test_the_make_blueprint_is_what_its_builder_writes():
    assert make_blueprint.BLUEPRINT.read_text() == make_blueprint.rendered(), (
        "integrations/make/claim-and-publish.blueprint.json differs: "
        "run python -m harness.make_blueprint"
    )


def test_the_make_blueprint_fills_in_every_upload_a_post_may_have():
    """Make reads `{{` as a formula: the plan's `{{upload_N}}` are matched as
    \\x7B\\x7Bupload_N\\x7D\\x7D, each of the 20 a post may hold, in order."""
    formula = make_blueprint.fill_refs("BODY", "URNS")
    for n in range(20):
        assert f"/\\x7B\\x7Bupload_{n}\\x7D\\x7D/g; get(URNS; {n + 1}))" in formula
    assert "{{" not in formula


def test_the_kit_is_written_whole_by_its_builder():
    """Every workflow shipped in the kit comes from harness/n8n_workflows.py:
    none is kept by hand beside it."""
    shipped = {p.name for p in KIT.glob("*.json")}
    assert shipped == set(n8n_workflows.rendered())
    assert "collect-stats.json" in shipped


def test_every_workflow_names_the_same_credentials():
    """A user makes each credential once: the same name has the same id in
    every workflow of the kit."""
    ids = {}
    for name in n8n_workflows.rendered():
        for node in workflow(name)["nodes"]:
            for credential in node.get("credentials", {}).values():
                ids.setdefault(credential["name"], set()).add(credential["id"])
    assert ids["LinkedIn access token"] == {n8n_workflows.LINKEDIN["id"]}
    assert all(len(found) == 1 for found in ids.values()), ids


def test_collect_stats_goes_on_whatever_linkedin_answers():
    """A failing read of one post's figures is an item the Snapshots node
    leaves out, never the end of the run; the snapshots go to the service."""
    flow = workflow("collect-stats.json")
    after = successors(flow)
    read = next(n for n in flow["nodes"] if n["name"] == "Read figures on LinkedIn")
    assert read["onError"] == "continueRegularOutput"
    assert read["credentials"]["httpHeaderAuth"]["name"] == "LinkedIn access token"
    assert after["Read figures on LinkedIn"] == {"Snapshots"}
    assert after["Snapshots"] == {"Send stats"}
    send = next(n for n in flow["nodes"] if n["name"] == "Send stats")
    assert send["parameters"]["url"].endswith("/functions/v1/api-v2-posts-stats")
    assert "if (!post || body.error) return;" in n8n_workflows.STATS_SNAPSHOTS


def test_a_failed_posts_message_links_to_the_post_in_the_dashboard():
    """notify-failed's default dashboardUrl is the dashboard's address, and
    its link a route the dashboard knows (#/posts/<id>)."""
    flow = workflow("notify-failed.json")
    [settings] = [n for n in flow["nodes"] if n["name"] == "Settings"]
    values = {a["name"]: a["value"] for a in settings["parameters"]["assignments"]["assignments"]}
    assert values["dashboardUrl"].endswith("/functions/v1/dashboard")
    [message] = [n for n in flow["nodes"] if n["name"] == "Message"]
    code = message["parameters"]["jsCode"]
    assert "#/posts/${post.id}" in code and "#post=" not in code


def test_the_kit_names_n8ns_settings_as_n8n_2_reads_them():
    text = (KIT.parent / "README.md").read_text()
    assert "`N8N_WEBHOOK_URL`" in text and "Set `WEBHOOK_URL`" not in text
    for told in ("must be of the workspace", "Choose claim or push", "calls out at start"):
        assert told in text, told
    assert "told twice" in text
