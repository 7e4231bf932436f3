"""The MCP server (content_publishing/mcp/, docs/mcp.md) driven by the
official MCP SDK's own client, over stdio and over streamable HTTP, against
real gunicorn: the tools and their schemas, a draft previewed, submitted,
approved by another member through the API, queued and read back on the
calendar; a contributor's key refused a schedule; one workspace never seeing
another's; bad input answered as a tool error with the API's code while the
server goes on; media from base64 and from a URL, guarded; the key never in
the server's log.

One gunicorn and one MCP HTTP server serve the module (SQLite: the server
is a client of the API, and the backends are the API's tests). A stdio
session is a server process of its own, spawned by the SDK's client.
"""

import base64
import io
import json
import os
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from PIL import Image

from harness import Client, Process, create_key, serve
from harness.api import API

TRANSPORTS = ("stdio", "http")
TOOLS = {
    "list_channels",
    "find_free_slots",
    "list_posts",
    "get_post",
    "preview_post",
    "create_draft",
    "update_post",
    "schedule_post",
    "add_to_queue",
    "submit_for_review",
    "comment",
    "get_analytics",
    "suggested_slots",
    "upload_media",
}
# Each tool's required arguments, and the JSON type of some of its arguments.
REQUIRED = {
    "list_channels": [],
    "find_free_slots": ["channel"],
    "list_posts": [],
    "get_post": ["id"],
    "preview_post": [],
    "create_draft": ["channel", "content"],
    "update_post": ["id"],
    "schedule_post": ["id", "at"],
    "add_to_queue": ["id"],
    "submit_for_review": ["id"],
    "comment": ["id", "text"],
    "get_analytics": [],
    "suggested_slots": ["channel"],
    "upload_media": [],
}
TYPES = {
    ("find_free_slots", "days"): "integer",
    ("create_draft", "content"): "string",
    ("create_draft", "media_ids"): "array",
    ("update_post", "version"): "integer",
    ("schedule_post", "at"): "string",
    ("list_posts", "limit"): "integer",
}
READ_ONLY = {"list_channels", "find_free_slots", "list_posts", "get_post", "preview_post"}
READ_ONLY |= {"get_analytics", "suggested_slots"}
# Each tool's output record and the API's schema of it (the OpenAPI document).
OUTPUTS = {
    "get_post": ("Post", None),
    "list_channels": ("Channel", "channels"),
    "comment": ("Comment", None),
    "upload_media": ("Media", None),
}
ADDED = {"channel", "ref"}  # the fields the tools add to the API's records
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SLOTS = [{"day": day, "time": time} for day in DAYS for time in ("09:00", "12:00", "17:00")]
REVIEW = f"{API}/api-v2-posts-review/{{}}".format
ITEM = f"{API}/api-v2-posts-item/{{}}".format

# The MCP SDK (and anyio, and harness.mcp_client built on them) are imported
# when this module's tests run (_sdk), not when each pytest process collects
# the suite: importing them costs a process about a second of CPU.
anyio = McpError = COMMAND = McpHttpServer = http_session = stdio_session = None


@pytest.fixture(scope="module", autouse=True)
def _sdk():
    global anyio, McpError, COMMAND, McpHttpServer, http_session, stdio_session
    import anyio
    from mcp.shared.exceptions import McpError

    from harness.mcp_client import COMMAND, McpHttpServer, http_session, stdio_session


class Team:
    """Workspace acme (approvals required, a personal channel with slots):
    its owner's API client and each member's key; and workspace beta."""


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mcp")
    with serve(tmp, workers=2, log=tmp / "gunicorn.log") as server:
        server.tmp = tmp
        yield server


@pytest.fixture(scope="module")
def team(service):
    found = Team()
    found.owner_key = create_key(service.database, user="acme")
    found.owner = Client(service.url, found.owner_key)
    found.editor = member_key(service, found.owner, "Eddie", "editor")
    found.contributor = member_key(service, found.owner, "Cora", "contributor")
    found.other = create_key(service.database, user="beta")
    workspace = found.owner.get(f"{API}/workspace")
    r = found.owner.patch(
        f"{API}/workspace",
        {"approvals": "required"},
        headers={"If-Match": workspace.headers["etag"]},
    )
    assert r.status == 200, r
    r = found.owner.post(
        f"{API}/channels", {"type": "personal", "name": "Acme's own", "slots": SLOTS}
    )
    assert r.status == 201, r
    r = found.owner.post(f"{API}/hashtag-sets", {"name": "Launch", "hashtags": ["#Launch", "#B2B"]})
    assert r.status == 201, r
    return found


def member_key(service, owner, name, role):
    """Invite `name` as `role` and take the invitation up: their first key."""
    r = owner.post(f"{API}/members", {"name": name, "email": None, "role": role})
    assert r.status == 201, r
    token = r.json["invite_url"].split("#/invite/")[1]
    answer = Client(service.url).post(f"{API}/invites-accept", {"token": token})
    assert answer.status == 201, answer
    return answer.json["key"]


@pytest.fixture(scope="module")
def mcp_http(service):
    """The server over HTTP; it may fetch media from loopback (the service's own)."""
    log = service.tmp / "mcp-http.log"
    env = {"CPS_FETCH_ALLOW_PRIVATE": "1", "CPS_MCP_ALLOWED_HOSTS": "mcp.acme.test"}
    with McpHttpServer(service.url, env=env, log=log) as server:
        server.log_path = log
        yield server


@pytest.fixture
def connect(service, mcp_http, tmp_path):
    """connect(transport, key, story, **env) runs `await story(session)` in a
    session of the SDK's client and returns what it returns. A stdio
    server's log is kept in tmp_path/stdio-N.log."""
    logs = []

    def run(transport, key, story, **env):
        async def main():
            if transport == "http":
                async with http_session(mcp_http.url, key) as session:
                    return await story(session)
            path = tmp_path / f"stdio-{len(logs)}.log"
            logs.append(path)
            with path.open("w") as errlog:
                async with stdio_session(service.url, key, errlog, env) as session:
                    return await story(session)

        return anyio.run(main)

    run.stdio_logs = logs
    return run


async def ok(session, tool, **arguments):
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content[0].text
    return result.structuredContent


async def refused(session, tool, code, **arguments):
    """The tool error of a call: the API's envelope, which the text holds too
    (the model reads the text)."""
    result = await session.call_tool(tool, arguments)
    assert result.isError, result.structuredContent
    assert json.loads(result.content[0].text) == result.structuredContent
    error = result.structuredContent["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error


def calendar_of(contents):
    (content,) = contents.contents
    assert content.mimeType == "application/json"
    return json.loads(content.text)


def png(colour="red"):
    out = io.BytesIO()
    Image.new("RGB", (40, 30), colour).save(out, "PNG")
    return out.getvalue()


# --- the tools and their schemas ---------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_tools_are_listed_with_typed_schemas_and_the_resources_too(connect, team, transport):
    async def story(session):
        listed = (await session.list_tools()).tools
        resources = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resourceTemplates
        return listed, resources, templates

    listed, resources, templates = connect(transport, team.editor, story)
    tools = {tool.name: tool for tool in listed}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert len(tool.description) > 80, name  # written for a model to choose by
        assert tool.inputSchema["type"] == "object"
        assert sorted(tool.inputSchema.get("required", [])) == sorted(REQUIRED[name]), name
        for argument, schema in tool.inputSchema["properties"].items():
            assert schema.get("description"), (name, argument)
        assert tool.outputSchema["type"] == "object", name
        assert tool.outputSchema["properties"], name
        assert tool.annotations.readOnlyHint == (name in READ_ONLY), name
    for (name, argument), kind in TYPES.items():
        schema = tools[name].inputSchema["properties"][argument]
        kinds = [schema.get("type")] + [option.get("type") for option in schema.get("anyOf", [])]
        assert kind in kinds, (name, argument, schema)
    assert "channel" in tools["get_post"].outputSchema["required"]
    assert {str(r.uri) for r in resources} == {"cps://hashtag-sets", "cps://calendar/personal"}
    assert [t.uriTemplate for t in templates] == ["cps://calendar/{channel}"]


def test_the_output_schemas_name_the_apis_own_fields(connect, service, team):
    """Each record a tool gives is the API's: every field its output schema
    declares is in the API's OpenAPI schema of that record (or one the tools
    add, such as `channel`), so that the two cannot drift apart unseen."""
    document = Client(service.url).get(f"{API}/openapi.json").json["components"]["schemas"]

    async def story(session):
        return {tool.name: tool.outputSchema for tool in (await session.list_tools()).tools}

    outputs = connect("http", team.editor, story)
    for tool, (component, inside) in OUTPUTS.items():
        schema = outputs[tool]
        if inside:
            schema = schema["$defs"][schema["properties"][inside]["items"]["$ref"].split("/")[-1]]
        declared = set(schema["properties"]) - ADDED
        assert declared, tool
        assert declared <= set(document[component]["properties"]), (tool, declared)


# --- the story: draft, preview, submit, approve, queue, calendar -------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_draft_is_previewed_submitted_approved_queued_and_on_the_calendar(
    connect, team, transport
):
    words = f"launch-{uuid.uuid4().hex[:8]}"
    text = f"Our {words} is live (at last): thanks @Jane"

    async def draft_and_submit(session):
        channels = (await ok(session, "list_channels"))["channels"]
        assert [c["id"] for c in channels] == ["personal"]
        free = await ok(session, "find_free_slots", channel="personal", days=3)
        assert len(free["free"]) + free["taken"] == 9 and free["free"]
        made = await ok(session, "create_draft", channel="personal", content=text)
        assert made["status"] == "Draft" and made["channel"] == "personal"
        assert made["author"]["name"] == "Cora"
        preview = await ok(session, "preview_post", id=made["id"])
        assert preview["characters"] == len(text)
        assert "plain_mention" in {w["code"] for w in preview["warnings"]}
        api = api_preview(made["id"])
        assert preview["commentary"] == api["linkedin_request"]["body"]["commentary"]
        assert preview["warnings"] == api["warnings"] and preview["links"] == api["links"]
        unsaved = await ok(session, "preview_post", content="x" * 2999 + "(")
        assert "over_length" in {w["code"] for w in unsaved["warnings"]}
        submitted = await ok(session, "submit_for_review", id=made["id"])
        assert submitted["status"] == "In review"
        await ok(session, "comment", id=made["id"], text="Ready when you are, @Eddie")
        back = await ok(session, "get_post", id=made["id"])
        assert back["status"] == "In review" and back["version"] == submitted["version"]
        found = await ok(session, "list_posts", q=words, status="In review")
        assert [p["id"] for p in found["posts"]] == [made["id"]] and found["total"] == 1
        return back

    def api_preview(post_id):
        return team.owner.post(f"{API}/api-v2-posts-preview", {"post_id": post_id}).json

    post = connect(transport, team.contributor, draft_and_submit)

    # A person approves it through the API, naming the version they read.
    read = team.owner.get(ITEM(post["id"]))
    approved = team.owner.post(
        REVIEW(post["id"]), {"action": "approve"}, headers={"If-Match": read.headers["etag"]}
    )
    assert approved.status == 200 and approved.json["post"]["status"] == "Approved", approved

    async def queue_and_read(session):
        queued = await ok(session, "add_to_queue", id=post["id"])
        calendar = calendar_of(await session.read_resource("cps://calendar/personal"))
        return queued, calendar

    queued, calendar = connect(transport, team.editor, queue_and_read)
    assert queued["status"] == "Scheduled" and queued["approved_by"]["name"] == "acme"
    planned = {p["id"]: p for p in calendar["posts"]}
    assert planned[post["id"]]["scheduled_at"] == queued["scheduled_at"]
    assert planned[post["id"]]["status"] == "Scheduled"
    assert planned[post["id"]]["approved_by"] == "acme"
    assert queued["scheduled_at"] not in {s["at"] for s in calendar["free_slots"]}
    assert calendar["channel"] == "personal" and calendar["timezone"] == "UTC"
    comments = team.owner.get(f"{API}/api-v2-posts-comments/{post['id']}").json["data"]
    assert [c["body"] for c in comments] == ["Ready when you are, @Eddie"]


def test_the_hashtag_sets_are_a_resource(connect, team):
    async def story(session):
        for uri in ("cps://nothing", "cps://calendar/"):
            with pytest.raises(McpError, match="No resource"):
                await session.read_resource(uri)
        return calendar_of(await session.read_resource("cps://hashtag-sets"))

    (found,) = connect("http", team.contributor, story)["hashtag_sets"]
    assert found["name"] == "Launch" and found["hashtags"] == ["#Launch", "#B2B"]
    assert uuid.UUID(found["id"])


# --- roles and workspaces ----------------------------------------------------------------


def approved_post(service, team, content):
    """A contributor's post, approved by the owner, through the API."""
    author = Client(service.url, team.contributor)
    made = author.post(f"{API}/api-v2-posts", {"type": "personal", "content": content})
    assert made.status == 201, made
    assert author.post(REVIEW(made.json["id"]), {"action": "submit"}).status == 200
    done = team.owner.post(REVIEW(made.json["id"]), {"action": "approve"})
    assert done.status == 200, done
    return done.json["post"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_contributors_key_cannot_schedule_or_queue(connect, service, team, transport):
    post = approved_post(service, team, "Approved, and still not the contributor's to schedule")

    async def story(session):
        for tool, arguments in [
            ("schedule_post", {"at": "2099-01-05T09:00:00Z"}),
            ("add_to_queue", {}),
        ]:
            error = await refused(session, tool, "forbidden", id=post["id"], **arguments)
            assert error["status"] == 403 and error["details"]["role"] == "contributor"
            assert "person" in error["hint"]
        return await ok(session, "get_post", id=post["id"])

    after = connect(transport, team.contributor, story)
    assert after["status"] == "Approved" and after["version"] == post["version"]
    assert after["scheduled_at"] is None


def test_an_editor_is_told_to_submit_a_post_that_needs_approval(connect, team):
    async def story(session):
        made = await ok(session, "create_draft", channel="personal", content="Not reviewed yet")
        error = await refused(
            session, "schedule_post", "approval_required", id=made["id"], at="2099-01-05T09:00:00Z"
        )
        assert "submit_for_review" in error["hint"] and error["status"] == 409
        await refused(session, "add_to_queue", "approval_required", id=made["id"])
        return made, await ok(session, "get_post", id=made["id"])

    made, after = connect("http", team.editor, story)
    assert after["status"] == "Draft" and after["version"] == made["version"]


def test_a_key_of_one_workspace_never_sees_another(connect, mcp_http, team):
    """Both keys on the one HTTP server at once, their calls interleaved."""
    secret = f"beta-only-{uuid.uuid4().hex[:8]}"

    async def main():
        async with http_session(mcp_http.url, team.other) as beta:
            async with http_session(mcp_http.url, team.editor) as acme:
                theirs = await ok(beta, "create_draft", channel="personal", content=secret)
                ours = await ok(acme, "create_draft", channel="personal", content="acme " + secret)
                for tool, arguments in [
                    ("get_post", {}),
                    ("preview_post", {}),
                    ("update_post", {"content": "taken over"}),
                    ("submit_for_review", {}),
                    ("comment", {"text": "hello from acme"}),
                    ("schedule_post", {"at": "2099-01-05T09:00:00Z"}),
                ]:
                    await refused(acme, tool, "not_found", id=theirs["id"], **arguments)
                    await refused(beta, tool, "not_found", id=ours["id"], **arguments)
                seen_by_acme = await ok(acme, "list_posts", q=secret)
                seen_by_beta = await ok(beta, "list_posts", q=secret)
                beta_channels = await ok(beta, "list_channels")
                beta_calendar = calendar_of(await beta.read_resource("cps://calendar/personal"))
                beta_sets = calendar_of(await beta.read_resource("cps://hashtag-sets"))
                still = await ok(beta, "get_post", id=theirs["id"])
                return (
                    theirs,
                    ours,
                    seen_by_acme,
                    seen_by_beta,
                    beta_channels,
                    beta_calendar,
                    beta_sets,
                    still,
                )

    theirs, ours, by_acme, by_beta, channels, calendar, sets, still = anyio.run(main)
    assert [p["id"] for p in by_acme["posts"]] == [ours["id"]]
    assert [p["id"] for p in by_beta["posts"]] == [theirs["id"]]
    assert channels["channels"] == []
    assert calendar["posts"] == [] and calendar["free_slots"] is None
    assert sets["hashtag_sets"] == []
    assert still == theirs  # nothing acme sent changed it


def at(moment):
    return moment.isoformat(timespec="seconds")


def same_instant(a, b):
    return datetime.fromisoformat(a) == datetime.fromisoformat(b)


def test_update_and_schedule_send_if_match_for_the_caller(connect, team):
    """Workspace beta requires no approvals: its owner's assistant changes a
    draft, moves it between channels and schedules and reschedules it."""
    soon = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=2)
    later = soon + timedelta(days=1)

    async def story(session):
        made = await ok(
            session, "create_draft", channel="personal", content="v1", first_comment="Link below"
        )
        edited = await ok(session, "update_post", id=made["id"], content="v2")
        cleared = await ok(session, "update_post", id=made["id"], first_comment="")
        moved = await ok(session, "update_post", id=made["id"], channel="beta-page")
        stale = await refused(
            session, "update_post", "precondition_failed", id=made["id"], version=1, content="v0"
        )
        back = await ok(
            session, "update_post", id=made["id"], channel="personal", version=moved["version"]
        )
        scheduled = await ok(session, "schedule_post", id=made["id"], at=at(soon))
        rescheduled = await ok(
            session, "schedule_post", id=made["id"], at=at(later), version=scheduled["version"]
        )
        return made, edited, cleared, moved, stale, back, scheduled, rescheduled

    made, edited, cleared, moved, stale, back, scheduled, rescheduled = connect(
        "http", team.other, story
    )
    assert (edited["content"], edited["version"]) == ("v2", made["version"] + 1)
    assert made["first_comment"] == "Link below" and cleared["first_comment"] is None
    assert (moved["channel"], moved["type"], moved["brand_id"]) == (
        "beta-page",
        "brand",
        "beta-page",
    )
    assert stale["details"]["current_version"] == moved["version"] and "get_post" in stale["hint"]
    assert (back["channel"], back["brand_id"], back["content"]) == ("personal", None, "v2")
    assert scheduled["status"] == "Scheduled" and same_instant(scheduled["scheduled_at"], at(soon))
    assert same_instant(rescheduled["scheduled_at"], at(later))
    assert rescheduled["version"] == scheduled["version"] + 1


def test_analytics_and_suggested_slots_are_the_apis_answers(connect, service, team):
    """A post of beta's published and measured, then the tools' answers
    beside the API's own for the same range."""
    api = Client(service.url, team.other)
    made = api.post(f"{API}/api-v2-posts", {"type": "personal", "content": "Measured"}).json
    soon = at(datetime.now(UTC) + timedelta(hours=1))
    assert api.patch(ITEM(made["id"]), {"status": "Scheduled", "scheduled_at": soon}).ok
    done = api.post(
        f"{API}/make-post-callback", {"post_id": made["id"], "linkedin_post_id": "urn:li:share:71"}
    )
    assert done.status == 200, done
    snapshot = {
        "post_id": made["id"],
        "taken_at": done.json["published_at"],
        "impressions": 1000,
        "members_reached": 800,
        "reactions": 30,
        "comments": 5,
        "reshares": 2,
        "clicks": 13,
    }
    assert api.post(f"{API}/api-v2-posts-stats", {"data": [snapshot]}).status == 200
    start, end = (
        at(datetime.now(UTC) - timedelta(hours=1)),
        at(datetime.now(UTC) + timedelta(hours=1)),
    )

    async def story(session):
        report = await ok(session, "get_analytics", channel="personal", start=start, end=end)
        suggested = await ok(session, "suggested_slots", channel="personal")
        return report, suggested

    report, suggested = connect("http", team.other, story)
    expected = api.get(f"{API}/analytics?channel=personal&from={quote(start)}&to={quote(end)}").json
    assert report == expected
    assert report["totals"]["posts"] == 1 and report["top"][0]["post_id"] == made["id"]
    whole = api.get(f"{API}/analytics?channel=personal").json
    assert suggested == {
        "channel": "personal",
        "timezone": whole["timezone"],
        "suggested_slots": whole["suggested_slots"],
    }


# --- bad input ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def draft(service, team):
    """An approved post of the owner's, which every bad call leaves as it is
    (approved, so that a bad time is refused for the time itself)."""
    r = team.owner.post(f"{API}/api-v2-posts", {"type": "personal", "content": "A post to keep"})
    assert r.status == 201, r
    assert team.owner.post(REVIEW(r.json["id"]), {"action": "submit"}).status == 200
    done = Client(service.url, team.editor).post(REVIEW(r.json["id"]), {"action": "approve"})
    assert done.status == 200, done
    return done.json["post"]


DRAFT = "<the draft's id>"
BAD_CALLS = [
    ("get_post", {"id": "not-a-post"}, "not_found", None),
    ("get_post", {"id": str(uuid.uuid4())}, "not_found", None),
    ("get_post", {}, "validation_error", "id"),
    ("create_draft", {"channel": "personal", "content": "x" * 3001}, "validation_error", "content"),
    ("create_draft", {"channel": "personal", "content": ""}, "validation_error", "content"),
    ("create_draft", {"channel": "personal", "content": 42}, "validation_error", "content"),
    ("create_draft", {"channel": "personal"}, "validation_error", "content"),
    ("create_draft", {"channel": "", "content": "hi"}, "validation_error", "brand_id"),
    ("update_post", {"id": DRAFT, "content": "x" * 3001}, "validation_error", "content"),
    ("update_post", {"id": DRAFT, "version": 99, "content": "stale"}, "precondition_failed", None),
    ("schedule_post", {"id": DRAFT, "at": "next tuesday"}, "validation_error", "scheduled_at"),
    (
        "schedule_post",
        {"id": DRAFT, "at": "2020-01-01T09:00:00Z"},
        "validation_error",
        "scheduled_at",
    ),
    ("schedule_post", {"id": DRAFT, "at": 1234}, "validation_error", "at"),
    ("add_to_queue", {"id": "not-a-post"}, "validation_error", "post_id"),
    ("comment", {"id": DRAFT, "text": ""}, "validation_error", "body"),
    ("preview_post", {}, "validation_error", "content"),
    ("preview_post", {"id": DRAFT, "content": "both"}, "validation_error", "content"),
    ("list_posts", {"status": "Sent"}, "validation_error", "status"),
    ("list_posts", {"start": "last week"}, "validation_error", "scheduled_after"),
    ("list_posts", {"limit": 1000}, "validation_error", "limit"),
    ("find_free_slots", {"channel": "personal", "days": 0}, "validation_error", "days"),
    ("find_free_slots", {"channel": "no-such-page"}, "not_found", None),
    ("get_analytics", {"start": "yesterday"}, "validation_error", "from"),
    ("upload_media", {}, "validation_error", "url"),
    ("upload_media", {"base64": "%%% not base64 %%%"}, "validation_error", "base64"),
    ("upload_media", {"url": "ftp://example.com/a.png"}, "validation_error", "url"),
    (
        "upload_media",
        {"base64": base64.b64encode(b"plain text").decode()},
        "unsupported_media_type",
        None,
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "code", "field"), BAD_CALLS)
def test_bad_input_is_a_tool_error_with_the_apis_code(
    connect, team, draft, tool, arguments, code, field
):
    arguments = {name: draft["id"] if v == DRAFT else v for name, v in arguments.items()}

    async def story(session):
        error = await refused(session, tool, code, **arguments)
        # The server goes on: the next call is answered.
        after = await ok(session, "get_post", id=draft["id"])
        return error, after

    error, after = connect("http", team.editor, story)
    if field:
        assert field in error["details"], error
    assert after["version"] == draft["version"] and after["content"] == draft["content"]


def test_bad_input_never_stops_the_stdio_server(connect, team, draft):
    async def story(session):
        for tool, arguments, code, _ in BAD_CALLS:
            if DRAFT not in arguments.values():
                await refused(session, tool, code, **arguments)
        unknown = await session.call_tool("no_such_tool", {})
        assert unknown.isError
        return await ok(session, "get_post", id=draft["id"])

    assert connect("stdio", team.editor, story)["id"] == draft["id"]


# --- media -------------------------------------------------------------------------------


def test_media_from_base64_and_from_a_url_with_alt_text(connect, team):
    picture = png("navy")

    async def story(session):
        uploaded = await ok(
            session,
            "upload_media",
            base64=base64.b64encode(picture).decode(),
            alt_text="A navy rectangle",
        )
        again = await ok(session, "upload_media", url=uploaded["url"], alt_text="A navy box")
        as_data_url = await ok(
            session,
            "upload_media",
            base64="data:image/png;base64," + base64.b64encode(png("teal")).decode(),
        )
        made = await ok(
            session,
            "create_draft",
            channel="personal",
            content="With a picture",
            media_ids=[uploaded["id"], as_data_url["ref"]],
            alt_texts=[None, "A teal rectangle"],
        )
        preview = await ok(session, "preview_post", id=made["id"])
        return uploaded, again, as_data_url, made, preview

    uploaded, again, as_data_url, made, preview = connect("http", team.contributor, story)
    assert uploaded["content_type"] == "image/png" and uploaded["alt_text"] == "A navy rectangle"
    assert uploaded["ref"] == f"media:{uploaded['id']}"
    # The library's file, fetched from its URL: the same picture (a medium of
    # its own, since the service wrote the first anew without its metadata).
    assert again["content_type"] == "image/png" and again["alt_text"] == "A navy box"
    assert (again["width"], again["height"]) == (40, 30)
    assert as_data_url["id"] != uploaded["id"] and as_data_url["alt_text"] is None
    assert made["media_urls"] == [uploaded["url"], as_data_url["url"]]  # as the API shows them
    assert "alt_text_missing" not in {w["code"] for w in preview["warnings"]}
    stored = team.owner.get(f"{API}/media-item/{again['id']}").json
    assert stored["alt_text"] == "A navy box" and stored["version"] == again["version"]


def test_a_url_at_a_private_address_is_not_fetched_by_default(connect, service, team):
    """The stdio server runs without CPS_FETCH_ALLOW_PRIVATE: the service's own
    loopback address is refused before anything is fetched."""
    before = team.owner.get(f"{API}/media?limit=100").json["total"]

    async def story(session):
        for url in (f"{service.url}/health", "http://localhost:9/a.png", "http://[::1]:9/a.png"):
            error = await refused(session, "upload_media", "url_not_allowed", url=url)
            assert "public addresses" in error["message"]
        return True

    assert connect("stdio", team.editor, story)
    assert team.owner.get(f"{API}/media?limit=100").json["total"] == before


def test_the_server_does_not_start_without_what_it_needs(service):
    for env, said in [
        ({"CPS_BASE_URL": service.url}, "CPS_API_KEY is not set"),
        ({"CPS_BASE_URL": "ftp://example.com", "CPS_API_KEY": "k"}, "CPS_BASE_URL"),
        ({"CPS_FETCH_ALLOW_PRIVATE": "maybe", "CPS_API_KEY": "k"}, "CPS_FETCH_ALLOW_PRIVATE"),
    ]:
        clean = {"PATH": os.environ["PATH"], **env}
        ended = Process(COMMAND, env=clean, inherit_env=False).run_to_exit()
        assert ended.code not in (0, None) and said in ended.stderr, ended.stderr
        assert "Traceback" not in ended.stderr
    ended = Process(
        [*COMMAND, "--http", "localhost"], env={"PATH": os.environ["PATH"]}
    ).run_to_exit()
    assert ended.code == 2 and "HOST:PORT" in ended.stderr


def test_the_http_transport_takes_only_its_own_host_names(mcp_http, team):
    """The SDK's DNS-rebinding guard: a page that points another name at
    127.0.0.1 cannot reach the server from a browser; CPS_MCP_ALLOWED_HOSTS
    (a proxy's name) can."""
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    client = Client(mcp_http.root_url, team.editor)
    headers = {
        "Authorization": f"Bearer {team.editor}",
        "Accept": "application/json, text/event-stream",
    }
    refused_host = client.post("/mcp", ping, headers={**headers, "Host": "attacker.example"})
    assert refused_host.status == 421, refused_host
    proxied = client.post("/mcp", ping, headers={**headers, "Host": "mcp.acme.test"})
    assert proxied.status == 200 and proxied.json == {"jsonrpc": "2.0", "id": 1, "result": {}}


# --- keys ---------------------------------------------------------------------------------


def test_a_missing_or_bad_key_is_unauthorized_and_no_key_reaches_a_log(
    connect, service, mcp_http, team
):
    bad_key = "svc_live_" + "q" * 40

    async def use(session):
        await ok(session, "list_channels")
        await ok(session, "create_draft", channel="personal", content="Logged, but not the key")
        await refused(session, "get_post", "not_found", id="nope")
        return True

    async def unauthorized(session):
        error = await refused(session, "list_channels", "unauthorized")
        assert error["status"] == 401 and "valid key" in error["hint"]
        with pytest.raises(McpError) as raised:
            await session.read_resource("cps://calendar/personal")
        assert raised.value.error.data["error"]["code"] == "unauthorized"
        with pytest.raises(McpError) as raised:
            await session.list_resources()
        assert raised.value.error.data["error"]["status"] == 401
        return True

    for transport in TRANSPORTS:
        assert connect(transport, team.editor, use)
        assert connect(transport, bad_key, unauthorized)

    # Over HTTP a request without a key stops at the door, in the API's envelope.
    r = Client(mcp_http.root_url).post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status == 401 and r.json["error"]["code"] == "unauthorized", r
    assert r.headers["www-authenticate"].startswith("Bearer")

    logs = {path.name: path.read_text() for path in connect.stdio_logs}
    logs["mcp-http.log"] = mcp_http.log_path.read_text()
    everything = "\n".join(logs.values())
    assert "POST /api-v2-posts -> 201" in everything  # the calls are logged...
    assert "GET /channels -> 401" in everything
    for name, text in logs.items():
        for key in (team.editor, team.contributor, team.other, team.owner_key, bad_key):
            secret = key.removeprefix("svc_live_")
            assert key not in text and secret not in text, name  # ...and the keys never


def test_the_tools_take_a_profiles_channel_id(connect, team):
    """A member's profile is named by its id, as list_channels gives it:
    a draft for it carries it, the posts list and the calendar keep to it.
    (Last in the module: it gives Eddie a profile of his own.)"""
    editor = Client(f"http://{team.owner.host}:{team.owner.port}", team.editor)
    r = editor.post(f"{API}/channels", {"type": "personal", "name": "Eddie's own"})
    assert r.status == 201, r
    eddies = r.json["id"]

    async def story(session):
        channels = {c["id"]: c for c in (await ok(session, "list_channels"))["channels"]}
        made = await ok(session, "create_draft", channel=eddies, content="On Eddie's profile")
        listed = await ok(session, "list_posts", channel=eddies)
        calendar = calendar_of(await session.read_resource(f"cps://calendar/{eddies}"))
        return channels, made, listed, calendar

    channels, made, listed, calendar = connect("http", team.editor, story)
    assert channels[eddies]["kind"] == "personal"
    assert channels[eddies]["member"]["name"] == "Eddie"
    assert (made["channel"], made["channel_id"], made["type"]) == (eddies, eddies, "personal")
    assert [p["id"] for p in listed["posts"]] == [made["id"]]
    assert calendar["channel"] == eddies and calendar["posts"] == []  # a Draft has no time
