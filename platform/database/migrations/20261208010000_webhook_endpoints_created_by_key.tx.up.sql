-- The key that registered a webhook endpoint (docs/webhooks.md, since
-- 2.11.7), so an integration retired with its key can be found among the
-- endpoints. Null for endpoints registered before. No foreign key: keys are
-- revoked, never deleted, and the endpoint outlives its key by design. A
-- nullable column without a default: no rewrite, only a brief lock.

-- The table's exclusive lock is taken in attempts of at most 500 ms
-- (lock_for_migration, migration 20261206010000): a plain ALTER TABLE waits
-- with no lock_timeout behind any reader of the table (a pg_dump, a long
-- report), and every webhook request and delivery queues behind it
-- meanwhile (docs/helm.md, "Upgrades and migrations").
SELECT lock_for_migration('webhook_endpoints');

ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS created_by_key_id uuid;
