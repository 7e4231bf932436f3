-- Version 2 -> 3: pushed handoffs. A post remembers whether its post.due
-- delivery was acknowledged; webhook endpoints, the outbox of events and
-- deliveries, and the log of attempts are new.
ALTER TABLE posts ADD COLUMN handoff_acknowledged INTEGER NOT NULL DEFAULT 1; -- 0 while a pushed post.due awaits its 2xx
ALTER TABLE posts ADD COLUMN handoff_error TEXT; -- the last failed post.due delivery, if any

-- Due posts of every user, for the dispatcher that pushes them (Scheduled only).
CREATE INDEX posts_due ON posts (scheduled_at) WHERE status = 'Scheduled';
-- The idempotency keys of a post or article, found without a scan when it is
-- deleted (the foreign key's check, and forgetting them).
CREATE INDEX idempotency_keys_post ON idempotency_keys (post_id);
CREATE INDEX article_idempotency_keys_article ON article_idempotency_keys (article_id);

-- Webhook endpoints of a user. The signing secret is stored encrypted
-- (webhook_secrets.py); while a rotation overlaps, the previous one too.
CREATE TABLE webhook_endpoints (
    id                     TEXT PRIMARY KEY,     -- UUID
    user_id                INTEGER NOT NULL REFERENCES users (id),
    url                    TEXT NOT NULL,
    events                 TEXT NOT NULL,        -- JSON array of event types
    description            TEXT,
    enabled                INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    disabled_reason        TEXT,
    secret                 TEXT NOT NULL,
    previous_secret        TEXT,
    previous_secret_until  TEXT,
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    version                INTEGER NOT NULL DEFAULT 1
);

CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at, id);

-- The transactional outbox: an event is written in the transaction of the
-- change that causes it, with one delivery per endpoint that wants it.
CREATE TABLE webhook_events (
    id          TEXT PRIMARY KEY,     -- msg_...: the webhook-id header, the same on every attempt
    user_id     INTEGER NOT NULL REFERENCES users (id),
    type        TEXT NOT NULL,
    post_id     TEXT,                 -- no foreign key: the log outlives a deleted post
    body        TEXT NOT NULL,        -- the exact bytes sent (UTF-8 JSON)
    created_at  TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
    id                TEXT PRIMARY KEY,   -- UUID
    event_id          TEXT NOT NULL REFERENCES webhook_events (id),
    endpoint_id       TEXT NOT NULL,      -- no foreign key: the log outlives a deleted endpoint
    user_id           INTEGER NOT NULL REFERENCES users (id),
    event_type        TEXT NOT NULL,
    post_id           TEXT,
    outcome           TEXT NOT NULL DEFAULT 'pending'
                      CHECK (outcome IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempt_count     INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   TEXT,               -- while pending
    lease_owner       TEXT,               -- the dispatcher holding it
    lease_expires_at  TEXT,
    last_error        TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);

CREATE INDEX webhook_deliveries_ready ON webhook_deliveries (next_attempt_at)
    WHERE outcome = 'pending';
CREATE INDEX webhook_deliveries_user ON webhook_deliveries (user_id, created_at, id);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id)
    WHERE outcome = 'pending';

CREATE TABLE webhook_attempts (
    id            INTEGER PRIMARY KEY,
    delivery_id   TEXT NOT NULL REFERENCES webhook_deliveries (id),
    attempted_at  TEXT NOT NULL,
    outcome       TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed')),
    status_code   INTEGER,
    duration_ms   INTEGER NOT NULL,
    error         TEXT,
    response      TEXT                -- the first 1 KB of the answer
);

CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
CREATE INDEX webhook_attempts_time ON webhook_attempts (attempted_at);
