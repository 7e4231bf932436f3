-- Version 14 -> 15: search also finds the last word of a query as a prefix
-- ("webin" finds "webinar", content_publishing/store/search.py); FTS5 reads
-- a prefix from the index as it is, so SQLite's index needs no change.
SELECT 1;
