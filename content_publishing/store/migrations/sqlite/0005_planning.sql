-- Version 4 -> 5: planning. Posts can recur (planning/recurrence.py); a
-- channel holds a time zone, posting slots and guards; a bulk import can be
-- retried with its Idempotency-Key.
ALTER TABLE posts ADD COLUMN repeat TEXT; -- RRULE of a recurring post
ALTER TABLE posts ADD COLUMN series_id TEXT; -- UUID shared by a recurring post's occurrences
ALTER TABLE posts ADD COLUMN occurrence INTEGER; -- 1-based place in the series
ALTER TABLE posts ADD COLUMN series_start TEXT; -- the series' first scheduled_at (the rule's DTSTART)
ALTER TABLE posts ADD COLUMN series_continued INTEGER NOT NULL DEFAULT 0; -- 1 once this occurrence made the next

-- A channel's planned posts by time, for the queue and the guards (planning/).
CREATE INDEX posts_channel_planned ON posts (user_id, type, brand_id, scheduled_at)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');
-- The occurrences of a recurring post (GET /api-v2-posts?series_id=).
CREATE INDEX posts_series ON posts (user_id, series_id, created_at, id)
    WHERE series_id IS NOT NULL;

-- Channels: where posts go (the user's profile, `personal`, or a brand page,
-- by the brand_id its posts carry), with its time zone, weekly posting
-- slots and guards. A post whose channel has no row behaves as before.
CREATE TABLE channels (
    user_id          INTEGER NOT NULL REFERENCES users (id),
    id               TEXT NOT NULL,
    type             TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    name             TEXT NOT NULL,
    author_urn       TEXT,
    timezone         TEXT NOT NULL DEFAULT 'UTC',
    slots            TEXT NOT NULL DEFAULT '[]',   -- JSON array of {"day", "time"}
    min_gap_minutes  INTEGER NOT NULL DEFAULT 0,
    daily_cap        INTEGER,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    version          INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (user_id, id),
    CHECK ((type = 'personal') = (id = 'personal'))
);
CREATE INDEX channels_user_created ON channels (user_id, created_at, id);

-- A retried bulk import with the same Idempotency-Key answers the posts the
-- first one made (a JSON array of their ids, in row order).
CREATE TABLE import_idempotency_keys (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    post_ids      TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
);
