-- The request log (platform/requestlog, docs/observability.md): one row per
-- request that reached authentication, written in batches off the request
-- path. The table is partitioned by day on created_at (UTC); the serve
-- process creates partitions ahead and drops whole partitions past
-- EVENTAPI_REQUEST_LOG_RETENTION, never deleting rows. The id is a UUIDv7
-- whose timestamp is created_at's millisecond, so a lookup by id prunes to
-- one partition. organization_id is the effective organization; it is NULL
-- for requests refused by authentication (no organization is known). There
-- is no foreign key: the log outlives nothing and must not slow writes.
CREATE TABLE request_logs (
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

-- Partitioned indexes: each daily partition gets its own copy. They serve one
-- organization's list (newest first, since/until, cursor, lookup by id) and
-- its request_id, key_id and status filters; method and route filters ride
-- on the first one within the time range.
CREATE INDEX request_logs_org_time_idx ON request_logs (organization_id, created_at, id);
CREATE INDEX request_logs_org_request_idx ON request_logs (organization_id, request_id);
CREATE INDEX request_logs_org_key_idx ON request_logs (organization_id, key_id, created_at);
CREATE INDEX request_logs_org_status_idx ON request_logs (organization_id, status, created_at);
