-- The request log is written for every request, so each index on it is paid
-- on every request (issue 12: measured per row in PostgreSQL backend CPU,
-- docs/observability.md). Two of the four indexes are replaced by cheaper
-- ones that still serve their filters for one organization:
--
-- - request_id: the ids are random UUIDs, so the btree on
--   (organization_id, request_id) took each insert to a random leaf page of
--   a wide text key. A hash index on request_id stores a 4-byte hash per row;
--   the lookup still filters organization_id, so one organization never
--   reads another's record.
-- - status: the filter's use is the errors (429, 4xx, 5xx). Only rows with a
--   status of 400 or more are indexed, so the successful majority costs
--   nothing; a filter on a 2xx or 3xx status, which most rows match, rides on
--   (organization_id, created_at, id) within the time range. The planner
--   uses the partial index when the filter is written as literals (status =
--   429, status >= 400 AND status < 500), as platform/requestlog does.
DROP INDEX request_logs_org_request_idx;
DROP INDEX request_logs_org_status_idx;
CREATE INDEX request_logs_request_idx ON request_logs USING hash (request_id);
CREATE INDEX request_logs_org_error_idx ON request_logs (organization_id, status, created_at) WHERE status >= 400;
