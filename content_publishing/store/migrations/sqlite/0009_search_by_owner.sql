-- Version 8 -> 9: search bounded by the caller's own posts
-- (content_publishing/store/search.py). The FTS5 index of the posts'
-- content is rebuilt, contentless (it keeps no copy of the text), with each
-- post's entry at rowid owner's id * 2^40 (1099511627776) + the post's
-- rowid: each owner's entries are one range of rowids, which a search
-- seeks to and never leaves, so that another user's matches are never read
-- (the old index held every user's posts in one rowid order, and a common
-- word in one user's 200,000 posts cost every other user's search).
-- Case-insensitive, whole words, diacritics kept, as PostgreSQL's 'simple'
-- configuration reads them. The service never VACUUMs, which could
-- renumber the posts' rowids; after a manual VACUUM, rebuild it:
--   INSERT INTO posts_search (posts_search) VALUES ('delete-all');
--   INSERT INTO posts_search (rowid, content)
--       SELECT user_id * 1099511627776 + rowid, content FROM posts;
-- (This holds while user ids stay below 2^23 and rowids below 2^40.)
DROP TRIGGER posts_search_insert;
DROP TRIGGER posts_search_update;
DROP TRIGGER posts_search_delete;
DROP TABLE posts_search;
CREATE VIRTUAL TABLE posts_search USING fts5(
    content, content = '', tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO posts_search (rowid, content)
    SELECT user_id * 1099511627776 + rowid, content FROM posts;
CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
    INSERT INTO posts_search (rowid, content)
    VALUES (new.user_id * 1099511627776 + new.rowid, new.content);
END;
CREATE TRIGGER posts_search_update AFTER UPDATE OF content, user_id ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content)
    VALUES ('delete', old.user_id * 1099511627776 + old.rowid, old.content);
    INSERT INTO posts_search (rowid, content)
    VALUES (new.user_id * 1099511627776 + new.rowid, new.content);
END;
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content)
    VALUES ('delete', old.user_id * 1099511627776 + old.rowid, old.content);
END;
