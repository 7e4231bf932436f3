-- Version 14 -> 15: teams. What a user owned now belongs to a workspace,
-- and the people who work in it are its members, each with a role.
--
-- users becomes workspaces, keeping every id, and each owner column
-- user_id becomes workspace_id: each user is now a workspace of the same
-- id and name, so that no row moves between owners (the search index's
-- key, owner's id * 2^40 + rowid, keeps its meaning). Each workspace gets
-- one member of its name with the role owner, whose id is the workspace's
-- (later members take the ids after them); its keys and its posts are
-- that member's (api_keys.member_id, posts.created_by: a post's author).
-- A member is never deleted: removing one revokes its keys and sets
-- removed_at, so that history and authors keep naming them. An invitation
-- is a single-use token (its SHA-256 only) that makes the member's first key.
ALTER TABLE users RENAME TO workspaces;
ALTER TABLE api_keys RENAME COLUMN user_id TO workspace_id;
ALTER TABLE posts RENAME COLUMN user_id TO workspace_id;
ALTER TABLE channels RENAME COLUMN user_id TO workspace_id;
ALTER TABLE import_idempotency_keys RENAME COLUMN user_id TO workspace_id;
ALTER TABLE idempotency_keys RENAME COLUMN user_id TO workspace_id;
ALTER TABLE articles RENAME COLUMN user_id TO workspace_id;
ALTER TABLE article_idempotency_keys RENAME COLUMN user_id TO workspace_id;
ALTER TABLE content_counts RENAME COLUMN user_id TO workspace_id;
ALTER TABLE webhook_endpoints RENAME COLUMN user_id TO workspace_id;
ALTER TABLE webhook_events RENAME COLUMN user_id TO workspace_id;
ALTER TABLE webhook_deliveries RENAME COLUMN user_id TO workspace_id;
ALTER TABLE media RENAME COLUMN user_id TO workspace_id;
ALTER TABLE post_history RENAME COLUMN user_id TO workspace_id;
ALTER TABLE channel_queue_holes RENAME COLUMN user_id TO workspace_id;
ALTER TABLE linkedin_connections RENAME COLUMN user_id TO workspace_id;
ALTER TABLE linkedin_states RENAME COLUMN user_id TO workspace_id;
ALTER TABLE post_metrics RENAME COLUMN user_id TO workspace_id;
ALTER TABLE stats_collections RENAME COLUMN user_id TO workspace_id;

CREATE TABLE members (
    id            INTEGER PRIMARY KEY,
    workspace_id  INTEGER NOT NULL REFERENCES workspaces (id),
    name          TEXT NOT NULL,
    email         TEXT,
    role          TEXT NOT NULL
                  CHECK (role IN ('owner', 'admin', 'editor', 'contributor', 'viewer')),
    created_at    TEXT NOT NULL,
    removed_at    TEXT,                          -- NULL while a member
    UNIQUE (workspace_id, name)
);
INSERT INTO members (id, workspace_id, name, role, created_at)
SELECT id, id, name, 'owner', created_at FROM workspaces;

-- An invitation: the member it makes the first key of, until when, and
-- when it was used (a token works once).
CREATE TABLE member_invites (
    token_hash    TEXT PRIMARY KEY,              -- SHA-256 hex of the token
    member_id     INTEGER NOT NULL REFERENCES members (id),
    expires_at    TEXT NOT NULL,
    used_at       TEXT,
    created_at    TEXT NOT NULL
);
CREATE INDEX member_invites_member ON member_invites (member_id);

ALTER TABLE api_keys ADD COLUMN member_id INTEGER REFERENCES members (id);
UPDATE api_keys SET member_id = workspace_id;
CREATE INDEX api_keys_member ON api_keys (member_id);
ALTER TABLE posts ADD COLUMN created_by INTEGER REFERENCES members (id);
UPDATE posts SET created_by = workspace_id;

-- A member's name, role or removal changes what their keys may do: it
-- moves the key generation, as a key's own change does (store/key_cache.py).
CREATE TRIGGER members_generation_update AFTER UPDATE OF name, role, removed_at ON members BEGIN
    UPDATE key_generation SET generation = generation + 1;
END;
