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
