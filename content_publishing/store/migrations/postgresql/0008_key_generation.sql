-- Version 7 -> 8: the key generation (the SQLite migration says why): every
-- change that could refuse or alter a key bumps it, by trigger, in its
-- transaction.
CREATE TABLE key_generation (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    generation  BIGINT NOT NULL
);
INSERT INTO key_generation (id, generation) VALUES (1, 0);
CREATE FUNCTION key_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE key_generation SET generation = generation + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER api_keys_generation AFTER INSERT OR DELETE
    OR UPDATE OF user_id, key_hash, scopes, revoked_at, expires_at ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION key_generation_bump();
CREATE TRIGGER users_generation AFTER UPDATE OF name ON users
    FOR EACH STATEMENT EXECUTE FUNCTION key_generation_bump();

-- The first release of version 7 made the search index with fastupdate on.
ALTER INDEX posts_search SET (fastupdate = off);
