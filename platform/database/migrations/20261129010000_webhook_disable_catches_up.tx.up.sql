-- An endpoint that is disabled first takes every change that became
-- visible while it was enabled and that the fan-out has not reached yet
-- (a pass runs once per poll interval): it queues them, as the pass would
-- have, and moves its cursor past them. Without this, a change listed in
-- the feed just before the disable was never sent: the fan-out skips
-- disabled endpoints, and re-enabling moves the cursor to the horizon
-- (webhook_endpoint_reenabled), past it. The deliveries queued here wait,
-- like every pending one, until the endpoint is enabled again
-- (docs/webhooks.md, "New, disabled and re-enabled endpoints").
--
-- "Visible" is the feed's rule (docs/changes.md): a position below the
-- horizon of this statement's snapshot, which only grows, so every change
-- a reader could have seen before the disable is below it. The subscription
-- is the one the endpoint had while the changes were made (OLD), should the
-- same PATCH change enabled_events too. The row is locked by the UPDATE, so
-- a fan-out pass (which locks the enabled endpoints it serves) is either
-- done, and NEW carries its cursor, or waits and finds the endpoint
-- disabled; ON CONFLICT covers a delivery a pass already queued.
CREATE FUNCTION webhook_endpoint_disabled() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
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

CREATE TRIGGER webhook_endpoint_disabled BEFORE UPDATE OF status ON webhook_endpoints
    FOR EACH ROW WHEN (OLD.status = 'enabled' AND NEW.status = 'disabled')
    EXECUTE FUNCTION webhook_endpoint_disabled();
