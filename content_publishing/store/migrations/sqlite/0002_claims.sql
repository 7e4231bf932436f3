-- Version 1 -> 2: posts gain the Publishing status and the columns of a
-- claim's handoff. SQLite cannot change a CHECK constraint in place, so the
-- table is rebuilt: the runner turns foreign keys off around the transaction,
-- as SQLite's procedure for this asks, and checks them before it commits.
-- The old table's indexes and triggers go with it and are made again.
CREATE TABLE posts_v2 (
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
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    version             INTEGER NOT NULL DEFAULT 1,
    CHECK ((type = 'brand') = (brand_id IS NOT NULL)),
    CHECK ((status = 'Publishing') = (handoff_id IS NOT NULL AND handoff_expires_at IS NOT NULL))
);
INSERT INTO posts_v2 (id, user_id, type, brand_id, content, media_urls, status, scheduled_at,
                      published_at, linkedin_post_id, live_url, last_error, created_at,
                      updated_at, version)
SELECT id, user_id, type, brand_id, content, media_urls, status, scheduled_at, published_at,
       linkedin_post_id, live_url, last_error, created_at, updated_at, version
FROM posts ORDER BY rowid;
DROP TABLE posts;
ALTER TABLE posts_v2 RENAME TO posts;

CREATE INDEX posts_user_created ON posts (user_id, created_at, id);
CREATE INDEX posts_user_status_created ON posts (user_id, status, created_at, id);
CREATE INDEX posts_user_status_scheduled ON posts (user_id, status, scheduled_at, id);
CREATE INDEX posts_user_scheduled ON posts (user_id, scheduled_at, id);
-- Handoffs whose lease has run out, found without scanning (few rows: Publishing only).
CREATE INDEX posts_handoff_expiry ON posts (handoff_expires_at)
    WHERE status = 'Publishing';

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

-- The first release of version 1 had no idempotency keys for articles yet.
CREATE TABLE IF NOT EXISTS article_idempotency_keys (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    article_id    TEXT NOT NULL REFERENCES articles (id),
    created_at    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;
