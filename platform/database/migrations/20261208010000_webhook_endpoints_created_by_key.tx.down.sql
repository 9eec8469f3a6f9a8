ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS created_by_key_id;
