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
    -- Every lock at once, in attempts (the up migration says why).
    FOR attempt IN 1..200 LOOP
        BEGIN
            PERFORM set_config('lock_timeout', '500ms', true);
            LOCK TABLE request_log_segments, changes IN ACCESS EXCLUSIVE MODE;
            PERFORM set_config('lock_timeout', '0', true);
            EXIT;
        EXCEPTION WHEN lock_not_available THEN
            IF attempt = 200 THEN
                RAISE EXCEPTION 'lz4 compression: request_log_segments or changes stayed in use for 200 attempts; run the migration again'
                    USING ERRCODE = 'lock_not_available';
            END IF;
            PERFORM pg_sleep(1);
        END;
    END LOOP;
    EXECUTE 'ALTER TABLE request_log_segments ' || arrays;
    FOR part IN SELECT inhrelid::regclass FROM pg_inherits
                WHERE inhparent = 'request_log_segments'::regclass ORDER BY 1 LOOP
        EXECUTE format('ALTER TABLE %s ', part) || arrays;
    END LOOP;
    ALTER TABLE changes ALTER COLUMN data SET COMPRESSION default;
END
$$;
