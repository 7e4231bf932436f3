"""Changes that bring an older SQLite database to the current schema.

MIGRATIONS[n] turns a database at PRAGMA user_version n into n + 1. Each is
a snapshot of that step and is never edited afterwards; schema.sql always
holds the newest shape for new databases and runs after the migrations
(recreating the indexes and triggers a rebuilt table lost).

They run inside init_db's transaction with foreign keys off, as SQLite's
procedure for changing a table's constraints asks; init_db checks the
foreign keys before it commits.
"""

# 1 -> 2: posts gain the Publishing status and the handoff columns of claims.
# SQLite cannot change a CHECK constraint in place, so the table is rebuilt.
POSTS_V2 = """
CREATE TABLE posts_v2 (
    id                  TEXT PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users (id),
    type                TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    brand_id            TEXT,
    content             TEXT NOT NULL,
    media_urls          TEXT NOT NULL DEFAULT '[]',
    status              TEXT NOT NULL DEFAULT 'Draft'
                        CHECK (status IN ('Draft', 'Scheduled', 'Publishing', 'Published', 'Failed')),
    scheduled_at        TEXT,
    published_at        TEXT,
    linkedin_post_id    TEXT,
    live_url            TEXT,
    last_error          TEXT,
    handoff_id          TEXT,
    handoff_expires_at  TEXT,
    handoff_count       INTEGER NOT NULL DEFAULT 0,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    version             INTEGER NOT NULL DEFAULT 1,
    CHECK ((type = 'brand') = (brand_id IS NOT NULL)),
    CHECK ((status = 'Publishing') = (handoff_id IS NOT NULL AND handoff_expires_at IS NOT NULL))
)
"""
V1_COLUMNS = (
    "id, user_id, type, brand_id, content, media_urls, status, scheduled_at, published_at,"
    " linkedin_post_id, live_url, last_error, created_at, updated_at, version"
)

# The time of a migration, as timestamps.to_text writes it.
NOW_TEXT = "strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000Z'"
MOVED_TO_PERSONAL_HISTORY = f"""
INSERT INTO post_history (post_id, user_id, at, action, status_from, status_to, fields, detail)
SELECT id, user_id, {NOW_TEXT}, 'updated', status, status, '["type", "brand_id"]',
       'made a personal post when upgrading: brand_id "personal" names the personal channel, '
       || 'whose slots, guards and author it had; a brand_id can no longer be "personal"'
FROM posts WHERE type = 'brand' AND brand_id = 'personal'
"""

MIGRATIONS: dict[int, list[str | tuple[str, str]]] = {
    1: [
        POSTS_V2,
        f"INSERT INTO posts_v2 ({V1_COLUMNS}) SELECT {V1_COLUMNS} FROM posts",
        "DROP TABLE posts",
        "ALTER TABLE posts_v2 RENAME TO posts",
    ],
    # 2 -> 3: pushed handoffs (webhooks). The webhook tables are new, so
    # schema.sql creates them.
    2: [
        "ALTER TABLE posts ADD COLUMN handoff_acknowledged INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE posts ADD COLUMN handoff_error TEXT",
    ],
    # 3 -> 4: at most one enabled post.due endpoint per user, held by a
    # unique index; schema.sql disables any extra ones first and adds it.
    3: [],
    # 4 -> 5: recurring posts (planning/recurrence.py); schema.sql adds the
    # channels table and the indexes.
    4: [
        "ALTER TABLE posts ADD COLUMN repeat TEXT",
        "ALTER TABLE posts ADD COLUMN series_id TEXT",
        "ALTER TABLE posts ADD COLUMN occurrence INTEGER",
        "ALTER TABLE posts ADD COLUMN series_start TEXT",
        "ALTER TABLE posts ADD COLUMN series_continued INTEGER NOT NULL DEFAULT 0",
    ],
    # 5 -> 6: a header token an endpoint's deliveries carry (auth_header).
    # A database from before version 3 has no endpoints yet: schema.sql
    # makes the table whole, so the steps are for an existing table only.
    5: [
        ("webhook_endpoints", "ALTER TABLE webhook_endpoints ADD COLUMN auth_header_name TEXT"),
        ("webhook_endpoints", "ALTER TABLE webhook_endpoints ADD COLUMN auth_header_token TEXT"),
    ],
    # 6 -> 7: the media library, post history and search; schema.sql makes
    # their tables, indexes and triggers, after the search table made here
    # is filled with the posts there are.
    6: [
        "CREATE VIRTUAL TABLE IF NOT EXISTS posts_search USING fts5(content, content = 'posts',"
        " content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 0')",
        "INSERT INTO posts_search (posts_search) VALUES ('rebuild')",
    ],
    # 7 -> 8: the key generation of the per-worker key cache (auth.py);
    # schema.sql makes the table and its triggers.
    7: [],
    # 8 -> 9: one channel rule. A brand post whose brand_id is `personal` was
    # planned on the personal channel and went out as its author, but its
    # guards did not count it: it becomes the personal post it behaved as,
    # with a history entry saying so (docs/planning.md). schema.sql then
    # indexes planned posts by their channel and adds the queue's holes.
    8: [
        ("post_history", MOVED_TO_PERSONAL_HISTORY),
        "UPDATE posts SET type = 'personal', brand_id = NULL, version = version + 1,"
        f" updated_at = {NOW_TEXT} WHERE type = 'brand' AND brand_id = 'personal'",
        "DROP INDEX IF EXISTS posts_channel_planned",
        ("channels", "ALTER TABLE channels ADD COLUMN queue_full_until TEXT"),
    ],
}
