-- Version 21 -> 22: every person's profile (docs/planning.md, "Channels").
-- A workspace holds a personal channel per member (channels.member_id,
-- at most one each: the unique index channels_member), and a post names
-- its channel (posts.channel_id) rather than finding it by type and
-- brand_id. The channel a member keeps to themselves says so in
-- others_may_post (0: nobody else may write posts for it).
--
-- SQLite cannot drop the CHECK that made `personal` the one personal
-- channel's id, so channels is rebuilt (its foreign keys are off during
-- the run; linkedin_connections' reference to it holds again once the new
-- table has its name). The existing `personal` channel keeps its id, and so
-- its slots, guards, queue, connection and statistics, and becomes the
-- personal channel of the workspace's first owner (the oldest owner still
-- a member, else the oldest owner). The queue's triggers name channels, so
-- they go first and are made again on channel_id.
DROP TRIGGER posts_queue_hole_update;
DROP TRIGGER posts_queue_hole_delete;
CREATE TABLE channels_new (
    workspace_id       INTEGER NOT NULL REFERENCES workspaces (id),
    id                 TEXT NOT NULL,
    type               TEXT NOT NULL CHECK (type IN ('personal', 'brand')),
    name               TEXT NOT NULL,
    author_urn         TEXT,
    timezone           TEXT NOT NULL DEFAULT 'UTC',
    slots              TEXT NOT NULL DEFAULT '[]',   -- JSON array of {"day", "time"}
    min_gap_minutes    INTEGER NOT NULL DEFAULT 0,
    daily_cap          INTEGER,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    version            INTEGER NOT NULL DEFAULT 1,
    queue_full_until   TEXT,
    publisher          TEXT NOT NULL DEFAULT 'automation'
                       CHECK (publisher IN ('automation', 'linkedin')),
    recycle_after_days INTEGER CHECK (recycle_after_days BETWEEN 1 AND 365),
    utm                TEXT CHECK (length(utm) BETWEEN 1 AND 500),
    member_id          INTEGER REFERENCES members (id),  -- whose profile (personal only)
    others_may_post    INTEGER NOT NULL DEFAULT 1 CHECK (others_may_post IN (0, 1)),
    PRIMARY KEY (workspace_id, id),
    CHECK (type = 'personal' OR (member_id IS NULL AND id <> 'personal'))
);
INSERT INTO channels_new (workspace_id, id, type, name, author_urn, timezone, slots,
    min_gap_minutes, daily_cap, created_at, updated_at, version, queue_full_until, publisher,
    recycle_after_days, utm, member_id)
SELECT workspace_id, id, type, name, author_urn, timezone, slots, min_gap_minutes, daily_cap,
    created_at, updated_at, version, queue_full_until, publisher, recycle_after_days, utm,
    CASE WHEN type = 'personal' THEN (
        SELECT m.id FROM members m WHERE m.workspace_id = channels.workspace_id
            AND m.role = 'owner' ORDER BY m.removed_at IS NOT NULL, m.id LIMIT 1
    ) END
FROM channels;
DROP TABLE channels;
ALTER TABLE channels_new RENAME TO channels;
CREATE INDEX channels_user_created ON channels (workspace_id, created_at, id);
CREATE UNIQUE INDEX channels_member ON channels (workspace_id, member_id)
    WHERE member_id IS NOT NULL;

-- Every post names its channel: the one the rule of type and brand_id
-- found (`personal`, or the brand_id), whether it is set up or not. SQLite
-- adds a NOT NULL column only with a default; the triggers keep that
-- default from ever being stored (store/posts.py writes channel_id on
-- every insert).
ALTER TABLE posts ADD COLUMN channel_id TEXT NOT NULL DEFAULT '';
UPDATE posts SET channel_id = CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END;
CREATE TRIGGER posts_channel_named_insert BEFORE INSERT ON posts WHEN NEW.channel_id = '' BEGIN
    SELECT RAISE(ABORT, 'a post names its channel (channel_id)');
END;
CREATE TRIGGER posts_channel_named_update BEFORE UPDATE OF channel_id ON posts
    WHEN NEW.channel_id = '' BEGIN
    SELECT RAISE(ABORT, 'a post names its channel (channel_id)');
END;

-- A channel's planned posts are found by its id (store/channels.py).
DROP INDEX posts_channel_plan;
CREATE INDEX posts_channel_plan ON posts (workspace_id, channel_id, scheduled_at, id)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');
CREATE TRIGGER posts_queue_hole_update
    AFTER UPDATE OF status, scheduled_at, channel_id ON posts
    WHEN OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL
        AND (NEW.status NOT IN ('Scheduled', 'Publishing', 'Published')
             OR NEW.scheduled_at IS NOT OLD.scheduled_at
             OR NEW.channel_id IS NOT OLD.channel_id) BEGIN
    INSERT OR IGNORE INTO channel_queue_holes (workspace_id, channel_id, at)
    SELECT workspace_id, id, OLD.scheduled_at FROM channels
    WHERE workspace_id = OLD.workspace_id AND id = OLD.channel_id
      AND queue_full_until > OLD.scheduled_at;
END;
CREATE TRIGGER posts_queue_hole_delete AFTER DELETE ON posts
    WHEN OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL BEGIN
    INSERT OR IGNORE INTO channel_queue_holes (workspace_id, channel_id, at)
    SELECT workspace_id, id, OLD.scheduled_at FROM channels
    WHERE workspace_id = OLD.workspace_id AND id = OLD.channel_id
      AND queue_full_until > OLD.scheduled_at;
END;
