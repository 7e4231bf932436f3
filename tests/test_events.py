"""Every change to a post or an article writes exactly the webhook events that
docs/webhooks.md lists ("Which change causes which event"), and the table
names every change tested here: the document and the code cannot drift.

Each change is made through the HTTP interface (or the dispatcher command,
for the push), after a setup whose own events are not counted; the events
are read back from the delivery log, as a user would.
"""

import re
from datetime import UTC, datetime, timedelta

import pytest

from content_publishing.store.db import execute, transaction
from harness import ROOT
from harness.api import ARTICLE, ARTICLES, CALLBACK, CLAIM, DELIVERIES, HOOKS, ITEM, POSTS

PUBLIC = "https://93.184.215.14/hooks/cps"  # never reached: no dispatcher runs


def documented_events():
    """{change: set of event types} from the table in docs/webhooks.md."""
    text = (ROOT / "docs" / "webhooks.md").read_text()
    section = text.split("## Which change causes which event", 1)[1].split("\n## ", 1)[0]
    table = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("Change", "---") or not line.startswith("|"):
            continue
        table[cells[0]] = set(re.findall(r"`([a-z._]+)`", cells[1]))
    return table


DOCUMENTED = documented_events()


def soon(seconds):
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


class Story:
    """One change on a user with an endpoint for every event but post.due:
    `setup` steps come first, then `mark()`, then the change itself."""

    def __init__(self, api, runner, clock, app):
        self.api, self.runner, self.clock, self.app = api, runner, clock, app
        r = api.post(
            HOOKS,
            json={
                "url": PUBLIC,
                "events": [
                    "post.published",
                    "post.failed",
                    "post.first_comment_failed",
                    "article.published",
                ],
            },
        )
        assert r.status_code == 201, r.get_json()
        self.seen = set()

    def ok(self, response, status=200):
        assert response.status_code == status, response.get_json()
        return response.get_json() if status != 204 else None

    def mark(self):
        self.seen = {d["id"] for d in self._log()}

    def new_events(self):
        return sorted(d["event_type"] for d in self._log() if d["id"] not in self.seen)

    def _log(self):
        return self.ok(self.api.get(f"{DELIVERIES}?limit=100"))["data"]

    # --- setups --------------------------------------------------------------------

    def draft(self, seconds=-60):
        body = {"type": "personal", "content": "Hello", "scheduled_at": soon(seconds)}
        return self.ok(self.api.post(POSTS, json=body), 201)

    def patch(self, post, body):
        return self.ok(self.api.patch(ITEM + post["id"], json=body))

    def scheduled(self, seconds=-60):
        return self.patch(self.draft(seconds), {"status": "Scheduled"})

    def failed(self):
        return self.patch(self.scheduled(), {"status": "Failed", "last_error": "token expired"})

    def publishing(self, lease_seconds=600):
        post = self.scheduled()
        (claimed,) = self.ok(
            self.api.post(CLAIM, json={"limit": 1, "lease_seconds": lease_seconds})
        )["data"]
        assert claimed["id"] == post["id"]
        return claimed

    def callback(self, post, **fields):
        body = {
            "post_id": post["id"],
            "linkedin_post_id": "urn:li:share:1",
            "live_url": "https://www.linkedin.com/feed/update/urn:li:share:1",
            **fields,
        }
        return self.ok(self.api.post(CALLBACK, json=body))

    def article(self, **fields):
        return self.ok(self.api.post(ARTICLES, json={"title": "Notes", **fields}), 201)

    def patch_article(self, article, body):
        return self.ok(self.api.patch(ARTICLE + article["id"], json=body))


def create_a_post(s):
    s.mark()
    s.draft()


def edit_a_drafts_fields(s):
    post = s.draft()
    s.mark()
    s.patch(post, {"content": "Hello again", "media_urls": ["https://cdn.example.com/a.png"]})


def schedule_a_draft(s):
    post = s.draft()
    s.mark()
    s.patch(post, {"status": "Scheduled"})


def unschedule_a_scheduled_post(s):
    post = s.scheduled()
    s.mark()
    s.patch(post, {"status": "Draft"})


def mark_a_scheduled_post_failed(s):
    post = s.scheduled()
    s.mark()
    s.patch(post, {"status": "Failed", "last_error": "token expired"})


def retry_a_failed_post_as_draft(s):
    post = s.failed()
    s.mark()
    s.patch(post, {"status": "Draft"})


def retry_a_failed_post_as_scheduled(s):
    post = s.failed()
    s.mark()
    s.patch(post, {"status": "Scheduled"})


def claim_a_due_post(s):
    s.scheduled()
    s.mark()
    assert len(s.ok(s.api.post(CLAIM, json={"limit": 1}))["data"]) == 1


def claim_a_due_post_too_long_to_publish(s):
    """Scheduled before the length was checked (written straight into the
    database: no request can schedule it): the claim fails it instead."""
    post = s.draft()
    s.patch(post, {"content": "(" * 1501})
    with s.app.app_context(), transaction():
        execute("UPDATE posts SET status = 'Scheduled' WHERE id = ?", (post["id"],))
    s.mark()
    assert s.ok(s.api.post(CLAIM, json={"limit": 1}))["data"] == []
    assert s.ok(s.api.get(ITEM + post["id"]))["status"] == "Failed"


def push_a_due_post_to_the_post_due_endpoint(s):
    s.scheduled()
    # A receiver that refuses the connection: the push is what is counted, not its delivery.
    s.ok(s.api.post(HOOKS, json={"url": "http://127.0.0.1:9/due", "events": ["post.due"]}), 201)
    s.mark()
    result = s.runner.invoke(args=["dispatch", "--seconds", "0.5"])
    assert result.exit_code == 0, result.output
    assert s.ok(s.api.get(f"{POSTS}?status=Publishing"))["total"] == 1


def report_a_publishing_post_failed(s):
    post = s.publishing()
    s.mark()
    s.patch(post, {"status": "Failed", "last_error": "LinkedIn said no"})


def give_a_publishing_post_back(s):
    post = s.publishing()
    s.mark()
    s.patch(post, {"status": "Scheduled"})


def a_lease_runs_out(s):
    s.publishing(lease_seconds=1)
    s.mark()
    s.clock.advance(1.1)
    assert s.ok(s.api.get(f"{POSTS}?status=Failed"))["total"] == 1


def publish_callback(s):
    post = s.publishing()
    s.mark()
    s.callback(post)


def the_same_publish_callback_again(s):
    post = s.publishing()
    s.callback(post)
    s.mark()
    s.callback(post)


def publish_callback_with_a_refused_first_comment(s):
    post = s.publishing()
    s.mark()
    s.callback(post, first_comment_error="LinkedIn answered 422: comment refused")


def report_a_refused_first_comment_after_the_post(s):
    post = s.publishing()
    s.callback(post)
    s.mark()
    s.callback(post, first_comment_error="LinkedIn answered 422: comment refused")


def the_same_refused_first_comment_again(s):
    post = s.publishing()
    s.callback(post, first_comment_error="LinkedIn answered 422: comment refused")
    s.mark()
    s.callback(post, first_comment_error="LinkedIn answered 422: comment refused")


def delete_a_post(s):
    post = s.failed()
    s.mark()
    s.ok(s.api.client.delete(ITEM + post["id"], headers={"X-API-Key": s.api.key}), 204)


def create_an_article(s):
    s.mark()
    s.article()


def edit_an_article(s):
    article = s.article()
    s.mark()
    s.patch_article(article, {"title": "Better notes", "tags": ["howto"]})


def publish_an_article(s):
    article = s.article()
    s.mark()
    s.patch_article(article, {"status": "Published"})


def unpublish_an_article(s):
    article = s.patch_article(s.article(), {"status": "Published"})
    s.mark()
    s.patch_article(article, {"status": "Draft"})


def delete_an_article(s):
    article = s.patch_article(s.article(), {"status": "Published"})
    s.mark()
    s.ok(s.api.client.delete(ARTICLE + article["id"], headers={"X-API-Key": s.api.key}), 204)


def documented_name(fn):
    """The table's wording of a change function: `retry_a_failed_post_as_draft`
    is "retry a Failed post as Draft"."""
    name = (
        fn.__name__.replace("_", " ").replace("drafts", "draft's").replace("post due", "post.due")
    )
    for status in ("Draft", "Scheduled", "Failed", "Publishing"):
        name = re.sub(rf"\b{status.lower()}\b", status, name)
    return name


CHANGES = {
    documented_name(fn): fn
    for fn in (
        create_a_post,
        edit_a_drafts_fields,
        schedule_a_draft,
        unschedule_a_scheduled_post,
        mark_a_scheduled_post_failed,
        retry_a_failed_post_as_draft,
        retry_a_failed_post_as_scheduled,
        claim_a_due_post,
        claim_a_due_post_too_long_to_publish,
        push_a_due_post_to_the_post_due_endpoint,
        report_a_publishing_post_failed,
        give_a_publishing_post_back,
        a_lease_runs_out,
        publish_callback,
        the_same_publish_callback_again,
        publish_callback_with_a_refused_first_comment,
        report_a_refused_first_comment_after_the_post,
        the_same_refused_first_comment_again,
        delete_a_post,
        create_an_article,
        edit_an_article,
        publish_an_article,
        unpublish_an_article,
        delete_an_article,
    )
}


def test_the_table_names_exactly_the_changes_tested_here():
    assert set(DOCUMENTED) == set(CHANGES)


@pytest.fixture
def story(app, api, runner, clock):
    app.config["SCHEDULE_MIN_LEAD_SECONDS"] = -86400  # due posts at once
    app.config["WEBHOOK_ALLOW_PRIVATE"] = True  # the post.due receiver on loopback
    return Story(api, runner, clock, app)


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_each_change_writes_exactly_the_documented_events(story, change):
    CHANGES[change](story)
    assert story.new_events() == sorted(DOCUMENTED.get(change, ())), change
