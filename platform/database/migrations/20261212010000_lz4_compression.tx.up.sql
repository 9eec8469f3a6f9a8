-- The request log's arrays and the change feed's data are compressed with
-- lz4 instead of PostgreSQL's default pglz (docs/observability.md,
-- "Storage: segments", and docs/changes.md, "Cost"). A value is compressed
-- when its row passes about 2 kB: a segment of a busy organization's
-- records (up to 1,000 of them, tens of kilobytes) or the change of a quote
-- or invoice with many lines. pglz made such a segment cost PostgreSQL more
-- per record than a small one (3.1 µs against 2.1, so fuller segments saved
-- nothing); lz4 costs 0.8 µs per record there, and a 27 kB quote of 100
-- lines about 180 µs less to store. lz4 also compressed both a little
-- smaller.
--
-- A partitioned table passes a column's compression to the partitions
-- created after it (platform/requestlog makes them with LIKE … INCLUDING
-- COMPRESSION), not to those that exist: each is altered here. Values
-- stored before stay as they were and are read as before.
--
-- A server built without lz4 refuses the method (feature_not_supported):
-- the migration then changes nothing and says so, and every value stays
-- pglz-compressed, as before.
-- lock_tables_for_migration takes the ACCESS EXCLUSIVE locks of tbls (a
-- partitioned table's with its partitions') for the rest of the migration's
-- transaction, all in one attempt of at most 500 ms, a second apart, for up
-- to about five minutes, as lock_for_migration (migration 20261206010000)
-- does for one table. An attempt that times out gives back what it took
-- (its subtransaction ends), so no table is held while another is waited
-- for: taken one after the other, the request log stayed locked for as long
-- as a busy changes table made the migration wait (a review held changes
-- for 20 s: a request-log read waited 16.6 s).
CREATE OR REPLACE FUNCTION lock_tables_for_migration(VARIADIC tbls regclass[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    FOR attempt IN 1..200 LOOP
        BEGIN
            PERFORM set_config('lock_timeout', '500ms', true);
            EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', array_to_string(tbls, ', '));
            PERFORM set_config('lock_timeout', '0', true);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(1);
        END;
    END LOOP;
    RAISE EXCEPTION 'lock_tables_for_migration: % stayed in use for 200 attempts; run the migration again', tbls
        USING ERRCODE = 'lock_not_available';
END
$$;

DO $$
DECLARE
    arrays text := 'ALTER COLUMN ids SET COMPRESSION lz4, ALTER COLUMN created_ats SET COMPRESSION lz4, '
        'ALTER COLUMN request_ids SET COMPRESSION lz4, ALTER COLUMN methods SET COMPRESSION lz4, '
        'ALTER COLUMN paths SET COMPRESSION lz4, ALTER COLUMN routes SET COMPRESSION lz4, '
        'ALTER COLUMN statuses SET COMPRESSION lz4, ALTER COLUMN durations_ms SET COMPRESSION lz4, '
        'ALTER COLUMN error_codes SET COMPRESSION lz4, ALTER COLUMN idempotency_keys SET COMPRESSION lz4, '
        'ALTER COLUMN replayed SET COMPRESSION lz4, ALTER COLUMN ips SET COMPRESSION lz4, '
        'ALTER COLUMN user_agents SET COMPRESSION lz4';
    part regclass;
BEGIN
    PERFORM lock_tables_for_migration('request_log_segments', 'changes');
    EXECUTE 'ALTER TABLE request_log_segments ' || arrays;
    -- Not a partition whose DETACH … CONCURRENTLY has not finished (the
    -- partition job's gives up after 150 ms, and a later run finishes it):
    -- LOCK TABLE leaves it out, and PostgreSQL refuses to alter it.
    FOR part IN SELECT inhrelid::regclass FROM pg_inherits
                WHERE inhparent = 'request_log_segments'::regclass AND NOT inhdetachpending ORDER BY 1 LOOP
        EXECUTE format('ALTER TABLE %s ', part) || arrays;
    END LOOP;
    ALTER TABLE changes ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL server has no lz4 support: the request log and the change feed stay pglz-compressed';
END
$$;
