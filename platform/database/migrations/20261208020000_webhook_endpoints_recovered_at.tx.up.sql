-- When an endpoint's latest run of failed attempts ended: its first success
-- after them sets it (docs/observability.md, the delivery lag's `wait`
-- label). A delivery of a change written before it waited on its receiver,
-- whatever its own attempts. A nullable column without a default: no
-- rewrite, only a brief lock.

-- The table's exclusive lock is taken in attempts of at most 500 ms
-- (lock_for_migration, migration 20261206010000): a plain ALTER TABLE waits
-- with no lock_timeout behind any reader of the table (a pg_dump, a long
-- report), and every webhook request and delivery queues behind it
-- meanwhile (docs/helm.md, "Upgrades and migrations").
SELECT lock_for_migration('webhook_endpoints');

ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS recovered_at timestamptz;
