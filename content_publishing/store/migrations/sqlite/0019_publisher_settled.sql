-- Version 18 -> 19: what the service's own publisher keeps to settle a post
-- whatever happens to it.
--
-- A post it published holds its network's URN once: the unknown-outcome
-- check takes no URN another post holds, read by this index.
CREATE INDEX posts_linkedin_post_id ON posts (linkedin_post_id);

-- A first comment still to send (comment_due_at: when the post went out) and
-- marked sending just before it is sent (comment_sending_at), so that a
-- publisher killed between the post and its comment resumes the comment once
-- after a restart, and never sends it twice.
ALTER TABLE posts ADD COLUMN comment_due_at TEXT;
ALTER TABLE posts ADD COLUMN comment_sending_at TEXT;
CREATE INDEX posts_comment_due ON posts (comment_due_at) WHERE comment_due_at IS NOT NULL;

-- Why a connection's stored token cannot be opened with the secrets key in
-- force (a changed or lost key): the connection then shows `broken`, and the
-- channel is reconnected. NULL while its tokens open.
ALTER TABLE linkedin_connections ADD COLUMN broken TEXT;
