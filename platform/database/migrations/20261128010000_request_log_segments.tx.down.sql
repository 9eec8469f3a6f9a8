-- Back to one row per request (migrations 20261123008100 to
-- 20261125010000), with the records of the segments.
CREATE TABLE request_logs_rows (
    id                  uuid NOT NULL,
    created_at          timestamptz NOT NULL,
    organization_id     uuid,
    request_id          text NOT NULL,
    method              text NOT NULL,
    path                text NOT NULL,
    route               text,
    status              smallint NOT NULL,
    duration_ms         double precision NOT NULL,
    error_code          text,
    key_id              uuid,
    key_prefix          text,
    idempotency_key     text,
    idempotent_replayed boolean NOT NULL DEFAULT false,
    ip                  text,
    user_agent          text,
    api_version         text NOT NULL
) PARTITION BY RANGE (created_at);
CREATE INDEX request_logs_org_time_idx ON request_logs_rows (organization_id, created_at, id);
CREATE INDEX request_logs_org_key_idx ON request_logs_rows (organization_id, key_id, created_at);
CREATE INDEX request_logs_org_error_idx ON request_logs_rows (organization_id, status, created_at) WHERE status >= 400;

DO $$
DECLARE
    day date;
BEGIN
    FOR day IN
        SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM request_logs
        UNION
        SELECT (last_at AT TIME ZONE 'UTC')::date FROM request_log_segments
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF request_logs_rows FOR VALUES FROM (%L) TO (%L)',
            'request_logs_p' || to_char(day, 'YYYYMMDD'),
            (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
    END LOOP;
END
$$;

INSERT INTO request_logs_rows SELECT * FROM request_logs;
DROP VIEW request_logs;
DROP TABLE request_log_segments;
ALTER TABLE request_logs_rows RENAME TO request_logs;
