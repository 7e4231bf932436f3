-- Version 12 -> 13: what each published post did on the network.
--
-- post_stats holds every snapshot of a post's figures, one per (post,
-- taken_at): the same pair sent again replaces the figures, so a collector
-- may send it as often as it likes. post_metrics is one small row per
-- Published post: its channel, when it went out (also as the quarter-hour
-- since 1970, for the weekday x hour arithmetic of the analytics) and the
-- figures of its latest snapshot (null until one arrives), so that the
-- analytics and the posts list read one narrow row per post instead of the
-- snapshots. Both are deleted with their post. Existing Published posts get
-- their row here.
CREATE TABLE post_stats (
    post_id          TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    taken_at         TEXT NOT NULL,
    impressions      INTEGER CHECK (impressions >= 0),
    members_reached  INTEGER CHECK (members_reached >= 0),
    reactions        INTEGER CHECK (reactions >= 0),
    comments         INTEGER CHECK (comments >= 0),
    reshares         INTEGER CHECK (reshares >= 0),
    clicks           INTEGER CHECK (clicks >= 0),
    recorded_at      TEXT NOT NULL,              -- when the service got these figures
    PRIMARY KEY (post_id, taken_at)
) WITHOUT ROWID;

CREATE TABLE post_metrics (
    post_id          TEXT PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
    user_id          INTEGER NOT NULL REFERENCES users (id),
    channel          TEXT NOT NULL,              -- 'personal' or the post's brand_id
    published_at     TEXT NOT NULL,
    published_quarter INTEGER NOT NULL,          -- published_at's quarter-hour: epoch seconds / 900
    taken_at         TEXT,                       -- of the latest snapshot; null: none yet
    impressions      INTEGER CHECK (impressions >= 0),
    members_reached  INTEGER CHECK (members_reached >= 0),
    reactions        INTEGER CHECK (reactions >= 0),
    comments         INTEGER CHECK (comments >= 0),
    reshares         INTEGER CHECK (reshares >= 0),
    clicks           INTEGER CHECK (clicks >= 0),
    interactions     INTEGER NOT NULL DEFAULT 0 CHECK (interactions >= 0), -- reactions + comments + reshares + clicks
    engagement       REAL CHECK (engagement >= 0) -- interactions / impressions; null without impressions
);
-- The analytics of a range, of one channel or all of them: each index holds
-- every column the analytics read (a covering index), in quarter-hour
-- order, so that a year of 100,000 posts is read from the index alone and
-- grouped by quarter-hour as it comes, without a lookup or a sort per post.
CREATE INDEX post_metrics_channel ON post_metrics (
    user_id, channel, published_quarter, published_at, engagement, impressions, interactions,
    members_reached, reactions, comments, reshares, clicks, post_id
);
CREATE INDEX post_metrics_user ON post_metrics (
    user_id, published_quarter, published_at, engagement, impressions, interactions,
    members_reached, reactions, comments, reshares, clicks, post_id, channel
);
-- The top posts: the posts with an engagement, highest first, so that the
-- ten of a range are the first ten of it that the range holds.
CREATE INDEX post_metrics_channel_top ON post_metrics (
    user_id, channel, engagement, impressions, post_id, published_at
) WHERE engagement IS NOT NULL;
CREATE INDEX post_metrics_user_top ON post_metrics (
    user_id, engagement, impressions, post_id, published_at, channel
) WHERE engagement IS NOT NULL;

INSERT INTO post_metrics (post_id, user_id, channel, published_at, published_quarter)
SELECT id, user_id, CASE WHEN type = 'personal' THEN 'personal' ELSE brand_id END,
       published_at, CAST(strftime('%s', substr(published_at, 1, 19)) AS INTEGER) / 900
FROM posts WHERE status = 'Published' AND published_at IS NOT NULL;
