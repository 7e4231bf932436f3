-- Version 3 -> 4: at most one enabled post.due endpoint per user, held by a
-- unique index (a due post is handed to one automation only). Before, the
-- rule was a read before the write, so a database may hold several: the
-- oldest stays enabled, the others are disabled, saying why.
UPDATE webhook_endpoints SET enabled = 0,
    disabled_reason = 'disabled when upgrading: another enabled endpoint of this user already takes post.due'
WHERE enabled = 1 AND strpos(events, '"post.due"') > 0 AND EXISTS (
    SELECT 1 FROM webhook_endpoints AS older
    WHERE older.user_id = webhook_endpoints.user_id AND older.enabled = 1
      AND strpos(older.events, '"post.due"') > 0
      AND (older.created_at, older.id) < (webhook_endpoints.created_at, webhook_endpoints.id));
CREATE UNIQUE INDEX webhook_endpoints_one_post_due ON webhook_endpoints (user_id)
    WHERE enabled = 1 AND strpos(events, '"post.due"') > 0;
