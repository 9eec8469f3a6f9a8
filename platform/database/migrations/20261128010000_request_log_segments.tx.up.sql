-- The request log is stored in segments (docs/observability.md, "Storage"):
-- one row per flush, organization, key and API version, holding that
-- flush's records of them as parallel arrays, one per field, in
-- (created_at, id) order. A row per request cost PostgreSQL a heap tuple,
-- two btree entries and their WAL for every request served, 25-40 µs of
-- backend CPU per request on a busy server; a segment pays them once for
-- all its records. The layout is the one columnar time-series stores use
-- (a segment per series and time slice, a column per field, the slice's
-- bounds beside it), kept in plain PostgreSQL arrays so that SQL still
-- reads every record: the view request_logs unnests the segments into the
-- former table's rows.
--
-- A segment's records are at most one minute apart (last_at - first_at <=
-- platform/requestlog.MaxSpan), so a record at instant t lies in a segment
-- whose last_at is in [t, t + 1 minute]: lookups by id or request id (a
-- UUIDv7 carrying its millisecond) read one minute of one organization's
-- segments. The table is partitioned by day on last_at; the serve process
-- creates partitions ahead and drops whole partitions past
-- EVENTAPI_REQUEST_LOG_RETENTION, never deleting rows. A partition holds
-- records of its day and of the last minute of the day before, so nothing is
-- dropped before its retention.
--
-- Columns that are the same for every record of a segment are scalars (the
-- segment is grouped by them); an array whose elements would all be NULL
-- (or false, or equal to the record's id for request_ids) is NULL, which
-- unnest reads as a column of NULLs.
ALTER TABLE request_logs RENAME TO request_logs_rows;

CREATE TABLE request_log_segments (
    organization_id  uuid,                 -- NULL: refused by authentication
    key_id           uuid,
    key_prefix       text,
    api_version      text NOT NULL,
    first_at         timestamptz NOT NULL, -- the first record's created_at
    last_at          timestamptz NOT NULL, -- the last record's created_at
    error_count      integer NOT NULL,     -- records with status >= 400
    ids              uuid[] NOT NULL,
    created_ats      timestamptz[] NOT NULL,
    request_ids      text[],               -- NULL: each record's request id is its id
    methods          text[] NOT NULL,
    paths            text[] NOT NULL,
    routes           text[],
    statuses         smallint[] NOT NULL,
    durations_ms     double precision[] NOT NULL,
    error_codes      text[],
    idempotency_keys text[],
    replayed         boolean[],            -- NULL: none was an idempotent replay
    ips              text[],
    user_agents      text[]
) PARTITION BY RANGE (last_at);

-- One entry per segment serves an organization's list (newest first, since,
-- until, cursor), its lookups by id and request id and its key_id filter
-- (key_id is a segment column, checked on the index's rows); the partial
-- one, the status filters that select errors (status >= 400, 4xx, 5xx, 429).
CREATE INDEX request_log_segments_org_last_idx ON request_log_segments (organization_id, last_at);
CREATE INDEX request_log_segments_org_errors_idx ON request_log_segments (organization_id, last_at)
    WHERE error_count > 0;

-- The records as rows, with the former table's columns in its order: for
-- ad-hoc SQL (support, SREs). The service reads the segments directly, so
-- that a page can stop early.
CREATE VIEW request_logs AS
SELECT r.id, r.created_at, s.organization_id, coalesce(r.request_id, r.id::text) AS request_id,
       r.method, r.path, r.route, r.status, r.duration_ms, r.error_code, s.key_id, s.key_prefix,
       r.idempotency_key, coalesce(r.replayed, false) AS idempotent_replayed, r.ip, r.user_agent,
       s.api_version
FROM request_log_segments s
CROSS JOIN LATERAL unnest(s.ids, s.created_ats, s.request_ids, s.methods, s.paths, s.routes, s.statuses,
                          s.durations_ms, s.error_codes, s.idempotency_keys, s.replayed, s.ips, s.user_agents)
    AS r(id, created_at, request_id, method, path, route, status, duration_ms, error_code, idempotency_key,
         replayed, ip, user_agent);

-- The records logged so far move into segments: one per organization, key,
-- API version and second, with a partition for each day they reach.
DO $$
DECLARE
    day date;
BEGIN
    FOR day IN
        SELECT DISTINCT (created_at AT TIME ZONE 'UTC')::date FROM request_logs_rows
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF request_log_segments FOR VALUES FROM (%L) TO (%L)',
            'request_log_segments_p' || to_char(day, 'YYYYMMDD'),
            (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
    END LOOP;
END
$$;

INSERT INTO request_log_segments (organization_id, key_id, key_prefix, api_version, first_at, last_at,
    error_count, ids, created_ats, request_ids, methods, paths, routes, statuses, durations_ms, error_codes,
    idempotency_keys, replayed, ips, user_agents)
SELECT organization_id, key_id, key_prefix, api_version, min(created_at), max(created_at),
       count(*) FILTER (WHERE status >= 400),
       array_agg(id ORDER BY created_at, id),
       array_agg(created_at ORDER BY created_at, id),
       CASE WHEN bool_and(request_id = id::text) THEN NULL
            ELSE array_agg(request_id ORDER BY created_at, id) END,
       array_agg(method ORDER BY created_at, id),
       array_agg(path ORDER BY created_at, id),
       array_agg(route ORDER BY created_at, id),
       array_agg(status ORDER BY created_at, id),
       array_agg(duration_ms ORDER BY created_at, id),
       CASE WHEN bool_and(error_code IS NULL) THEN NULL
            ELSE array_agg(error_code ORDER BY created_at, id) END,
       CASE WHEN bool_and(idempotency_key IS NULL) THEN NULL
            ELSE array_agg(idempotency_key ORDER BY created_at, id) END,
       CASE WHEN bool_or(idempotent_replayed) THEN array_agg(idempotent_replayed ORDER BY created_at, id) END,
       array_agg(ip ORDER BY created_at, id),
       array_agg(user_agent ORDER BY created_at, id)
FROM request_logs_rows
GROUP BY organization_id, key_id, key_prefix, api_version, date_trunc('second', created_at);

DROP TABLE request_logs_rows;
