ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS recovered_at;
