"""A client generated from the served OpenAPI document drives the whole
automation story, as a new user's would (openapi-python-client).

It proves the document describes the records well enough for a generator:
every field of a post and an article comes back typed (UUIDs as UUID,
timestamps as aware datetimes, statuses as enums), nothing lands in the
untyped `additional_properties`, and bodies are built from the same classes.

The client is generated once for each document: it is kept in
~/.cache/content-publishing/generated-client (XDG_CACHE_HOME moves it) under
the hash of the served document, the generator's settings and its version,
which together decide what it generates.
"""

import datetime
import hashlib
import importlib
import importlib.metadata
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from harness import BIN, Client, create_key, serve

CONFIG = "post_hooks: []\nproject_name_override: cps-client\npackage_name_override: cps_client\n"
# Generated clients kept by the hash of what they are made from (the served
# document, CONFIG and the generator's version): the same inputs make the
# same client, so it is generated again only when the document changes.
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    / "content-publishing"
    / "generated-client"
)


def generate(document, tmp):
    """The generated client's project directory for `document` (the served
    OpenAPI document's bytes), in `tmp`: a copy of the one kept in CACHE
    under the inputs' hash, or generated (no warning allowed) and then kept."""
    version = importlib.metadata.version("openapi-python-client")
    digest = hashlib.sha256(b"\0".join([document, CONFIG.encode(), version.encode()])).hexdigest()
    kept = CACHE / digest[:32]
    if not (kept / "cps-client").is_dir():
        (tmp / "openapi.json").write_bytes(document)
        (tmp / "config.yaml").write_text(CONFIG)
        result = subprocess.run(
            [
                str(BIN / "openapi-python-client"),
                "generate",
                "--path",
                str(tmp / "openapi.json"),
                "--config",
                str(tmp / "config.yaml"),
                "--output-path",
                str(tmp / "cps-client"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
        CACHE.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=CACHE, prefix=".new-"))
        shutil.copytree(tmp / "cps-client", staging / "cps-client")
        try:
            os.rename(staging, kept)  # whole or not at all, whoever is first
        except OSError:
            shutil.rmtree(staging)  # another run kept the same client first
        return tmp / "cps-client"
    shutil.copytree(kept / "cps-client", tmp / "cps-client")
    return tmp / "cps-client"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Generate the client from the running service's document (or take the
    one generated before from the same document); yield the server."""
    tmp = tmp_path_factory.mktemp("client")
    # Any time ahead can be scheduled: the story's post is due 3 s after it
    # is made, however long a loaded machine takes to make and schedule it.
    with serve(tmp, workers=2, env={"FLASK_SCHEDULE_MIN_LEAD_SECONDS": "0"}) as server:
        document = Client(server.url).get("/functions/v1/openapi.json").body
        server.package = generate(document, tmp)
        server.key = create_key(server.database)
        yield server


@pytest.fixture
def cps(generated, monkeypatch):
    monkeypatch.syspath_prepend(str(generated.package))
    modules = {}
    for name in (
        "client",
        "models",
        "types",
        "api.posts.create_post",
        "api.posts.get_post_item",
        "api.posts.update_post_item",
        "api.posts.list_posts",
        "api.callback.publish_callback",
        "api.articles.create_article",
        "api.articles.get_article_item",
        "api.articles.update_article_item",
        "api.articles.list_articles",
        "api.health.health",
    ):
        modules[name] = importlib.import_module(f"cps_client.{name}")
    client = modules["client"].AuthenticatedClient(
        base_url=generated.url, token=generated.key, prefix="", auth_header_name="X-API-Key"
    )
    return modules, client


def assert_typed(record, fields):
    extra = getattr(record, "additional_properties", {})
    assert extra == {}, extra
    for name, kind in fields.items():
        value = getattr(record, name)
        assert isinstance(value, kind), (name, value)
        if isinstance(value, datetime.datetime):
            assert value.utcoffset() == datetime.timedelta(0), (name, value)


def test_generated_client_drives_the_automation_story(cps):
    m, client = cps
    models = m["models"]
    soon = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=3)

    created = m["api.posts.create_post"].sync_detailed(
        client=client,
        body=models.Post(
            type_=models.PostType.BRAND,
            brand_id="acme-page",
            content="Launch day",
            media_urls=["https://media-exp1.licdn.com/dms/image/abc.jpg"],
            scheduled_at=soon,
        ),
        idempotency_key="client-story-1",
    )
    assert created.status_code == 201, created.content
    post = created.parsed
    assert_typed(
        post,
        {
            "id": uuid.UUID,
            "type_": models.PostType,
            "status": models.PostStatus,
            "scheduled_at": datetime.datetime,
            "created_at": datetime.datetime,
            "updated_at": datetime.datetime,
            "version": int,
            "content": str,
            "brand_id": str,
            "media_urls": list,
        },
    )
    assert post.status == models.PostStatus.DRAFT and post.published_at is None
    assert abs(post.scheduled_at - soon) < datetime.timedelta(milliseconds=1)

    read = m["api.posts.get_post_item"].sync(post_id=post.id, client=client)
    assert read == post

    stale = m["api.posts.update_post_item"].sync_detailed(
        post_id=post.id,
        client=client,
        if_match='"7"',
        body=models.PostUpdate(status=models.PostUpdateStatus.SCHEDULED),
    )
    assert stale.status_code == 412 and stale.headers["ETag"] == '"1"'
    assert (
        isinstance(stale.parsed, models.Error) and stale.parsed.error.code == "precondition_failed"
    )
    scheduled = m["api.posts.update_post_item"].sync(
        post_id=post.id,
        client=client,
        if_match='"1"',
        body=models.PostUpdate(status=models.PostUpdateStatus.SCHEDULED),
    )
    assert scheduled.status == models.PostStatus.SCHEDULED and scheduled.version == 2

    deadline = time.monotonic() + 10
    while True:
        due = m["api.posts.list_posts"].sync(
            client=client, due=True, order=models.ListPostsOrder.SCHEDULED_AT
        )
        if due.data or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert [p.id for p in due.data] == [post.id] and due.total == 1
    assert_typed(due, {"total": int, "limit": int, "offset": int, "data": list})
    assert_typed(due.data[0], {"id": uuid.UUID, "scheduled_at": datetime.datetime})

    published = m["api.callback.publish_callback"].sync(
        client=client,
        body=models.Callback(
            post_id=post.id,
            linkedin_post_id="urn:li:share:7012345678901234567",
            live_url="https://www.linkedin.com/feed/update/urn:li:share:7012345678901234567",
        ),
    )
    assert published.status == models.PostStatus.PUBLISHED
    assert_typed(
        published, {"published_at": datetime.datetime, "linkedin_post_id": str, "live_url": str}
    )

    article = m["api.articles.create_article"].sync(
        client=client, body=models.Article(title="Why we schedule", body="# Notes", tags=["howto"])
    )
    assert_typed(
        article,
        {
            "id": uuid.UUID,
            "status": models.ArticleStatus,
            "created_at": datetime.datetime,
            "tags": list,
            "version": int,
        },
    )
    refused = m["api.articles.update_article_item"].sync_detailed(
        article_id=article.id,
        client=client,
        if_match='W/"1"',
        body=models.ArticleUpdate(status=models.ArticleUpdateStatus.PUBLISHED),
    )
    assert refused.status_code == 412  # weak tags never match
    live = m["api.articles.update_article_item"].sync(
        article_id=article.id,
        client=client,
        if_match='"1"',
        body=models.ArticleUpdate(
            status=models.ArticleUpdateStatus.PUBLISHED,
            live_url="https://blog.acme-corp.com/why-we-schedule",
        ),
    )
    assert live.status == models.ArticleStatus.PUBLISHED
    assert isinstance(live.published_at, datetime.datetime)
    listed = m["api.articles.list_articles"].sync(
        client=client, status=models.ListArticlesStatus.PUBLISHED
    )
    assert [a.id for a in listed.data] == [article.id]

    health = m["api.health.health"].sync(client=client)
    assert health.status == models.HealthStatus.OK and health.database is True


def test_generated_models_round_trip_the_served_records(cps, generated):
    """Every field of a served record survives from_dict/to_dict unchanged."""
    m, client = cps
    models = m["models"]
    post = m["api.posts.create_post"].sync(
        client=client, body=models.Post(type_=models.PostType.PERSONAL, content="Round trip")
    )
    raw = (
        Client(generated.url, generated.key).get(f"/functions/v1/api-v2-posts-item/{post.id}").json
    )
    assert set(raw) == set(post.to_dict())
    again = models.Post.from_dict(raw).to_dict()
    for name in raw:
        if name.endswith("_at") and raw[name]:
            assert datetime.datetime.fromisoformat(again[name]) == datetime.datetime.fromisoformat(
                raw[name]
            )
        else:
            assert again[name] == raw[name], name
