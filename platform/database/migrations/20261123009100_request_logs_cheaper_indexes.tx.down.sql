DROP INDEX request_logs_request_idx;
DROP INDEX request_logs_org_error_idx;
CREATE INDEX request_logs_org_request_idx ON request_logs (organization_id, request_id);
CREATE INDEX request_logs_org_status_idx ON request_logs (organization_id, status, created_at);
