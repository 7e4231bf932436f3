-- Version 14 -> 15: search also finds the last word of a query as a prefix
-- ("webin" finds "webinar", content_publishing/store/search.py); FTS5 reads
-- a prefix from the index as it is, so SQLite's index needs no change.
-- Recycling a Published post (posts/recycle.py): the copy names its
-- original in recycled_from, and a channel's recycle_after_days (null, or
-- 1-365) is how long after the original went out a copy may go out.
ALTER TABLE posts ADD COLUMN recycled_from TEXT;
ALTER TABLE channels ADD COLUMN recycle_after_days INTEGER
    CHECK (recycle_after_days BETWEEN 1 AND 365);
-- A channel's UTM tags (`utm`, a query string of at most 500 characters),
-- added to the links of its posts' text when they are handed over
-- (linkedin.with_utm), never to the stored text.
ALTER TABLE channels ADD COLUMN utm TEXT CHECK (length(utm) BETWEEN 1 AND 500);
-- Saved hashtag sets (planning/hashtags.py): a name unique among its
-- owner's sets, held by the unique index, and its hashtags as a JSON array.
CREATE TABLE hashtag_sets (
    id          TEXT PRIMARY KEY,           -- UUID
    user_id     INTEGER NOT NULL REFERENCES users (id),
    name        TEXT NOT NULL,
    hashtags    TEXT NOT NULL,              -- JSON array of "#word"
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    version     INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX hashtag_sets_name ON hashtag_sets (user_id, name);
CREATE INDEX hashtag_sets_created ON hashtag_sets (user_id, created_at, id);
