DROP TRIGGER request_logs_insert ON request_logs;
DROP FUNCTION request_logs_insert();
