-- Version 7 -> 8: the key generation. Each worker caches the keys it has
-- seen (content_publishing/auth.py) and trusts its cache only while this
-- number is the one it read with the request's first statement. The
-- triggers bump it in the same transaction as every change that could
-- refuse or alter a key, so a revoke is seen by every worker's next request.
CREATE TABLE key_generation (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    generation  INTEGER NOT NULL
);
INSERT INTO key_generation (id, generation) VALUES (1, 0);
CREATE TRIGGER api_keys_generation_insert AFTER INSERT ON api_keys BEGIN
    UPDATE key_generation SET generation = generation + 1;
END;
CREATE TRIGGER api_keys_generation_delete AFTER DELETE ON api_keys BEGIN
    UPDATE key_generation SET generation = generation + 1;
END;
CREATE TRIGGER api_keys_generation_update
    AFTER UPDATE OF user_id, key_hash, scopes, revoked_at, expires_at ON api_keys BEGIN
    UPDATE key_generation SET generation = generation + 1;
END;
CREATE TRIGGER users_generation_update AFTER UPDATE OF name ON users BEGIN
    UPDATE key_generation SET generation = generation + 1;
END;
