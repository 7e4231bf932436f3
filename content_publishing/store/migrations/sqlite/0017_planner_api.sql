-- Version 16 -> 17: search also finds the last word of a query as a prefix
-- ("webin" finds "webinar", content_publishing/store/search.py). Without a
-- prefix index FTS5 answers a prefix query by merging the entries of every
-- word that begins so, every owner's, before the owner's rowid range can
-- narrow them: "lau"* read a million entries (25 ms) where "launch" read the
-- caller's. The index is rebuilt with prefix indexes of 3 to 10 characters,
-- whose entries are read as a word's are, within the owner's range (1 ms):
-- as before (0009; the owner is workspace_id since 0015) but for the
-- prefix option. A prefix of more than 10 characters is answered the slow
-- way, correctly, and selects few words.
-- The rebuild reads every post once (about 25 s a million).
DROP TRIGGER posts_search_insert;
DROP TRIGGER posts_search_update;
DROP TRIGGER posts_search_delete;
DROP TABLE posts_search;
CREATE VIRTUAL TABLE posts_search USING fts5(
    content, content = '', tokenize = 'unicode61 remove_diacritics 0',
    prefix = '3 4 5 6 7 8 9 10'
);
INSERT INTO posts_search (rowid, content)
    SELECT workspace_id * 1099511627776 + rowid, content FROM posts;
CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
    INSERT INTO posts_search (rowid, content)
    VALUES (new.workspace_id * 1099511627776 + new.rowid, new.content);
END;
CREATE TRIGGER posts_search_update AFTER UPDATE OF content, workspace_id ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content)
    VALUES ('delete', old.workspace_id * 1099511627776 + old.rowid, old.content);
    INSERT INTO posts_search (rowid, content)
    VALUES (new.workspace_id * 1099511627776 + new.rowid, new.content);
END;
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content)
    VALUES ('delete', old.workspace_id * 1099511627776 + old.rowid, old.content);
END;
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
    workspace_id INTEGER NOT NULL REFERENCES workspaces (id),
    name        TEXT NOT NULL,
    hashtags    TEXT NOT NULL,              -- JSON array of "#word"
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    version     INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX hashtag_sets_name ON hashtag_sets (workspace_id, name);
CREATE INDEX hashtag_sets_created ON hashtag_sets (workspace_id, created_at, id);
