-- Version 13 -> 14: held for the workspaces' migration, made on another
-- branch; this placeholder changes nothing and gives way to that file when
-- the branches meet.
SELECT 1;
