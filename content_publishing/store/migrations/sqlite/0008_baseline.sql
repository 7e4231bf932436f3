-- A new database: the whole schema of the Content Publishing Service on
-- SQLite as of schema version 8. The runner (store/migrate.py) applies it to
-- an empty database only, then every numbered migration after 0008; a
-- database made by versions 1-7 gets 0002-0008 instead. Never edited: a
-- change of the schema is a new numbered file (docs/layout.md, "Changing
-- the schema").

CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE api_keys (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users (id),
    key_hash      TEXT NOT NULL UNIQUE,          -- SHA-256 hex of the whole key
    prefix        TEXT NOT NULL,                 -- 4 characters after the key prefix, for `keys list`
    scopes        TEXT NOT NULL,                 -- space-separated
    revoked_at    TEXT,                          -- NULL while active
    expires_at    TEXT,
    last_used_at  TEXT,
    created_at    TEXT NOT NULL
);

CREATE TABLE posts (
    id                  TEXT PRIMARY KEY,          -- UUID
    user_id             INTEGER NOT NULL REFERENCES users (id),
    type                TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    brand_id            TEXT,
    content             TEXT NOT NULL,
    media_urls          TEXT NOT NULL DEFAULT '[]', -- JSON array
    status              TEXT NOT NULL DEFAULT 'Draft'
                        CHECK (status IN ('Draft', 'Scheduled', 'Publishing', 'Published', 'Failed')),
    scheduled_at        TEXT,
    published_at        TEXT,
    linkedin_post_id    TEXT,
    live_url            TEXT,
    last_error          TEXT,
    handoff_id          TEXT,                      -- UUID of the current handoff (Publishing only)
    handoff_expires_at  TEXT,
    handoff_count       INTEGER NOT NULL DEFAULT 0, -- how many times the post was handed off
    handoff_acknowledged INTEGER NOT NULL DEFAULT 1, -- 0 while a pushed post.due awaits its 2xx
    handoff_error       TEXT,                      -- the last failed post.due delivery, if any
    repeat              TEXT,                      -- RRULE of a recurring post (planning/recurrence.py)
    series_id           TEXT,                      -- UUID shared by a recurring post's occurrences
    occurrence          INTEGER,                   -- 1-based place in the series
    series_start        TEXT,                      -- the series' first scheduled_at (the rule's DTSTART)
    series_continued    INTEGER NOT NULL DEFAULT 0, -- 1 once this occurrence made the next (or ended the series)
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    version             INTEGER NOT NULL DEFAULT 1,
    CHECK ((type = 'brand') = (brand_id IS NOT NULL)),
    CHECK ((status = 'Publishing') = (handoff_id IS NOT NULL AND handoff_expires_at IS NOT NULL))
);

-- Newest-first pages, and the automation's feed ordered by scheduled_at.
CREATE INDEX posts_user_created ON posts (user_id, created_at, id);
CREATE INDEX posts_user_status_created ON posts (user_id, status, created_at, id);
CREATE INDEX posts_user_status_scheduled ON posts (user_id, status, scheduled_at, id);
CREATE INDEX posts_user_scheduled ON posts (user_id, scheduled_at, id);
-- Handoffs whose lease has run out, found without scanning (few rows: Publishing only).
CREATE INDEX posts_handoff_expiry ON posts (handoff_expires_at)
    WHERE status = 'Publishing';
-- Due posts of every user, for the dispatcher that pushes them (Scheduled only).
CREATE INDEX posts_due ON posts (scheduled_at) WHERE status = 'Scheduled';
-- A channel's planned posts by time, for the queue and the guards (planning/).
CREATE INDEX posts_channel_planned ON posts (user_id, type, brand_id, scheduled_at)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');
-- The occurrences of a recurring post (GET /api-v2-posts?series_id=).
CREATE INDEX posts_series ON posts (user_id, series_id, created_at, id)
    WHERE series_id IS NOT NULL;

-- Channels: where posts go (the user's profile, `personal`, or a brand page,
-- by the brand_id its posts carry), with its time zone, weekly posting
-- slots and guards. A post whose channel has no row behaves as before.
CREATE TABLE channels (
    user_id          INTEGER NOT NULL REFERENCES users (id),
    id               TEXT NOT NULL,
    type             TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    name             TEXT NOT NULL,
    author_urn       TEXT,
    timezone         TEXT NOT NULL DEFAULT 'UTC',
    slots            TEXT NOT NULL DEFAULT '[]',   -- JSON array of {"day", "time"}
    min_gap_minutes  INTEGER NOT NULL DEFAULT 0,
    daily_cap        INTEGER,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    version          INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (user_id, id),
    CHECK ((type = 'personal') = (id = 'personal'))
);
CREATE INDEX channels_user_created ON channels (user_id, created_at, id);

-- A retried bulk import with the same Idempotency-Key answers the posts the
-- first one made (a JSON array of their ids, in row order).
CREATE TABLE import_idempotency_keys (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    post_ids      TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
);

-- A retried create with the same Idempotency-Key returns the post it made.
CREATE TABLE idempotency_keys (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    post_id       TEXT NOT NULL REFERENCES posts (id),
    created_at    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE articles (
    id               TEXT PRIMARY KEY,           -- UUID
    user_id          INTEGER NOT NULL REFERENCES users (id),
    title            TEXT NOT NULL,
    body             TEXT NOT NULL DEFAULT '',
    excerpt          TEXT,
    cover_image_url  TEXT,
    tags             TEXT NOT NULL DEFAULT '[]',  -- JSON array
    status           TEXT NOT NULL DEFAULT 'Draft' CHECK (status IN ('Draft', 'Published')),
    published_at     TEXT,
    live_url         TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    version          INTEGER NOT NULL DEFAULT 1
);

CREATE INDEX idempotency_keys_post ON idempotency_keys (post_id);

-- The same for article creation.
CREATE TABLE article_idempotency_keys (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    article_id    TEXT NOT NULL REFERENCES articles (id),
    created_at    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE INDEX article_idempotency_keys_article ON article_idempotency_keys (article_id);
CREATE INDEX articles_user_created ON articles (user_id, created_at, id);
CREATE INDEX articles_user_status_created ON articles (user_id, status, created_at, id);

-- Row counts per owner and status, kept by triggers, so that the `total` of a
-- list page costs a handful of rows instead of a scan of the owner's index.
CREATE TABLE content_counts (
    user_id  INTEGER NOT NULL,
    kind     TEXT NOT NULL,      -- 'post:<type>' or 'article'
    status   TEXT NOT NULL,
    n        INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, status)
) WITHOUT ROWID;

CREATE TRIGGER posts_count_insert AFTER INSERT ON posts BEGIN
    INSERT INTO content_counts (user_id, kind, status, n)
    VALUES (NEW.user_id, 'post:' || NEW.type, NEW.status, 1)
    ON CONFLICT (user_id, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER posts_count_delete AFTER DELETE ON posts BEGIN
    UPDATE content_counts SET n = n - 1
    WHERE user_id = OLD.user_id AND kind = 'post:' || OLD.type AND status = OLD.status;
END;

CREATE TRIGGER posts_count_update AFTER UPDATE OF type, status ON posts
WHEN OLD.type IS NOT NEW.type OR OLD.status IS NOT NEW.status BEGIN
    UPDATE content_counts SET n = n - 1
    WHERE user_id = OLD.user_id AND kind = 'post:' || OLD.type AND status = OLD.status;
    INSERT INTO content_counts (user_id, kind, status, n)
    VALUES (NEW.user_id, 'post:' || NEW.type, NEW.status, 1)
    ON CONFLICT (user_id, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER articles_count_insert AFTER INSERT ON articles BEGIN
    INSERT INTO content_counts (user_id, kind, status, n)
    VALUES (NEW.user_id, 'article', NEW.status, 1)
    ON CONFLICT (user_id, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER articles_count_delete AFTER DELETE ON articles BEGIN
    UPDATE content_counts SET n = n - 1
    WHERE user_id = OLD.user_id AND kind = 'article' AND status = OLD.status;
END;

CREATE TRIGGER articles_count_update AFTER UPDATE OF status ON articles
WHEN OLD.status IS NOT NEW.status BEGIN
    UPDATE content_counts SET n = n - 1
    WHERE user_id = OLD.user_id AND kind = 'article' AND status = OLD.status;
    INSERT INTO content_counts (user_id, kind, status, n)
    VALUES (NEW.user_id, 'article', NEW.status, 1)
    ON CONFLICT (user_id, kind, status) DO UPDATE SET n = n + 1;
END;

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
    auth_header_name       TEXT,                 -- a header sent with every delivery (n8n's Header Auth)
    auth_header_token      TEXT,                 -- its value, sealed like the secret
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    version                INTEGER NOT NULL DEFAULT 1
);

CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at, id);

-- At most one enabled endpoint per user takes post.due: a due post is handed
-- to one automation only. The index holds the rule against concurrent saves;
-- `"post.due"` (with its quotes) is how the JSON array spells the element.
CREATE UNIQUE INDEX webhook_endpoints_one_post_due ON webhook_endpoints (user_id)
    WHERE enabled = 1 AND instr(events, '"post.due"') > 0;

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

-- The media library (content_publishing/media.py): images as uploaded and
-- cleaned, kept in the database so that every host and backup has them.
-- The same bytes uploaded twice by one user are one media.
CREATE TABLE media (
    id             TEXT PRIMARY KEY,          -- 128 random bits, hex: the file's address
    user_id        INTEGER NOT NULL REFERENCES users (id),
    content_type   TEXT NOT NULL,
    ext            TEXT NOT NULL,
    bytes          INTEGER NOT NULL,
    width          INTEGER NOT NULL,
    height         INTEGER NOT NULL,
    sha256         TEXT NOT NULL,             -- of the stored image
    upload_sha256  TEXT NOT NULL,             -- of the bytes uploaded
    data           BLOB NOT NULL,
    created_at     TEXT NOT NULL,
    UNIQUE (user_id, upload_sha256)
);
CREATE INDEX media_user_created ON media (user_id, created_at, id);

-- Post history (content_publishing/history.py): one row per change, written
-- in its transaction; no content and no key (only the key's id, for its
-- prefix). Deleted with the post.
CREATE TABLE post_history (
    id           INTEGER PRIMARY KEY,
    post_id      TEXT NOT NULL,
    user_id      INTEGER NOT NULL REFERENCES users (id),
    at           TEXT NOT NULL,
    action       TEXT NOT NULL,
    status_from  TEXT,
    status_to    TEXT,
    fields       TEXT NOT NULL,      -- JSON array of field names
    key_id       INTEGER,              -- null: the service itself
    handoff_id   TEXT,
    detail       TEXT
);
CREATE INDEX post_history_post ON post_history (post_id, id);

-- Search (GET /api-v2-posts?q=): an FTS5 index of the posts' content (an
-- external-content table: it keeps no copy of the text), kept by the
-- triggers below on the posts' rowid. Case-insensitive, whole words,
-- diacritics kept, as PostgreSQL's 'simple' configuration reads them. The
-- service never VACUUMs, which could renumber the rowids; after a manual
-- VACUUM, `INSERT INTO posts_search (posts_search) VALUES ('rebuild')`.
CREATE VIRTUAL TABLE posts_search USING fts5(
    content, content = 'posts', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
    INSERT INTO posts_search (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER posts_search_update AFTER UPDATE OF content ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO posts_search (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content) VALUES ('delete', old.rowid, old.content);
END;

-- The key generation. Each worker caches the keys it has seen
-- (content_publishing/auth.py) and trusts its cache only while this number
-- is the one it read with the request's first statement. The triggers bump
-- it in the same transaction as every change that could refuse or alter a
-- key, so a revoke is seen by every worker's next request.
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
