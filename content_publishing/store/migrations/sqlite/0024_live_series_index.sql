-- Version 23 -> 24: the queue, the slot finder and the guards count every
-- planned occurrence of a channel's series still going (planning/plan.py),
-- so each add to the queue reads the channel's live series inside its write
-- transaction (store/channels.live_series). Without an index that read
-- scanned all of the channel's posts: 3.6 ms a request with 5,000 queued,
-- held under the write lock. This partial index holds only the live series,
-- a handful of rows whatever the queue's depth. Its WHERE is the query's,
-- word for word, so that SQLite's planner can use it.
CREATE INDEX posts_live_series ON posts (workspace_id, channel_id, scheduled_at, id)
    WHERE status IN ('Scheduled', 'Publishing') AND repeat IS NOT NULL;
