-- The retention purge takes the head of the feed by seq (primary key) since
-- 2.11.3; the BRIN index on created_at it was meant for could not serve its
-- cutoff and stops narrowing once purged pages are refilled
-- (docs/changes.md, "What is recorded").
DROP INDEX IF EXISTS changes_created_at_idx;
