-- Version 10 -> 11: one channel rule, and "add to queue" without reading the
-- queue (docs/planning.md).
--
-- A brand post whose brand_id is `personal` was planned on the personal
-- channel (its row lock, its slots) and went out as its author, but the
-- guards counted the personal channel's posts by type, so they missed it.
-- A brand_id can no longer be `personal`; each such post becomes the
-- personal post it behaved as, its version one up, with a history entry
-- by the service saying why.
INSERT INTO post_history (post_id, user_id, at, action, status_from, status_to, fields, detail)
SELECT id, user_id, strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000Z', 'updated', status, status,
       '["type", "brand_id"]',
       'made a personal post when upgrading: brand_id "personal" names the personal channel, '
       || 'whose slots, guards and author it had; a brand_id can no longer be "personal"'
FROM posts WHERE type = 'brand' AND brand_id = 'personal';
UPDATE posts SET type = 'personal', brand_id = NULL, version = version + 1,
    updated_at = strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000Z'
WHERE type = 'brand' AND brand_id = 'personal';

-- A channel's planned posts are found by the channel they belong to:
-- `personal` for a personal post, its brand_id for a brand post (the rule
-- of planning/plan.py's channel_of, store/channels.py's CHANNEL_OF_POST).
DROP INDEX posts_channel_planned;
CREATE INDEX posts_channel_plan ON posts
    (user_id, (CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END), scheduled_at, id)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');

-- Where a channel's queue stands. channels.queue_full_until: every slot of
-- the channel before it was found taken, or barred by a guard, when the
-- queue last passed it (planning/queue.py). A planned post that leaves its
-- place before it (unscheduled, failed, moved, deleted) may free slots
-- there again: the triggers note the instant it left, and the queue looks
-- around it first. A change of the channel's slots, zone or guards forgets
-- both (planning/channels.py).
ALTER TABLE channels ADD COLUMN queue_full_until TEXT;
CREATE TABLE channel_queue_holes (
    user_id     INTEGER NOT NULL,
    channel_id  TEXT NOT NULL,
    at          TEXT NOT NULL,      -- the scheduled_at the post left
    PRIMARY KEY (user_id, channel_id, at)
) WITHOUT ROWID;
CREATE TRIGGER posts_queue_hole_update
    AFTER UPDATE OF status, scheduled_at, type, brand_id ON posts
    WHEN OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL
        AND (NEW.status NOT IN ('Scheduled', 'Publishing', 'Published')
             OR NEW.scheduled_at IS NOT OLD.scheduled_at
             OR NEW.type IS NOT OLD.type OR NEW.brand_id IS NOT OLD.brand_id) BEGIN
    INSERT OR IGNORE INTO channel_queue_holes (user_id, channel_id, at)
    SELECT user_id, id, OLD.scheduled_at FROM channels
    WHERE user_id = OLD.user_id
      AND id = (CASE WHEN OLD.type = 'personal' THEN 'personal' ELSE OLD.brand_id END)
      AND queue_full_until > OLD.scheduled_at;
END;
CREATE TRIGGER posts_queue_hole_delete AFTER DELETE ON posts
    WHEN OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL BEGIN
    INSERT OR IGNORE INTO channel_queue_holes (user_id, channel_id, at)
    SELECT user_id, id, OLD.scheduled_at FROM channels
    WHERE user_id = OLD.user_id
      AND id = (CASE WHEN OLD.type = 'personal' THEN 'personal' ELSE OLD.brand_id END)
      AND queue_full_until > OLD.scheduled_at;
END;
