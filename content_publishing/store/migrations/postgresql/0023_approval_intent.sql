-- Version 22 -> 23: approvals that work with the planner, and settings a
-- team changes from the dashboard (docs/planning.md, "Approvals and the
-- queue"). A post submitted with a time or for the queue keeps that intent
-- until it is approved, then is scheduled or queued in the same write:
-- posts.intended_at (the time asked for) or posts.queue_on_approval (1: the
-- channel's next free slot). A channel may require approvals whatever the
-- workspace says, or need none (channels.approvals: 'workspace', the
-- default, follows the workspace). A workspace has a time zone the
-- dashboard shows by default (null: the browser's), and the events its chat
-- hears of (workspaces.chat_events, a JSON list; null: every one).
ALTER TABLE posts ADD COLUMN intended_at TEXT;
ALTER TABLE posts ADD COLUMN queue_on_approval INTEGER NOT NULL DEFAULT 0
    CHECK (queue_on_approval IN (0, 1));
ALTER TABLE channels ADD COLUMN approvals TEXT NOT NULL DEFAULT 'workspace'
    CHECK (approvals IN ('workspace', 'required', 'off'));
ALTER TABLE workspaces ADD COLUMN timezone TEXT;
ALTER TABLE workspaces ADD COLUMN chat_events TEXT;
