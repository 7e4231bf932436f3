-- Version 4 -> 5: planning. Posts can recur (planning/recurrence.py); a
-- channel holds a time zone, posting slots and guards; a bulk import can be
-- retried with its Idempotency-Key.
ALTER TABLE posts ADD COLUMN repeat TEXT;
ALTER TABLE posts ADD COLUMN series_id TEXT;
ALTER TABLE posts ADD COLUMN occurrence INTEGER;
ALTER TABLE posts ADD COLUMN series_start TEXT;
ALTER TABLE posts ADD COLUMN series_continued INTEGER NOT NULL DEFAULT 0;
CREATE INDEX posts_channel_planned ON posts (user_id, type, brand_id, scheduled_at)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');
CREATE INDEX posts_series ON posts (user_id, series_id, created_at, id)
    WHERE series_id IS NOT NULL;

CREATE TABLE channels (
    user_id          BIGINT NOT NULL REFERENCES users (id),
    id               TEXT NOT NULL,
    type             TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    name             TEXT NOT NULL,
    author_urn       TEXT,
    timezone         TEXT NOT NULL DEFAULT 'UTC',
    slots            TEXT NOT NULL DEFAULT '[]',
    min_gap_minutes  INTEGER NOT NULL DEFAULT 0,
    daily_cap        INTEGER,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    version          INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (user_id, id),
    CHECK ((type = 'personal') = (id = 'personal'))
);
CREATE INDEX channels_user_created ON channels (user_id, created_at, id);

CREATE TABLE import_idempotency_keys (
    user_id       BIGINT NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    post_ids      TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
);
