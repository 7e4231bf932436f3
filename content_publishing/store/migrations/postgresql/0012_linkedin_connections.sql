-- Version 11 -> 12: a channel connected to LinkedIn, and the service's own
-- publisher (docs/linkedin.md, "Connecting a channel" and "The service's own
-- publisher").
--
-- A channel says who publishes its due posts: an automation (a claim or a
-- post.due push, as before) or the service itself.
ALTER TABLE channels ADD COLUMN publisher TEXT NOT NULL DEFAULT 'automation'
    CHECK (publisher IN ('automation', 'linkedin'));

-- The LinkedIn sign-in of a channel. The tokens are sealed with the secrets
-- key that seals webhook secrets (webhooks/secrets.py): a copy of the
-- database alone publishes nothing. The row goes with its channel.
CREATE TABLE linkedin_connections (
    user_id             BIGINT NOT NULL,
    channel_id          TEXT NOT NULL,
    status              TEXT NOT NULL
                        CHECK (status IN ('connected', 'expiring', 'expired', 'revoked')),
    member_urn          TEXT,                        -- urn:li:person:<sub>, when LinkedIn said
    member_name         TEXT,
    organizations       TEXT NOT NULL DEFAULT '[]',  -- JSON [{urn, name}]: the pages it may post for
    scopes              TEXT NOT NULL DEFAULT '',    -- what LinkedIn granted, space-separated
    access_token        TEXT,                        -- sealed; NULL once forgotten
    access_expires_at   TEXT,
    refresh_token       TEXT,                        -- sealed; NULL when LinkedIn gave none
    refresh_expires_at  TEXT,
    connected_at        TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    PRIMARY KEY (user_id, channel_id),
    FOREIGN KEY (user_id, channel_id) REFERENCES channels (user_id, id) ON DELETE CASCADE
);

-- A sign-in under way: the state sent to LinkedIn, kept as its SHA-256 (the
-- state itself is never stored), bound to the channel, the key's user and,
-- when a browser asked, to that browser; single use, valid 10 minutes.
CREATE TABLE linkedin_states (
    state_hash    TEXT PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users (id),
    channel_id    TEXT NOT NULL,
    key_id        BIGINT,
    browser_hash  TEXT,
    expires_at    TEXT NOT NULL,
    created_at    TEXT NOT NULL
);
CREATE INDEX linkedin_states_expiry ON linkedin_states (expires_at);

-- Who holds a handoff (an automation, or the service's own publisher); when
-- the service marked it sending, just before the POST of the post itself,
-- so that an unknown outcome is never sent again blind; and the time before
-- which a post LinkedIn answered 429 is not taken again.
ALTER TABLE posts ADD COLUMN handoff_holder TEXT NOT NULL DEFAULT 'automation'
    CHECK (handoff_holder IN ('automation', 'service'));
ALTER TABLE posts ADD COLUMN handoff_sending_at TEXT;
ALTER TABLE posts ADD COLUMN retry_not_before TEXT;
