-- Version 10 -> 11: one channel rule, and "add to queue" without reading the
-- queue (the SQLite file of this number says why, step by step).
INSERT INTO post_history (post_id, user_id, at, action, status_from, status_to, fields, detail)
SELECT id, user_id, to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       'updated', status, status, '["type", "brand_id"]',
       'made a personal post when upgrading: brand_id "personal" names the personal channel, '
       || 'whose slots, guards and author it had; a brand_id can no longer be "personal"'
FROM posts WHERE type = 'brand' AND brand_id = 'personal';
UPDATE posts SET type = 'personal', brand_id = NULL, version = version + 1,
    updated_at = to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
WHERE type = 'brand' AND brand_id = 'personal';

DROP INDEX posts_channel_planned;
CREATE INDEX posts_channel_plan ON posts
    (user_id, (CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END), scheduled_at, id)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');

ALTER TABLE channels ADD COLUMN queue_full_until TEXT;
CREATE TABLE channel_queue_holes (
    user_id     BIGINT NOT NULL,
    channel_id  TEXT NOT NULL,
    at          TEXT NOT NULL,
    PRIMARY KEY (user_id, channel_id, at)
);
CREATE FUNCTION posts_queue_hole() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO channel_queue_holes (user_id, channel_id, at)
    SELECT user_id, id, OLD.scheduled_at FROM channels
    WHERE user_id = OLD.user_id
      AND id = (CASE WHEN OLD.type = 'personal' THEN 'personal' ELSE OLD.brand_id END)
      AND queue_full_until > OLD.scheduled_at
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER posts_queue_hole_update
    AFTER UPDATE OF status, scheduled_at, type, brand_id ON posts FOR EACH ROW
    WHEN (OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL
          AND (NEW.status NOT IN ('Scheduled', 'Publishing', 'Published')
               OR NEW.scheduled_at IS DISTINCT FROM OLD.scheduled_at
               OR NEW.type IS DISTINCT FROM OLD.type OR NEW.brand_id IS DISTINCT FROM OLD.brand_id))
    EXECUTE FUNCTION posts_queue_hole();
CREATE TRIGGER posts_queue_hole_delete AFTER DELETE ON posts FOR EACH ROW
    WHEN (OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL)
    EXECUTE FUNCTION posts_queue_hole();
