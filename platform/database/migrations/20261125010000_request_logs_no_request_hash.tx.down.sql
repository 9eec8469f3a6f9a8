CREATE INDEX request_logs_request_idx ON request_logs USING hash (request_id);
