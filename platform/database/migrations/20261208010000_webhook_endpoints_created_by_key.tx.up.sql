-- The key that registered a webhook endpoint (docs/webhooks.md, since
-- 2.11.7), so an integration retired with its key can be found among the
-- endpoints. Null for endpoints registered before. No foreign key: keys are
-- revoked, never deleted, and the endpoint outlives its key by design. A
-- nullable column without a default: no rewrite, only a brief lock.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS created_by_key_id uuid;
