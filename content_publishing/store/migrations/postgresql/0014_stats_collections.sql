-- Version 13 -> 14: the service collects the figures of the posts it can
-- read at LinkedIn itself (analytics/collection.py).
--
-- One row per Published post whose figures are still to be collected: the
-- age it is at (0..3: 1 hour, 24 hours, 7 days, 30 days after it went out),
-- when that collection is due, and how many times the current age has been
-- tried (a failed one is tried again later, a few times). The row goes once
-- the last age is collected or given up on, so the table holds only the
-- posts of the last 30 days or so, and the dispatcher's look for due work is
-- one probe of the due_at index. Deleted with its post.
CREATE TABLE stats_collections (
    post_id      TEXT PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    user_id      BIGINT NOT NULL REFERENCES users (id),
    published_at TEXT NOT NULL,
    age          INTEGER NOT NULL CHECK (age BETWEEN 0 AND 3),
    tries        INTEGER NOT NULL DEFAULT 0 CHECK (tries >= 0),  -- of the current age
    due_at       TEXT NOT NULL,
    last_error   TEXT                        -- why the last try of this age failed
);
-- The collections in the order they fall due: the dispatcher's look for due
-- work reads its first entry (MIN, whatever plan a prepared statement gets),
-- and taking them reads it in order.
CREATE INDEX stats_collections_due ON stats_collections (due_at, post_id);
