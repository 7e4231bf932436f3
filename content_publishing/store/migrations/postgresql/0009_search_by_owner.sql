-- Version 8 -> 9: search bounded by the caller's own posts
-- (content_publishing/store/search.py). The GIN index over the words of
-- every user's posts is replaced by one whose keys are each word with its
-- owner in front ('42:launch'), as the 'simple' text search configuration
-- reads the content (any case, no stemming: a whole word is the word
-- itself): a search looks up its caller's keys alone, so that a common word
-- in another user's 200,000 posts costs it nothing. A search's words go
-- through the same function (backend_postgres.OWNED_TERMS). fastupdate off,
-- as before: with it, new entries wait in a pending list that every search
-- reads through until a vacuum merges it.
CREATE FUNCTION posts_search_terms(owner BIGINT, body TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(owner::text || ':' || lexeme), '{}')
    FROM unnest(tsvector_to_array(to_tsvector('simple', body))) AS lexeme
$$;
DROP INDEX posts_search;
CREATE INDEX posts_search_owned ON posts
    USING GIN (posts_search_terms(user_id, content)) WITH (fastupdate = off);
