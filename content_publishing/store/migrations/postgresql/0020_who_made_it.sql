-- Version 19 -> 20: who made a library item, a hashtag set and an
-- invitation (members.id), for the rules that follow the maker: a
-- contributor changes the alt text of media they uploaded and the hashtag
-- sets they made (an editor or higher changes any), and removing a member
-- ends the invitations they made. NULL: made before this was recorded (by
-- the operator's CLI, for an invitation), which only an editor or higher
-- changes, and which no removal ends.
ALTER TABLE media ADD COLUMN created_by BIGINT REFERENCES members (id);
ALTER TABLE hashtag_sets ADD COLUMN created_by BIGINT REFERENCES members (id);
ALTER TABLE member_invites ADD COLUMN invited_by BIGINT REFERENCES members (id);
CREATE INDEX member_invites_invited_by ON member_invites (invited_by);
