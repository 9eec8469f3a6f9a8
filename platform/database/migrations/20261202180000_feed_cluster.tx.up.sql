-- The PostgreSQL cluster the change feed last ran on (docs/changes.md, "A
-- moved database"): its system identifier, which initdb draws at random and
-- which a physical replica and a failover keep, while a database copied to
-- another cluster (pg_dump and pg_restore, logical replication, and also
-- pg_upgrade, which the feed survives anyway) meets a different one.
--
-- `eventapi migrate up` records it (platform/database, raiseFeedOffset)
-- and compares: when the recorded identifier is not the cluster's, the
-- database was moved, and the change feed's position offset is raised so
-- that the next position stands FeedOffsetMargin above every stored one
-- even when the new cluster's transaction counter is already past them, so
-- that cursors the old server handed out after the copy was taken stay
-- behind every new change. The row is data: a dump carries it, and so does
-- a logical replication of every table. One row, its key always true.
CREATE TABLE feed_cluster (
    only_row          boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    system_identifier bigint NOT NULL,
    recorded_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
