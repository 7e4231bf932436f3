-- Version 21 -> 22: every person's profile (docs/planning.md, "Channels").
-- A workspace holds a personal channel per member (channels.member_id,
-- at most one each: the unique index channels_member), and a post names
-- its channel (posts.channel_id) rather than finding it by type and
-- brand_id. The channel a member keeps to themselves says so in
-- others_may_post (0: nobody else may write posts for it).
--
-- The CHECK that made `personal` the one personal channel's id goes. The
-- existing `personal` channel keeps its id, and so its slots, guards,
-- queue, connection and statistics, and becomes the personal channel of
-- the workspace's first owner (the oldest owner still a member, else the
-- oldest owner).
ALTER TABLE channels DROP CONSTRAINT channels_check;
ALTER TABLE channels ADD COLUMN member_id BIGINT REFERENCES members (id);
ALTER TABLE channels ADD COLUMN others_may_post INTEGER NOT NULL DEFAULT 1
    CHECK (others_may_post IN (0, 1));
ALTER TABLE channels ADD CONSTRAINT channels_member_kind
    CHECK (type = 'personal' OR (member_id IS NULL AND id <> 'personal'));
UPDATE channels c SET member_id = (
    SELECT m.id FROM members m WHERE m.workspace_id = c.workspace_id AND m.role = 'owner'
    ORDER BY m.removed_at IS NOT NULL, m.id LIMIT 1
) WHERE c.type = 'personal';
CREATE UNIQUE INDEX channels_member ON channels (workspace_id, member_id)
    WHERE member_id IS NOT NULL;

-- Every post names its channel: the one the rule of type and brand_id
-- found (`personal`, or the brand_id), whether it is set up or not.
ALTER TABLE posts ADD COLUMN channel_id TEXT;
UPDATE posts SET channel_id = CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END;
ALTER TABLE posts ALTER COLUMN channel_id SET NOT NULL;

-- A channel's planned posts are found by its id (store/channels.py).
DROP INDEX posts_channel_plan;
CREATE INDEX posts_channel_plan ON posts (workspace_id, channel_id, scheduled_at, id)
    WHERE status IN ('Scheduled', 'Publishing', 'Published');
DROP TRIGGER posts_queue_hole_update ON posts;
CREATE OR REPLACE FUNCTION posts_queue_hole() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO channel_queue_holes (workspace_id, channel_id, at)
    SELECT workspace_id, id, OLD.scheduled_at FROM channels
    WHERE workspace_id = OLD.workspace_id AND id = OLD.channel_id
      AND queue_full_until > OLD.scheduled_at
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER posts_queue_hole_update
    AFTER UPDATE OF status, scheduled_at, channel_id ON posts FOR EACH ROW
    WHEN (OLD.status IN ('Scheduled', 'Publishing', 'Published') AND OLD.scheduled_at IS NOT NULL
          AND (NEW.status NOT IN ('Scheduled', 'Publishing', 'Published')
               OR NEW.scheduled_at IS DISTINCT FROM OLD.scheduled_at
               OR NEW.channel_id IS DISTINCT FROM OLD.channel_id))
    EXECUTE FUNCTION posts_queue_hole();
