-- Version 9 -> 10: posts name library media by id, not by a URL built from
-- whatever FLASK_PUBLIC_URL was in force when they were saved; alt text,
-- PDF documents, the PNG renditions of WebP images; a document's title and
-- a first comment on posts (the SQLite migration says more).
ALTER TABLE posts ADD COLUMN media_alt TEXT NOT NULL DEFAULT '[]';
ALTER TABLE posts ADD COLUMN document_title TEXT;
ALTER TABLE posts ADD COLUMN first_comment TEXT;
ALTER TABLE posts ADD COLUMN first_comment_urn TEXT;
ALTER TABLE posts ADD COLUMN first_comment_error TEXT;

ALTER TABLE media ADD COLUMN alt_text TEXT;
ALTER TABLE media ADD COLUMN pages INTEGER;
ALTER TABLE media ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

CREATE TABLE media_renditions (
    media_id      TEXT PRIMARY KEY REFERENCES media (id),
    content_type  TEXT NOT NULL,
    ext           TEXT NOT NULL,
    bytes         INTEGER NOT NULL,
    sha256        TEXT NOT NULL,
    data          BYTEA NOT NULL,
    created_at    TEXT NOT NULL
);

-- Library URLs become media:<id>.<ext>, in place; the JSON written as
-- SQLite's json_group_array writes it, so that both backends hold the same.
UPDATE posts p SET media_urls = (
    SELECT '[' || string_agg(to_json(coalesce('media:' || m.id || '.' || m.ext, j.value))::text,
                             ',' ORDER BY j.ord) || ']'
    FROM json_array_elements_text(p.media_urls::json) WITH ORDINALITY AS j (value, ord)
    LEFT JOIN media m
        ON m.user_id = p.user_id
        AND m.id IN (substr(j.value, length(j.value) - 35, 32),
                     substr(j.value, length(j.value) - 36, 32))
        AND right(j.value, 40 + length(m.ext)) = '/media/' || m.id || '.' || m.ext
)
WHERE p.media_urls LIKE '%/media/%';
