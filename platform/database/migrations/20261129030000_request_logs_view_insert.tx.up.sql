-- Rows written to the view request_logs become one-record segments
-- (docs/helm.md, "Upgrades and migrations"). Pods of 2.7.2 and older write
-- their request log with COPY request_logs (17 columns) FROM STDIN, which
-- failed on the view that migration 20261128010000 put in the table's place
-- ("cannot copy to view"), so during a rolling update across it their
-- records were dropped. COPY into a view with an INSTEAD OF INSERT trigger
-- is an insert through the trigger, one row at a time: a segment per
-- record, which costs more than the service's own segments but lasts only
-- while old pods run. The day's partition must exist, as the current pods'
-- maintenance makes it ahead of time.
CREATE FUNCTION request_logs_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO request_log_segments (organization_id, key_id, key_prefix, api_version, first_at, last_at,
        error_count, ids, created_ats, request_ids, methods, paths, routes, statuses, durations_ms,
        error_codes, idempotency_keys, replayed, ips, user_agents)
    VALUES (NEW.organization_id, NEW.key_id, NEW.key_prefix, coalesce(NEW.api_version, 'v2'),
        NEW.created_at, NEW.created_at, CASE WHEN NEW.status >= 400 THEN 1 ELSE 0 END,
        ARRAY[NEW.id], ARRAY[NEW.created_at],
        CASE WHEN NEW.request_id IS NULL OR NEW.request_id = NEW.id::text THEN NULL ELSE ARRAY[NEW.request_id] END,
        ARRAY[NEW.method], ARRAY[NEW.path], ARRAY[NEW.route], ARRAY[NEW.status], ARRAY[NEW.duration_ms],
        ARRAY[NEW.error_code], ARRAY[NEW.idempotency_key],
        CASE WHEN NEW.idempotent_replayed THEN ARRAY[true] ELSE NULL END,
        ARRAY[NEW.ip], ARRAY[NEW.user_agent]);
    RETURN NEW;
END
$$;

CREATE TRIGGER request_logs_insert INSTEAD OF INSERT ON request_logs
    FOR EACH ROW EXECUTE FUNCTION request_logs_insert();
