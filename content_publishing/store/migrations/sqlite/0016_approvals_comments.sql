-- Version 15 -> 16: approvals and comments. A workspace may require posts
-- to be approved before they are scheduled (workspaces.approvals, with a
-- version for If-Match, as every record the API changes has); a post gains
-- two statuses, In review and Approved, who approved it (approved_by: the
-- approval, gone with any change of what was reviewed; a series' next
-- occurrence keeps it) and who last reviewed it (reviewed_by). SQLite
-- cannot change the status CHECK in place, so posts is rebuilt, its rowid
-- copied (the search index is kept on it), its indexes and triggers made
-- again. Comments are kept with their post and deleted with it
-- (store/posts.py), as its history is.
ALTER TABLE workspaces ADD COLUMN approvals TEXT NOT NULL DEFAULT 'off'
    CHECK (approvals IN ('off', 'required'));
ALTER TABLE workspaces ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN updated_at TEXT;

CREATE TABLE posts_new (
    id                  TEXT PRIMARY KEY,          -- UUID
    workspace_id        INTEGER NOT NULL REFERENCES workspaces (id),
    type                TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    brand_id            TEXT,
    content             TEXT NOT NULL,
    media_urls          TEXT NOT NULL DEFAULT '[]', -- JSON array
    status              TEXT NOT NULL DEFAULT 'Draft'
                        CHECK (status IN ('Draft', 'In review', 'Approved', 'Scheduled',
                                          'Publishing', 'Published', 'Failed')),
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
    media_alt           TEXT NOT NULL DEFAULT '[]',
    document_title      TEXT,
    first_comment       TEXT,
    first_comment_urn   TEXT,
    first_comment_error TEXT,
    handoff_holder      TEXT NOT NULL DEFAULT 'automation'
                        CHECK (handoff_holder IN ('automation', 'service')),
    handoff_sending_at  TEXT,
    retry_not_before    TEXT,
    created_by          INTEGER REFERENCES members (id),
    approved_by         INTEGER REFERENCES members (id), -- the approval that holds, if any
    approved_at         TEXT,
    reviewed_by         INTEGER REFERENCES members (id), -- who last approved or asked for changes
    CHECK ((type = 'brand') = (brand_id IS NOT NULL)),
    CHECK ((status = 'Publishing') = (handoff_id IS NOT NULL AND handoff_expires_at IS NOT NULL))
);
INSERT INTO posts_new (rowid, id, workspace_id, type, brand_id, content, media_urls, status,
    scheduled_at, published_at, linkedin_post_id, live_url, last_error, handoff_id,
    handoff_expires_at, handoff_count, handoff_acknowledged, handoff_error, repeat, series_id,
    occurrence, series_start, series_continued, created_at, updated_at, version, media_alt,
    document_title, first_comment, first_comment_urn, first_comment_error, handoff_holder,
    handoff_sending_at, retry_not_before, created_by)
SELECT rowid, id, workspace_id, type, brand_id, content, media_urls, status,
    scheduled_at, published_at, linkedin_post_id, live_url, last_error, handoff_id,
    handoff_expires_at, handoff_count, handoff_acknowledged, handoff_error, repeat, series_id,
    occurrence, series_start, series_continued, created_at, updated_at, version, media_alt,
    document_title, first_comment, first_comment_urn, first_comment_error, handoff_holder,
    handoff_sending_at, retry_not_before, created_by
FROM posts ORDER BY rowid;
DROP TABLE posts;
ALTER TABLE posts_new RENAME TO posts;

CREATE INDEX posts_user_created ON posts (workspace_id, created_at, id);
CREATE INDEX posts_user_status_created ON posts (workspace_id, status, created_at, id);
CREATE INDEX posts_user_status_scheduled ON posts (workspace_id, status, scheduled_at, id);
CREATE INDEX posts_user_scheduled ON posts (workspace_id, scheduled_at, id);
CREATE INDEX posts_handoff_expiry ON posts (handoff_expires_at)
    WHERE status = 'Publishing';
CREATE INDEX posts_due ON posts (scheduled_at) WHERE status = 'Scheduled';
CREATE INDEX posts_series ON posts (workspace_id, series_id, created_at, id)
    WHERE series_id IS NOT NULL;
CREATE INDEX posts_channel_plan ON posts
    (workspace_id, (CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END), scheduled_at, id)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');

CREATE TRIGGER posts_count_insert AFTER INSERT ON posts BEGIN
    INSERT INTO content_counts (workspace_id, kind, status, n)
    VALUES (NEW.workspace_id, 'post:' || NEW.type, NEW.status, 1)
    ON CONFLICT (workspace_id, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER posts_count_delete AFTER DELETE ON posts BEGIN
    UPDATE content_counts SET n = n - 1
    WHERE workspace_id = OLD.workspace_id AND kind = 'post:' || OLD.type AND status = OLD.status;
END;

CREATE TRIGGER posts_count_update AFTER UPDATE OF type, status ON posts
WHEN OLD.type IS NOT NEW.type OR OLD.status IS NOT NEW.status BEGIN
    UPDATE content_counts SET n = n - 1
    WHERE workspace_id = OLD.workspace_id AND kind = 'post:' || OLD.type AND status = OLD.status;
    INSERT INTO content_counts (workspace_id, kind, status, n)
    VALUES (NEW.workspace_id, 'post:' || NEW.type, NEW.status, 1)
    ON CONFLICT (workspace_id, kind, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER posts_search_insert AFTER INSERT ON posts BEGIN
    INSERT INTO posts_search (rowid, content)
    VALUES (new.workspace_id * 1099511627776 + new.rowid, new.content);
END;

CREATE TRIGGER posts_search_update AFTER UPDATE OF content, workspace_id ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content)
    VALUES ('delete', old.workspace_id * 1099511627776 + old.rowid, old.content);
    INSERT INTO posts_search (rowid, content)
    VALUES (new.workspace_id * 1099511627776 + new.rowid, new.content);
END;

CREATE TRIGGER posts_search_delete AFTER DELETE ON posts BEGIN
    INSERT INTO posts_search (posts_search, rowid, content)
    VALUES ('delete', old.workspace_id * 1099511627776 + old.rowid, old.content);
END;

CREATE TRIGGER posts_queue_hole_update
    AFTER UPDATE OF status, scheduled_at, type, brand_id ON posts
    WHEN OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL
        AND (NEW.status NOT IN ('Scheduled', 'Publishing', 'Published')
             OR NEW.scheduled_at IS NOT OLD.scheduled_at
             OR NEW.type IS NOT OLD.type OR NEW.brand_id IS NOT OLD.brand_id) BEGIN
    INSERT OR IGNORE INTO channel_queue_holes (workspace_id, channel_id, at)
    SELECT workspace_id, id, OLD.scheduled_at FROM channels
    WHERE workspace_id = OLD.workspace_id
      AND id = (CASE WHEN OLD.type = 'personal' THEN 'personal' ELSE OLD.brand_id END)
      AND queue_full_until > OLD.scheduled_at;
END;

CREATE TRIGGER posts_queue_hole_delete AFTER DELETE ON posts
    WHEN OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL BEGIN
    INSERT OR IGNORE INTO channel_queue_holes (workspace_id, channel_id, at)
    SELECT workspace_id, id, OLD.scheduled_at FROM channels
    WHERE workspace_id = OLD.workspace_id
      AND id = (CASE WHEN OLD.type = 'personal' THEN 'personal' ELSE OLD.brand_id END)
      AND queue_full_until > OLD.scheduled_at;
END;

-- A post's comments: who (a member) wrote what, when, and the members it
-- mentions (a JSON array of their ids).
CREATE TABLE post_comments (
    id            INTEGER PRIMARY KEY,
    workspace_id  INTEGER NOT NULL REFERENCES workspaces (id),
    post_id       TEXT NOT NULL,
    member_id     INTEGER NOT NULL REFERENCES members (id),
    body          TEXT NOT NULL,
    mentions      TEXT NOT NULL DEFAULT '[]',
    created_at    TEXT NOT NULL
);
CREATE INDEX post_comments_post ON post_comments (post_id, id);
