-- Version 20 -> 21: people sign in as people (docs/accounts.md).
--
-- An account is a person: an email address (stored lower-cased, so unique
-- whatever its case), a display name and an Argon2id password hash (NULL
-- until they set one: an account made by a sign-in link has none). A
-- member record links an account to a workspace with a role; an account
-- may be a member of several workspaces, at most once each while a member.
CREATE TABLE accounts (
    id                 INTEGER PRIMARY KEY,
    email              TEXT NOT NULL UNIQUE,          -- lower-cased
    name               TEXT NOT NULL,
    password_hash      TEXT,                          -- Argon2id (argon2-cffi's encoding)
    totp_secret        TEXT,                          -- sealed (sealing.py); NULL: none
    totp_enabled_at    TEXT,                          -- NULL until a first code proved it
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
);

-- A removed member keeps their name in the history, and a new member may
-- take it: names (and accounts) are unique among the members still in.
-- SQLite cannot drop a table's UNIQUE, so members is rebuilt (its foreign
-- keys are off during the run; every reference to it holds again once the
-- new table has its name), with the trigger that moves the key generation.
CREATE TABLE members_new (
    id            INTEGER PRIMARY KEY,
    workspace_id  INTEGER NOT NULL REFERENCES workspaces (id),
    name          TEXT NOT NULL,
    email         TEXT,
    role          TEXT NOT NULL
                  CHECK (role IN ('owner', 'admin', 'editor', 'contributor', 'viewer')),
    created_at    TEXT NOT NULL,
    removed_at    TEXT,                          -- NULL while a member
    notify        TEXT,
    account_id    INTEGER REFERENCES accounts (id)  -- NULL: a member of keys only
);
INSERT INTO members_new (id, workspace_id, name, email, role, created_at, removed_at, notify)
SELECT id, workspace_id, name, email, role, created_at, removed_at, notify FROM members;
DROP TABLE members;
ALTER TABLE members_new RENAME TO members;
CREATE UNIQUE INDEX members_name ON members (workspace_id, name) WHERE removed_at IS NULL;
CREATE UNIQUE INDEX members_account ON members (workspace_id, account_id)
    WHERE account_id IS NOT NULL AND removed_at IS NULL;
CREATE INDEX members_of_account ON members (account_id) WHERE account_id IS NOT NULL;
CREATE TRIGGER members_generation_update AFTER UPDATE OF name, role, removed_at ON members BEGIN
    UPDATE key_generation SET generation = generation + 1;
END;

-- A signed-in browser: a random token, only its SHA-256 kept, in one
-- workspace (its member); it ends when ended_at is set, after 14 days
-- idle (last_seen_at) and after 30 days in all (created_at).
CREATE TABLE sessions (
    id            INTEGER PRIMARY KEY,
    token_hash    TEXT NOT NULL UNIQUE,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    member_id     INTEGER NOT NULL REFERENCES members (id),
    device        TEXT,                          -- the User-Agent, cut short
    address       TEXT,                          -- the client address it signed in from
    created_at    TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    ended_at      TEXT
);
CREATE INDEX sessions_account ON sessions (account_id) WHERE ended_at IS NULL;
CREATE INDEX sessions_member ON sessions (member_id) WHERE ended_at IS NULL;

-- A mailed (or printed) single-use link: sign in, reset a password, or the
-- first owner's setting of their email and password. Only the token's
-- SHA-256 is kept. A link for a member without an account names the
-- member (account_id NULL): using it makes their account.
CREATE TABLE sign_in_links (
    token_hash    TEXT PRIMARY KEY,
    purpose       TEXT NOT NULL CHECK (purpose IN ('sign_in', 'reset', 'owner')),
    account_id    INTEGER REFERENCES accounts (id),
    member_id     INTEGER REFERENCES members (id),
    expires_at    TEXT NOT NULL,
    used_at       TEXT,
    created_at    TEXT NOT NULL
);
CREATE INDEX sign_in_links_account ON sign_in_links (account_id);
CREATE INDEX sign_in_links_member ON sign_in_links (member_id);

-- Failed sign-ins, one row each, by what they count against: an account's
-- email (`email:<address>`) or a client address (`address:<ip>`), so the
-- limit holds across workers; rows older than the window are deleted.
CREATE TABLE sign_in_failures (
    id            INTEGER PRIMARY KEY,
    subject       TEXT NOT NULL,
    at            TEXT NOT NULL
);
CREATE INDEX sign_in_failures_subject ON sign_in_failures (subject, at);

-- The second factor's recovery codes: their SHA-256, each used once.
CREATE TABLE recovery_codes (
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    code_hash     TEXT NOT NULL,
    used_at       TEXT,
    PRIMARY KEY (account_id, code_hash)
);

-- An owner may require a second factor of everyone who signs in to it.
ALTER TABLE workspaces ADD COLUMN require_second_factor INTEGER NOT NULL DEFAULT 0
    CHECK (require_second_factor IN (0, 1));

-- Who acted when no key did (a session): the member. A key's entries keep
-- key_id and name their member through it.
ALTER TABLE post_history ADD COLUMN member_id INTEGER REFERENCES members (id);
