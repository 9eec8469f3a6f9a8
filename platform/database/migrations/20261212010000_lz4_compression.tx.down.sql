-- Back to the server's default compression (default_toast_compression,
-- pglz unless set otherwise) for the values stored from now on. Values
-- already compressed with lz4 stay so and are still read.
DO $$
DECLARE
    arrays text := 'ALTER COLUMN ids SET COMPRESSION default, ALTER COLUMN created_ats SET COMPRESSION default, '
        'ALTER COLUMN request_ids SET COMPRESSION default, ALTER COLUMN methods SET COMPRESSION default, '
        'ALTER COLUMN paths SET COMPRESSION default, ALTER COLUMN routes SET COMPRESSION default, '
        'ALTER COLUMN statuses SET COMPRESSION default, ALTER COLUMN durations_ms SET COMPRESSION default, '
        'ALTER COLUMN error_codes SET COMPRESSION default, ALTER COLUMN idempotency_keys SET COMPRESSION default, '
        'ALTER COLUMN replayed SET COMPRESSION default, ALTER COLUMN ips SET COMPRESSION default, '
        'ALTER COLUMN user_agents SET COMPRESSION default';
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
    ALTER TABLE changes ALTER COLUMN data SET COMPRESSION default;
END
$$;

DROP FUNCTION lock_tables_for_migration(regclass[]);
