-- A disabled endpoint is sent none of the changes that become visible while
-- it is disabled (docs/webhooks.md, "Delivery and retries"). The place
-- in the change feed where it stopped is kept, so that the API can show it
-- as resume_cursor: GET /api/v2/changes from there lists every change the
-- endpoint was not queued. The disable trigger sets it, after queueing what
-- was visible, and a re-enable keeps it until the next disable replaces it.
-- A disabled endpoint's own cursor (feed_position, feed_seq) does not move
-- until a re-enable (the fan-out passes over disabled endpoints), so the
-- endpoints disabled now get their place from it. The place is never above
-- the endpoint's cursor, so the detection of a moved database, which reads
-- the cursors, needs no new column (docs/changes.md, "A moved database").
-- It is kept as a bigint, as the API's cursors carry a position (below
-- 2^63), so that the stores read it as any other integer.

-- The table's exclusive lock is taken in attempts of at most 500 ms
-- (lock_for_migration, migration 20261206010000): a plain ALTER TABLE waits
-- with no lock_timeout behind any reader of the table (a pg_dump, a long
-- report), and every webhook request and delivery queues behind it
-- meanwhile (docs/helm.md, "Upgrades and migrations").
SELECT lock_for_migration('webhook_endpoints');

ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS disabled_position bigint,
    ADD COLUMN IF NOT EXISTS disabled_seq bigint;

UPDATE webhook_endpoints SET disabled_position = feed_position::text::bigint, disabled_seq = feed_seq
WHERE status = 'disabled' AND disabled_position IS NULL;

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
    NEW.disabled_position := NEW.feed_position::text::bigint;
    NEW.disabled_seq := NEW.feed_seq;
    RETURN NEW;
END
$$;
