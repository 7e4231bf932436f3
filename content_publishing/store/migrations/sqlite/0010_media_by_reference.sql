-- Version 9 -> 10: posts name library media by id, not by a URL built from
-- whatever FLASK_PUBLIC_URL was in force when they were saved; alt text,
-- PDF documents, the PNG renditions of WebP images; a document's title and
-- a first comment on posts (content_publishing/posts/attachments.py).

-- What a post carries besides its text. media_alt: one entry per media_urls
-- entry, null for the library item's own alt text ('[]': none yet).
ALTER TABLE posts ADD COLUMN media_alt TEXT NOT NULL DEFAULT '[]';
ALTER TABLE posts ADD COLUMN document_title TEXT;
ALTER TABLE posts ADD COLUMN first_comment TEXT;
ALTER TABLE posts ADD COLUMN first_comment_urn TEXT;    -- reported by the callback
ALTER TABLE posts ADD COLUMN first_comment_error TEXT;  -- reported by the callback

-- A library item's alt text (PATCH /media-item/{id}, with If-Match on its
-- version), and a PDF's page count.
ALTER TABLE media ADD COLUMN alt_text TEXT;
ALTER TABLE media ADD COLUMN pages INTEGER;                    -- a PDF's; NULL for an image
ALTER TABLE media ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

-- LinkedIn takes JPEG, PNG and GIF: a WebP is handed over as a PNG made
-- once and kept, served at /media/<id>.png. Deleted with its media.
CREATE TABLE media_renditions (
    media_id      TEXT PRIMARY KEY REFERENCES media (id),
    content_type  TEXT NOT NULL,
    ext           TEXT NOT NULL,
    bytes         INTEGER NOT NULL,
    sha256        TEXT NOT NULL,
    data          BLOB NOT NULL,
    created_at    TEXT NOT NULL
);

-- Every media_urls entry that is the URL of an item of the post owner's
-- library (any address ending in /media/<id>.<its ext>, no query) becomes
-- the reference media:<id>.<ext>, in place; any other URL stays as written.
UPDATE posts SET media_urls = (
    SELECT json_group_array(kept) FROM (
        SELECT coalesce('media:' || m.id || '.' || m.ext, j.value) AS kept
        FROM json_each(posts.media_urls) AS j
        LEFT JOIN media m
            ON m.user_id = posts.user_id
            AND m.id IN (substr(j.value, -36, 32), substr(j.value, -37, 32))
            AND substr(j.value, -(40 + length(m.ext))) = '/media/' || m.id || '.' || m.ext
        ORDER BY j.key
    )
)
WHERE media_urls LIKE '%/media/%';
