-- Notifications: what each member wants to hear of (members.notify: a JSON
-- list of events, NULL for all of them), where the workspace's chat hears
-- of every event (workspaces.chat_webhook_url, a Slack-compatible incoming
-- webhook; NULL: none), and the outbox of messages to send. A message is
-- written in the transaction of the change that causes it, one per
-- recipient (an email address, or the chat's URL), and sent by the
-- dispatcher: leased to one at a time, retried, the oldest pending message
-- of a recipient first and alone (id orders them). Its body is the event's
-- facts as JSON, made into text when it is sent.
ALTER TABLE members ADD COLUMN notify TEXT;
ALTER TABLE workspaces ADD COLUMN chat_webhook_url TEXT;
CREATE TABLE notifications (
    id                INTEGER PRIMARY KEY,
    workspace_id      INTEGER NOT NULL REFERENCES workspaces (id),
    member_id         INTEGER REFERENCES members (id),  -- NULL: the chat
    kind              TEXT NOT NULL CHECK (kind IN ('email', 'chat')),
    recipient         TEXT NOT NULL,
    event             TEXT NOT NULL,
    post_id           TEXT,
    body              TEXT NOT NULL,
    outcome           TEXT NOT NULL DEFAULT 'pending'
                      CHECK (outcome IN ('pending', 'sent', 'failed', 'cancelled')),
    attempt_count     INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   TEXT,
    lease_owner       TEXT,
    lease_expires_at  TEXT,
    last_error        TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
CREATE INDEX notifications_ready ON notifications (next_attempt_at) WHERE outcome = 'pending';
CREATE INDEX notifications_recipient ON notifications (recipient, id) WHERE outcome = 'pending';
CREATE INDEX notifications_workspace ON notifications (workspace_id, id);
CREATE INDEX notifications_old ON notifications (updated_at) WHERE outcome <> 'pending';
