-- A webhook endpoint carries demo as every v2 record does: true when a test
-- key registered it (docs/webhooks.md, "Endpoints API"). A test key of an
-- organization without a sandbox registers on the organization itself, and
-- its endpoint receives the organization's live changes; the flag lets it be
-- found and removed. The existing endpoints in a sandbox, or registered by a
-- test key, are marked; one outside a sandbox with no recorded key stays
-- false. A constant default: no rewrite, only a brief lock; the marking
-- touches a few rows (at most 25 endpoints per organization).

-- The table's exclusive lock is taken in attempts of at most 500 ms
-- (lock_for_migration, migration 20261206010000): a plain ALTER TABLE waits
-- with no lock_timeout behind any reader of the table (a pg_dump, a long
-- report), and every webhook request and delivery queues behind it
-- meanwhile (docs/helm.md, "Upgrades and migrations").
SELECT lock_for_migration('webhook_endpoints');

ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS demo boolean NOT NULL DEFAULT false;

UPDATE webhook_endpoints e SET demo = true
WHERE EXISTS (SELECT FROM organizations o WHERE o.id = e.organization_id AND o.sandbox_of IS NOT NULL)
   OR EXISTS (SELECT FROM api_keys k WHERE k.id = e.created_by_key_id AND k.mode = 'test');
