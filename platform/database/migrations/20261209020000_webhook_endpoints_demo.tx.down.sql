ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS demo;
