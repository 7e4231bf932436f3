-- Version 6 -> 7: the media library, post history, and search.

-- The media library (content_publishing/media.py): images as uploaded and
-- cleaned, kept in the database so that every host and backup has them.
-- The same bytes uploaded twice by one user are one media.
CREATE TABLE media (
    id             TEXT PRIMARY KEY,          -- 128 random bits, hex: the file's address
    user_id        INTEGER NOT NULL REFERENCES users (id),
    content_type   TEXT NOT NULL,
    ext            TEXT NOT NULL,
    bytes          INTEGER NOT NULL,
    width          INTEGER NOT NULL,
    height         INTEGER NOT NULL,
    sha256         TEXT NOT NULL,             -- of the stored image
    upload_sha256  TEXT NOT NULL,             -- of the bytes uploaded
    data           BLOB NOT NULL,
    created_at     TEXT NOT NULL,
    UNIQUE (user_id, upload_sha256)
);
CREATE INDEX media_user_created ON media (user_id, created_at, id);

-- Post history (content_publishing/history.py): one row per change, written
-- in its transaction; no content and no key (only the key's id, for its
-- prefix). Deleted with the post.
CREATE TABLE post_history (
    id           INTEGER PRIMARY KEY,
    post_id      TEXT NOT NULL,
    user_id      INTEGER NOT NULL REFERENCES users (id),
    at           TEXT NOT NULL,
    action       TEXT NOT NULL,
    status_from  TEXT,
    status_to    TEXT,
    fields       TEXT NOT NULL,      -- JSON array of field names
    key_id       INTEGER,              -- null: the service itself
    handoff_id   TEXT,
    detail       TEXT
);
CREATE INDEX post_history_post ON post_history (post_id, id);

-- Search: an FTS5 index of the posts' content (an external-content table,
-- on the posts' rowid), filled here with the posts there are, then kept by
-- the triggers below.
CREATE VIRTUAL TABLE posts_search USING fts5(
    content, content = 'posts', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO posts_search (posts_search) VALUES ('rebuild');
CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
    INSERT INTO posts_search (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER posts_search_update AFTER UPDATE OF content ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO posts_search (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
