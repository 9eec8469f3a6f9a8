-- Migration 20261202170000's webhook_endpoint_disabled, which keeps no place.

-- The table's exclusive lock is taken in attempts of at most 500 ms
-- (lock_for_migration, migration 20261206010000): a plain ALTER TABLE waits
-- with no lock_timeout behind any reader of the table (a pg_dump, a long
-- report), and every webhook request and delivery queues behind it
-- meanwhile (docs/helm.md, "Upgrades and migrations").
SELECT lock_for_migration('webhook_endpoints');

CREATE OR REPLACE FUNCTION webhook_endpoint_disabled() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    horizon xid8 := feed_horizon();
    last_position xid8;
    last_seq bigint;
BEGIN
    INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
    SELECT c.organization_id, NEW.id, c.id, c.seq, c.type, clock_timestamp()
    FROM changes c
    WHERE c.organization_id = NEW.organization_id
      AND (c.position, c.seq) > (NEW.feed_position, NEW.feed_seq)
      AND c.position < horizon
      AND (OLD.enabled_events @> ARRAY['*'] OR OLD.enabled_events @> ARRAY[c.type])
    ORDER BY c.position, c.seq
    ON CONFLICT (endpoint_id, change_seq) DO NOTHING;

    SELECT c.position, c.seq INTO last_position, last_seq
    FROM changes c
    WHERE c.organization_id = NEW.organization_id
      AND (c.position, c.seq) > (NEW.feed_position, NEW.feed_seq)
      AND c.position < horizon
    ORDER BY c.position DESC, c.seq DESC
    LIMIT 1;
    IF FOUND THEN
        NEW.feed_position := last_position;
        NEW.feed_seq := last_seq;
    END IF;
    RETURN NEW;
END
$$;

ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS disabled_position, DROP COLUMN IF EXISTS disabled_seq;
