"""Databases of earlier releases, the rows put in them, and what a schema is.

tests/fixtures/schemas/<backend>/vN.sql is the schema file a release with
schema version N ran (taken from git history, so that a clone needs none;
`-first` is the first release of a version whose file changed later without
a new number). old_database() makes a database from one, as that release
left it, and put_rows() fills it with ROWS. describe() reads a schema from
the catalog (SQLite's sqlite_master and PRAGMAs, PostgreSQL's pg_catalog)
and rows() reads every row, so that a migrated database can be compared
with a new one given the same rows.
"""

import contextlib
import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from content_publishing.auth import display_prefix, hash_key
from harness import postgres

FIXTURES = Path(__file__).parent / "fixtures" / "schemas"
KEY = "svc_live_" + "m1grat10n" * 4 + "abcd"  # alice's key, readable after any migration
T0, T1, T2 = (
    "2026-01-01T00:00:00.000000Z",
    "2026-01-02T00:00:00.000000Z",
    "2026-01-03T00:00:00.000000Z",
)
FUTURE = "2099-01-01T00:00:00.000000Z"
POST = "00000000-0000-4000-8000-00000000000{}".format
PUBLISHED_WITH_MEDIA = "00000000-0000-4000-8000-0000000000c8"
APPROVED_POST = "00000000-0000-4000-8000-0000000000a1"
DUPLICATE_ENDPOINT = "00000000-0000-4000-8000-0000000000e2"
ALICES_MEDIA, ALICES_WEBP, BOBS_MEDIA = (
    "0123456789abcdef" * 2,
    "2222333344445555" * 2,
    "fedcba98" * 4,
)
# A post of the days when media_urls held the URLs the library answered,
# built from the FLASK_PUBLIC_URL of the time (the migration to 10 keeps
# alice's own media by id; bob's media, a URL with a query and another
# site's URL stay as written).
URLS_BEFORE_10 = [
    f"http://127.0.0.1:8000/media/{ALICES_MEDIA}.png",
    "https://cdn.example.com/a.png",
    f"https://cps.example.com/base/media/{ALICES_WEBP}.webp",
    f"http://127.0.0.1:8000/media/{BOBS_MEDIA}.png",
    f"http://127.0.0.1:8000/media/{ALICES_MEDIA}.png?v=2",
]
DISABLED_WHEN_UPGRADING = (
    "disabled when upgrading: another enabled endpoint of this user already takes post.due"
)


def released(backend):
    """The fixture names of `backend`, oldest first: ["v1", "v1-first", ...]."""
    names = [p.stem for p in (FIXTURES / backend).glob("v*.sql")]
    return sorted(names, key=lambda name: (fixture_version(name), name))


def fixture_version(name):
    return int(re.match(r"v(\d+)", name)[1])


# Names a migration changed, new -> old: ROWS use the new ones, and a row
# put into an older database goes under the old (version 15 made users
# workspaces and each owner column user_id workspace_id).
RENAMED_TABLES = {"workspaces": "users"}
RENAMED_COLUMNS = {"workspace_id": "user_id"}

ACCOUNTS = 21  # the version that made accounts and sessions, and freed removed members' names
MIGRATED_AT = "(the time of the migration)"  # see EARLIER below
ASSIGNED = "(an id the database assigns)"
BRAND_PERSONAL_HISTORY = (
    'made a personal post when upgrading: brand_id "personal" names the personal channel, '
    'whose slots, guards and author it had; a brand_id can no longer be "personal"'
)

# --- the rows ---------------------------------------------------------------------
#
# (table, values, since): a row of every kind the service keeps, put into
# every database whose release has its table, with the columns that release
# has. `since` holds back a row the older schemas refuse (a Publishing post
# before version 2). Derived tables (content_counts, key_generation, the
# search index) are left to the triggers and migrations that keep them.


def _post(n, **values):
    base = {
        "id": POST(n),
        "workspace_id": 1,
        "created_by": 1,
        "type": "personal",
        "brand_id": None,
        # since version 22: the channel the rule of type and brand_id found
        "channel_id": values.get("brand_id") or "personal",
        "content": f"post {n}",
        "media_urls": "[]",
        "status": "Draft",
        "created_at": T0,
        "updated_at": T0,
        "version": 2,
    }
    return {**base, **values}


ROWS = [
    ("workspaces", {"id": 1, "name": "alice", "created_at": T0}, 1),
    (
        "workspaces",
        {
            "id": 2,
            "name": "bob",
            "chat_webhook_url": "https://chat.example/hooks/b",
            "created_at": T1,
        },
        1,
    ),
    # Each workspace's owner, of its name and id, which the migration to
    # version 15 makes (EARLIER); carol, an editor invited since.
    (
        "members",
        {
            "id": 1,
            "workspace_id": 1,
            "name": "alice",
            "email": None,
            "role": "owner",
            "created_at": T0,
            "removed_at": None,
        },
        1,
    ),
    (
        "members",
        {
            "id": 2,
            "workspace_id": 2,
            "name": "bob",
            "email": None,
            "role": "owner",
            "created_at": T1,
            "removed_at": None,
        },
        1,
    ),
    (
        "members",
        {
            "id": 3,
            "workspace_id": 1,
            "name": "carol",
            "email": "carol@example.com",
            "role": "editor",
            "notify": '["post.failed"]',  # since version 18: the events she wants
            "created_at": T2,
            "removed_at": None,
        },
        15,
    ),
    (
        "member_invites",
        {
            "token_hash": "f" * 64,
            "member_id": 3,
            "expires_at": FUTURE,
            "used_at": None,
            "created_at": T2,
        },
        15,
    ),
    (
        "api_keys",
        {
            "id": 1,
            "workspace_id": 1,
            "member_id": 1,
            "key_hash": hash_key(KEY),
            "prefix": display_prefix(KEY),
            "scopes": "posts:read posts:write posts:publish articles:read webhooks:manage",
            "created_at": T0,
        },
        1,
    ),
    (
        "api_keys",
        {
            "id": 2,
            "workspace_id": 2,
            "member_id": 2,
            "key_hash": "0" * 64,
            "prefix": "abcd",
            "scopes": "posts:read",
            "revoked_at": T1,
            "expires_at": FUTURE,
            "last_used_at": T0,
            "created_at": T0,
        },
        1,
    ),
    ("posts", _post(1, content="A draft about evergreen content"), 1),
    (
        "posts",
        _post(
            7,
            media_urls=json.dumps(
                [
                    f"media:{ALICES_MEDIA}.png",
                    URLS_BEFORE_10[1],
                    f"media:{ALICES_WEBP}.webp",
                    *URLS_BEFORE_10[3:],
                ],
                separators=(",", ":"),
            ),
        ),
        7,
    ),
    (  # (an id of its own: post 8 is another post's)
        "posts",
        {
            **_post(
                8,
                status="Published",
                scheduled_at=T1,
                published_at=T1,
                linkedin_post_id="urn:li:share:8",
                live_url="https://www.linkedin.com/feed/update/urn:li:share:8",
                handoff_count=1,
                media_urls=json.dumps([f"media:{ALICES_MEDIA}.png", f"media:{ALICES_WEBP}.webp"]),
                media_alt=json.dumps([None, "A chart"]),
                first_comment="The link: https://example.com/notes",
                first_comment_error="LinkedIn answered 422",
            ),
            "id": PUBLISHED_WITH_MEDIA,
        },
        10,
    ),
    (
        "posts",
        _post(2, type="brand", brand_id="acme", status="Scheduled", scheduled_at=FUTURE),
        1,
    ),
    (
        "posts",
        _post(
            3,
            status="Published",
            scheduled_at=T1,
            published_at=T1,
            linkedin_post_id="urn:li:share:3",
            live_url="https://www.linkedin.com/feed/update/urn:li:share:3",
            handoff_count=1,
        ),
        1,
    ),
    (
        "posts",
        _post(4, workspace_id=2, created_by=2, status="Failed", scheduled_at=T1, last_error="boom"),
        1,
    ),
    (
        "posts",
        _post(
            5,
            status="Publishing",
            scheduled_at=T1,
            handoff_id="00000000-0000-4000-8000-0000000000a5",
            handoff_expires_at=T2,
            handoff_count=2,
            handoff_acknowledged=0,
            handoff_error="receiver answered 502",
        ),
        2,
    ),
    (
        "posts",
        _post(
            6,
            status="Scheduled",
            scheduled_at=FUTURE,
            repeat="FREQ=WEEKLY;COUNT=3",
            series_id="00000000-0000-4000-8000-0000000000f6",
            occurrence=1,
            series_start=FUTURE,
            series_continued=0,
        ),
        1,
    ),
    (
        "idempotency_keys",
        {
            "workspace_id": 1,
            "key": "create-1",
            "request_hash": "h1",
            "post_id": POST(1),
            "created_at": T0,
        },
        1,
    ),
    (
        "articles",
        {
            "id": "00000000-0000-4000-8000-0000000000a1",
            "workspace_id": 1,
            "title": "Why we schedule",
            "body": "# Notes",
            "excerpt": "Notes",
            "cover_image_url": "https://example.com/c.png",
            "tags": '["howto"]',
            "status": "Published",
            "published_at": T1,
            "live_url": "https://example.com/a",
            "created_at": T0,
            "updated_at": T1,
            "version": 3,
        },
        1,
    ),
    (
        "article_idempotency_keys",
        {
            "workspace_id": 1,
            "key": "article-1",
            "request_hash": "h2",
            "article_id": "00000000-0000-4000-8000-0000000000a1",
            "created_at": T0,
        },
        1,
    ),
    (
        "webhook_endpoints",
        {
            "id": "00000000-0000-4000-8000-0000000000e1",
            "workspace_id": 1,
            "url": "https://hooks.example.com/due",
            "events": '["post.due"]',
            "description": "n8n",
            "enabled": 1,
            "secret": "sealed-1",
            "previous_secret": "sealed-0",
            "previous_secret_until": T2,
            "auth_header_name": "X-N8N-Auth",
            "auth_header_token": "sealed-token",
            "created_at": T0,
            "updated_at": T0,
        },
        1,
    ),
    (
        "webhook_endpoints",
        {
            "id": DUPLICATE_ENDPOINT,
            "workspace_id": 1,
            "url": "https://hooks.example.com/second",
            "events": '["post.failed", "post.due"]',
            "enabled": 0,
            "disabled_reason": DISABLED_WHEN_UPGRADING,
            "secret": "sealed-2",
            "created_at": T1,
            "updated_at": T1,
        },
        1,
    ),
    (
        "webhook_events",
        {
            "id": "msg_1",
            "workspace_id": 1,
            "type": "post.due",
            "post_id": POST(2),
            "body": '{"type": "post.due"}',
            "created_at": T1,
        },
        1,
    ),
    (
        "webhook_deliveries",
        {
            "id": "00000000-0000-4000-8000-0000000000d1",
            "event_id": "msg_1",
            "endpoint_id": "00000000-0000-4000-8000-0000000000e1",
            "workspace_id": 1,
            "event_type": "post.due",
            "post_id": POST(2),
            "outcome": "pending",
            "attempt_count": 1,
            "next_attempt_at": T2,
            "lease_owner": "dispatcher-1",
            "lease_expires_at": T2,
            "last_error": "timeout",
            "created_at": T1,
            "updated_at": T1,
        },
        1,
    ),
    (
        "webhook_attempts",
        {
            "id": 1,
            "delivery_id": "00000000-0000-4000-8000-0000000000d1",
            "attempted_at": T1,
            "outcome": "failed",
            "status_code": 502,
            "duration_ms": 31,
            "error": "bad gateway",
            "response": "<html>",
        },
        1,
    ),
    (
        "channels",
        {
            "workspace_id": 1,
            "id": "acme",
            "type": "brand",
            "member_id": None,  # since version 22: a brand is no member's profile
            "name": "Acme",
            "author_urn": "urn:li:organization:1",
            "timezone": "Europe/Paris",
            "slots": '[{"day": "mon", "time": "09:00"}]',
            "min_gap_minutes": 30,
            "daily_cap": 3,
            "created_at": T0,
            "updated_at": T0,
        },
        1,
    ),
    (
        "import_idempotency_keys",
        {
            "workspace_id": 1,
            "key": "import-1",
            "request_hash": "h3",
            "post_ids": f'["{POST(1)}"]',
            "created_at": T0,
        },
        1,
    ),
    (
        "media",
        {
            "id": ALICES_MEDIA,
            "workspace_id": 1,
            "content_type": "image/png",
            "ext": "png",
            "bytes": 8,
            "width": 1,
            "height": 1,
            "sha256": "a" * 64,
            "upload_sha256": "b" * 64,
            "data": b"\x89PNG\r\n\x1a\n",
            "created_at": T0,
            "version": 1,
        },
        1,
    ),
    (
        "media",
        {
            "id": ALICES_WEBP,
            "workspace_id": 1,
            "content_type": "image/webp",
            "ext": "webp",
            "bytes": 4,
            "width": 1,
            "height": 1,
            "sha256": "c" * 64,
            "upload_sha256": "d" * 64,
            "data": b"RIFF",
            "created_at": T1,
            "version": 1,
        },
        7,
    ),
    (
        "media",
        {
            "id": BOBS_MEDIA,
            "workspace_id": 2,
            "content_type": "image/png",
            "ext": "png",
            "bytes": 8,
            "width": 1,
            "height": 1,
            "sha256": "a" * 64,
            "upload_sha256": "b" * 64,
            "data": b"\x89PNG\r\n\x1a\n",
            "created_at": T0,
            "version": 1,
        },
        7,
    ),
    (
        "media_renditions",
        {
            "media_id": ALICES_WEBP,
            "content_type": "image/png",
            "ext": "png",
            "bytes": 8,
            "sha256": "e" * 64,
            "data": b"\x89PNG\r\n\x1a\n",
            "created_at": T1,
        },
        10,
    ),
    (
        "post_history",
        {
            "id": 1,
            "post_id": POST(3),
            "workspace_id": 1,
            "at": T1,
            "action": "published",
            "status_from": "Publishing",
            "status_to": "Published",
            "fields": '["status"]',
            "key_id": 1,
            "handoff_id": None,
            "detail": "urn:li:share:3",
        },
        1,
    ),
    (
        "posts",
        _post(8, status="Scheduled", scheduled_at=FUTURE, version=3, updated_at=MIGRATED_AT),
        1,
    ),
    (
        "post_history",
        {
            "id": ASSIGNED,
            "post_id": POST(8),
            "workspace_id": 1,
            "at": MIGRATED_AT,
            "action": "updated",
            "status_from": "Scheduled",
            "status_to": "Scheduled",
            "fields": '["type", "brand_id"]',
            "key_id": None,
            "handoff_id": None,
            "detail": BRAND_PERSONAL_HISTORY,
        },
        1,
    ),
    ("channel_queue_holes", {"workspace_id": 1, "channel_id": "acme", "at": T2}, 11),
    # Since version 12: a channel the service publishes itself, its LinkedIn
    # connection, a sign-in under way, and a post the service is sending.
    (
        "channels",
        {
            "workspace_id": 1,
            "id": "personal",
            "type": "personal",
            "member_id": 1,  # since version 22: the first owner's profile
            "name": "Me",
            "author_urn": "urn:li:person:abc",
            "publisher": "linkedin",
            "created_at": T0,
            "updated_at": T1,
            "version": 2,
        },
        12,
    ),
    (
        "linkedin_connections",
        {
            "workspace_id": 1,
            "channel_id": "personal",
            "status": "connected",
            "member_urn": "urn:li:person:abc",
            "member_name": "Ada Lovelace",
            "organizations": "[]",
            "scopes": "openid profile w_member_social",
            "access_token": "sealed-access",
            "access_expires_at": FUTURE,
            "refresh_token": "sealed-refresh",
            "refresh_expires_at": FUTURE,
            "connected_at": T1,
            "updated_at": T1,
        },
        12,
    ),
    (
        "linkedin_states",
        {
            "state_hash": "c" * 64,
            "workspace_id": 1,
            "channel_id": "personal",
            "key_id": 1,
            "browser_hash": "d" * 64,
            "expires_at": T2,
            "created_at": T1,
        },
        12,
    ),
    (
        "posts",
        _post(
            9,
            status="Publishing",
            scheduled_at=T1,
            handoff_id="00000000-0000-4000-8000-0000000000a7",
            handoff_expires_at=T2,
            handoff_count=1,
            handoff_holder="service",
            handoff_sending_at=T1,
            handoff_error="LinkedIn answered 503",
        ),
        12,
    ),
    (
        "posts",
        {
            **_post(9, status="Scheduled", scheduled_at=T1, retry_not_before=T2),
            "id": "00000000-0000-4000-8000-0000000000b9",
        },
        12,
    ),
    # Since version 23: a post submitted for the queue, to be queued the
    # moment it is approved (posts.queue_on_approval).
    (
        "posts",
        {
            **_post(10, status="In review", queue_on_approval=1),
            "id": "00000000-0000-4000-8000-0000000000ba",
        },
        23,
    ),
    # The analytics' row of the Published post 3, which the migration to
    # version 13 makes for it (EARLIER), its figures empty until stats arrive.
    (
        "post_metrics",
        {
            "post_id": POST(3),
            "workspace_id": 1,
            "channel": "personal",
            "published_at": T1,
            "published_quarter": 1767312000 // 900,  # T1's quarter-hour
            "taken_at": None,
            "impressions": None,
            "members_reached": None,
            "reactions": None,
            "comments": None,
            "reshares": None,
            "clicks": None,
            "interactions": 0,
            "engagement": None,
        },
        1,
    ),
    (
        "post_metrics",
        {
            "post_id": PUBLISHED_WITH_MEDIA,
            "workspace_id": 1,
            "channel": "personal",
            "published_at": T1,
            "published_quarter": 1767312000 // 900,
            "taken_at": None,
            "impressions": None,
            "members_reached": None,
            "reactions": None,
            "comments": None,
            "reshares": None,
            "clicks": None,
            "interactions": 0,
            "engagement": None,
        },
        10,
    ),
    (
        "post_stats",
        {
            "post_id": POST(3),
            "taken_at": T2,
            "impressions": 120,
            "members_reached": 90,
            "reactions": 6,
            "comments": 2,
            "reshares": None,
            "clicks": 4,
            "recorded_at": T2,
        },
        13,
    ),
    # The Published post 3's stats collection by the service, at its second
    # age (24 hours after it went out), its first try of it having failed.
    (
        "stats_collections",
        {
            "post_id": POST(3),
            "workspace_id": 1,
            "published_at": T1,
            "age": 1,
            "tries": 1,
            "due_at": T2,
            "last_error": "LinkedIn answered 503: Service Unavailable",
        },
        14,
    ),
    # Version 16: a post approved by carol, the editor, and a comment that
    # mentions alice on it.
    (
        "posts",
        {
            **_post(1, status="Approved", approved_by=3, approved_at=T1, reviewed_by=3),
            "id": APPROVED_POST,
        },
        16,
    ),
    (
        "post_comments",
        {
            "id": 1,
            "workspace_id": 1,
            "post_id": APPROVED_POST,
            "member_id": 3,
            "body": "Looks good, @alice",
            "mentions": "[1]",
            "created_at": T1,
        },
        16,
    ),
    # Since version 17: a channel that waits before a recycled copy goes
    # out and tags its links, the copy of the Published post 3 queued on it,
    # and a saved hashtag set.
    (
        "channels",
        {
            "workspace_id": 1,
            "id": "evergreen",
            "type": "brand",
            "member_id": None,
            "name": "Evergreen",
            "timezone": "Europe/Berlin",
            "slots": '[{"day": "tue", "time": "10:00"}]',
            "recycle_after_days": 30,
            "utm": "utm_source=linkedin&utm_campaign={channel}",
            "created_at": T1,
            "updated_at": T1,
        },
        17,
    ),
    (
        "posts",
        {
            **_post(
                3,
                type="brand",
                brand_id="evergreen",
                status="Scheduled",
                scheduled_at=FUTURE,
                recycled_from=POST(3),
            ),
            "id": "00000000-0000-4000-8000-0000000000c3",
        },
        17,
    ),
    (
        "hashtag_sets",
        {
            "id": "00000000-0000-4000-8000-0000000000d1",
            "workspace_id": 1,
            "name": "SaaS launch",
            "hashtags": '["#B2B", "#SaaS"]',
            "created_at": T1,
            "updated_at": T1,
            "version": 1,
        },
        17,
    ),
    (
        "notifications",
        {
            "id": 1,
            "workspace_id": 1,
            "member_id": 3,
            "kind": "email",
            "recipient": "carol@example.com",
            "event": "post.failed",
            "post_id": POST(1),
            "body": '{"event":"post.failed","workspace":"alice","actor":null}',
            "outcome": "sent",
            "attempt_count": 1,
            "next_attempt_at": None,
            "lease_owner": None,
            "lease_expires_at": None,
            "last_error": None,
            "created_at": T2,
            "updated_at": T2,
        },
        18,
    ),
]

# What a migration does to rows, for the comparison to expect it. A row of
# ROWS is what a database of the newest version holds; EARLIER[(table, id)]
# = (N, values) says that a database older than version N holds `values`
# in place of some of them (the migration to N changes them), or, with
# None, does not hold the row at all (the migration to N adds it). A value
# a migration sets to the time it runs is MIGRATED_AT in ROWS: the
# comparison takes any timestamp of this test run for it; an id it lets the
# database assign is ASSIGNED (the new database assigns it too). A row is
# named by its id, or by its post_id in a table of one row per post. For instance:
# before the rule of one enabled post.due endpoint per user the second one
# was enabled too; the migration to version 4 disables it, saying why.
EARLIER = {
    ("webhook_endpoints", DUPLICATE_ENDPOINT): (4, {"enabled": 1, "disabled_reason": None}),
    ("posts", POST(7)): (
        10,
        {"media_urls": json.dumps(URLS_BEFORE_10)},
    ),
    # A brand post whose brand_id named the personal channel: the migration to
    # version 11 makes it the personal post it behaved as, with a history entry.
    ("posts", POST(8)): (
        11,
        {"type": "brand", "brand_id": "personal", "version": 2, "updated_at": T0},
    ),
    ("post_history", ASSIGNED): (11, None),
    ("post_metrics", POST(3)): (13, None),
    ("post_metrics", PUBLISHED_WITH_MEDIA): (13, None),
    ("members", 1): (15, None),
    ("members", 2): (15, None),
}
# Columns a migration adds and fills for the rows it finds (version 15: each
# key is its workspace owner's, each post written by them; version 22: each
# post's channel, the personal channel's member): a row put into
# an older database is compared with these values, not the column's default.
FILLED = {
    "api_keys": ["member_id"],
    "posts": ["created_by", "channel_id"],
    "channels": ["member_id"],  # (version 22: the personal channel is the first owner's)
}
RUN_STARTED = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S")

# Tables the comparison of rows leaves to checks of their own: the counts
# behind list totals (compared as totals), the key generation (a counter of
# changes, which a migrated database starts at 0), the search index's
# storage (its content is checked by searching), the schema version.
DERIVED = {"content_counts", "key_generation", "schema_version"}


def rows_for(version):
    """[(table, values as a database of `version` holds them (None: it has
    not this row), values after migrating it)]."""
    found = []
    for table, values, since in ROWS:
        if since > version:
            continue
        before = values
        earlier = EARLIER.get((table, values.get("id", values.get("post_id"))))
        if earlier and version < earlier[0]:
            before = None if earlier[1] is None else {**values, **earlier[1]}
        found.append((table, before, values))
    return found


def _as_expected(value):
    """A timestamp written during this run (by a migration) reads as MIGRATED_AT."""
    if isinstance(value, str) and RUN_STARTED <= value < FUTURE and value[10:11] == "T":
        return MIGRATED_AT
    return _plain(value)


# --- one database, either backend -----------------------------------------------------


class Database:
    """A plain connection to the database of a test (autocommit), with what
    the comparison asks of it."""

    def __init__(self, backend, target):
        self.backend, self.target = backend, target
        if backend == "sqlite":
            self.conn = sqlite3.connect(target, isolation_level=None)
            self.mark = "?"
        else:
            self.conn = psycopg.connect(target, autocommit=True)
            self.schema = self.conn.execute("SELECT current_schema()").fetchone()[0]
            self.mark = "%s"

    def close(self):
        self.conn.close()

    def script(self, sql):
        if self.backend == "sqlite":
            self.conn.executescript(sql)
        else:
            self.conn.execute(sql)

    def all(self, sql, params=()):
        return [tuple(row) for row in self.conn.execute(sql, params).fetchall()]

    def set_version(self, version):
        if self.backend == "sqlite":
            self.conn.execute(f"PRAGMA user_version = {int(version)}")
        else:
            self.conn.execute("DELETE FROM schema_version")
            self.conn.execute("INSERT INTO schema_version VALUES (%s)", (version,))

    def version(self):
        if self.backend == "sqlite":
            return self.conn.execute("PRAGMA user_version").fetchone()[0]
        return self.conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]

    def tables(self):
        if self.backend == "sqlite":
            return {
                name
                for (name,) in self.all(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                    " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'posts_search%'"
                )
            }
        return {
            name
            for (name,) in self.all(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        }

    def columns(self, table):
        if self.backend == "sqlite":
            return [row[1] for row in self.all(f"PRAGMA table_info({table})")]
        return [
            name
            for (name,) in self.all(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = %s",
                (table,),
            )
        ]

    def put(self, rows):
        """Insert [(table, values, columns)]: the given columns of `values`, or
        all that the table has when None; a table this database lacks is
        skipped. [(table, columns)] of each row put (None when skipped)."""
        shape = {table: self.columns(table) for table in self.tables()}
        put = []
        for table, values, columns in rows:
            there = table if table in shape else RENAMED_TABLES.get(table)
            if there not in shape:
                put.append((table, None))
                continue
            columns = [
                c
                for c in columns or values
                if _named(c, shape[there]) in shape[there] and values[c] != ASSIGNED
            ]
            if ASSIGNED in values.values():
                self._go_on_after_ids()  # the ids put so far are taken
            marks = ", ".join([self.mark] * len(columns))
            names = ", ".join(_named(c, shape[there]) for c in columns)
            self.conn.execute(
                f"INSERT INTO {there} ({names}) VALUES ({marks})",
                [values[c] for c in columns],
            )
            put.append((table, columns))
        self._go_on_after_ids()
        return put

    def _go_on_after_ids(self):
        """PostgreSQL: identities go on after the ids put (SQLite's do by themselves)."""
        if self.backend == "sqlite":
            return
        for table, column in self.all(
            "SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
            " WHERE c.relnamespace = current_schema()::regnamespace AND a.attidentity <> ''"
        ):
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
                f" coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)"
            )

    def rows(self, table, columns=None):
        """Every row of `table` as a sorted list of tuples (of `columns`)."""
        columns = columns or sorted(self.columns(table))
        found = self.all(f"SELECT {', '.join(columns)} FROM {table}")
        return sorted((tuple(_as_expected(v) for v in row) for row in found), key=repr)

    def totals(self):
        """The list totals content_counts holds: {(user, kind, status): n}, zeros left out."""
        found = self.all(
            "SELECT workspace_id, kind, status, sum(n) FROM content_counts GROUP BY workspace_id, kind, status"
        )
        return {tuple(row[:3]): int(row[3]) for row in found if int(row[3]) != 0}

    def describe(self):
        return describe_sqlite(self) if self.backend == "sqlite" else describe_postgres(self)


def _named(column, columns):
    """A column's name in a table of `columns`: its name before a rename
    when the table has only that."""
    return column if column in columns else RENAMED_COLUMNS.get(column, column)


def _plain(value):
    return bytes(value) if isinstance(value, memoryview) else value


@contextlib.contextmanager
def database(backend, tmp_path, name):
    """A new, empty database of `backend`: (FLASK_DATABASE, Database)."""
    if backend == "sqlite":
        target = str(tmp_path / f"{name}.sqlite")
        db = Database(backend, target)
        try:
            yield target, db
        finally:
            db.close()
        return
    with postgres.fresh_database(prefix="migr") as url:
        db = Database(backend, url)
        try:
            yield url, db
        finally:
            db.close()


def old_database(db, backend, name):
    """Make `db` what the release of fixture `name` left: its schema file
    run, its version recorded."""
    db.script((FIXTURES / backend / f"{name}.sql").read_text())
    db.set_version(fixture_version(name))


# --- what a schema is -------------------------------------------------------------------


def normalized(sql):
    """SQL text with comments, quotes around names and spacing taken out, so
    that the same definition reads the same however it was written."""
    sql = re.sub(r"--[^\n]*", " ", sql or "")
    sql = re.sub(r'"(\w+)"', r"\1", sql)
    sql = re.sub(r"\s+", " ", sql).strip()
    return re.sub(r"\s*([(),;=])\s*", r"\1", sql)


def checks(sql):
    """The CHECK clauses of a CREATE TABLE, column or table ones alike."""
    found, text = [], normalized(sql)
    for match in re.finditer(r"\bCHECK\(", text):
        depth, start = 0, match.end() - 1
        for i in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                found.append(text[start : i + 1])
                break
    return sorted(found)


def describe_sqlite(db):
    """Every table (columns by name, column order aside: SQLite's ADD COLUMN
    appends), its CHECK clauses, foreign keys, WITHOUT ROWID, indexes and
    triggers, as SQLite's catalog holds them."""
    schema = {}
    for kind, name, table, sql in db.all(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ):
        if kind == "table":
            columns = sorted(db.all(f"PRAGMA table_xinfo({name})"), key=lambda c: c[1])
            schema[f"table {name}"] = {
                "columns": [c[1:] for c in columns],  # name, type, notnull, default, pk, hidden
                "checks": checks(sql),
                "foreign keys": sorted(
                    row[2:] for row in db.all(f"PRAGMA foreign_key_list({name})")
                ),
                "without rowid": db.all(f"PRAGMA table_list({name})")[0][4],
                "virtual": normalized(sql) if sql.upper().startswith("CREATE VIRTUAL") else None,
            }
            for index in db.all(f"PRAGMA index_list({name})"):
                keys = [row[2:] for row in db.all(f"PRAGMA index_xinfo({index[1]})")]  # not cid
                schema[f"index {index[1]}"] = (name, index[2], index[3], index[4], keys)
        elif kind == "index" and sql:
            schema[f"index sql {name}"] = normalized(sql)
        elif kind == "trigger":
            schema[f"trigger {name}"] = (table, normalized(sql))
        elif kind == "view":
            schema[f"view {name}"] = normalized(sql)
    return schema


PG_CATALOG = {
    "relations": """
        SELECT c.relname, c.relkind::text, c.reloptions::text FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace""",
    "columns": """
        SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               pg_get_expr(d.adbin, d.adrelid), a.attidentity::text, a.attgenerated::text
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
          AND a.attnum > 0 AND NOT a.attisdropped""",
    "constraints": """
        SELECT c.relname, k.conname, k.contype::text, pg_get_constraintdef(k.oid)
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
        WHERE c.relnamespace = current_schema()::regnamespace""",
    "indexes": """
        SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = current_schema()""",
    "triggers": """
        SELECT c.relname, t.tgname, t.tgenabled::text, pg_get_triggerdef(t.oid)
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal""",
    "functions": """
        SELECT p.proname, pg_get_function_identity_arguments(p.oid), pg_get_functiondef(p.oid)
        FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace""",
    "sequences": """
        SELECT sequencename, data_type::text, increment_by, min_value, max_value
        FROM pg_sequences WHERE schemaname = current_schema()""",
}


def describe_postgres(db):
    """Relations (with their storage options), columns (by name: ADD COLUMN
    appends), constraints, indexes, triggers, functions and sequences, as
    pg_catalog holds them; the schema's own name is taken out."""
    own = re.compile(rf"\b{re.escape(db.schema)}\.")
    return {
        part: sorted(
            tuple(own.sub("", v) if isinstance(v, str) else v for v in row) for row in db.all(query)
        )
        for part, query in PG_CATALOG.items()
    }
