-- The table's exclusive lock is taken in attempts of at most 500 ms
-- (lock_for_migration, migration 20261206010000): a plain ALTER TABLE waits
-- with no lock_timeout behind any reader of the table (a pg_dump, a long
-- report), and every webhook request and delivery queues behind it
-- meanwhile (docs/helm.md, "Upgrades and migrations").
SELECT lock_for_migration('webhook_endpoints');

ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS recovered_at;
