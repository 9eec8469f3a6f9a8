-- A request id is now a UUIDv7 carrying the millisecond of its record's
-- created_at (docs/observability.md), so a lookup by request id is served by
-- request_logs_org_time_idx within that millisecond. The hash index on
-- request_id, paid on every logged request, is dropped. Records logged before
-- this change carry random (v4) request ids; a filter on one of those reads
-- the organization's range without an index until they pass the retention.
DROP INDEX request_logs_request_idx;
