-- Version 16 -> 17: search also finds the last word of a query as a prefix
-- ("webin" finds "webinar", content_publishing/store/search.py). The GIN
-- index over each word with its owner in front ('42:launch') held text
-- arrays, whose operators look up whole keys only; it becomes a tsvector of
-- the same keys (posts_search_vector), whose index also reads a range of
-- keys ('42:webin':*), so that a prefix is looked up among the caller's own
-- words as a whole word is. posts_search_query makes a search's tsquery
-- from its words, read as the content is, each quoted, so that nothing of
-- the query language is read in a word: NULL when no word remains (it then
-- matches nothing). Both call only pg_catalog's functions: a restore
-- (pg_restore, with an empty search_path) builds the index through them.
-- posts_search_terms, which the old index was over, goes with it.
CREATE FUNCTION posts_search_vector(owner BIGINT, body TEXT) RETURNS TSVECTOR
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_to_tsvector(coalesce(array_agg(owner::text || ':' || lexeme), '{}'))
    FROM unnest(tsvector_to_array(to_tsvector('simple', body))) AS lexeme
$$;
CREATE FUNCTION posts_search_query(owner BIGINT, words TEXT, prefix TEXT) RETURNS TSQUERY
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT nullif(concat_ws(' & ',
        (SELECT string_agg('''' || replace(replace(owner::text || ':' || lexeme, '\', '\\'),
                                           '''', '''''') || '''', ' & ')
         FROM unnest(tsvector_to_array(to_tsvector('simple', words))) AS lexeme),
        (SELECT string_agg('''' || replace(replace(owner::text || ':' || lexeme, '\', '\\'),
                                           '''', '''''') || ''':*', ' & ')
         FROM unnest(tsvector_to_array(to_tsvector('simple', prefix))) AS lexeme)), '')::tsquery
$$;
DROP INDEX posts_search_owned;
CREATE INDEX posts_search_owned ON posts
    USING GIN (posts_search_vector(workspace_id, content)) WITH (fastupdate = off);
DROP FUNCTION posts_search_terms(BIGINT, TEXT);
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
    id          TEXT PRIMARY KEY,
    workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
    name        TEXT NOT NULL,
    hashtags    TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    version     INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX hashtag_sets_name ON hashtag_sets (workspace_id, name);
CREATE INDEX hashtag_sets_created ON hashtag_sets (workspace_id, created_at, id);
