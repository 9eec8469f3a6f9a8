-- Webhook fan-out leaves the writing transaction (docs/webhooks.md,
-- "Fan-out"). Until now a trigger on changes queued one delivery per
-- matching endpoint inside every write, so every write paid a second
-- trigger and an endpoint probe, and a write of an organization with ten
-- endpoints inserted ten more rows before it could commit. Now each
-- endpoint follows the change feed with its own cursor, exactly as an
-- integrator's reader does: the workers read the changes below the
-- visibility horizon after the cursor, queue the matching ones and move the
-- cursor, in one statement. A write records its change and nothing else.
DROP TRIGGER enqueue_webhook_deliveries ON changes;
DROP FUNCTION enqueue_webhook_deliveries();

-- The change's organization is copied from the record, which is checked by
-- its own foreign key; checking it again (a KEY SHARE lock of the
-- organization's row per change) bought nothing. An organization's
-- deletion removes its changes itself (tenancy.DeleteOrganization).
ALTER TABLE changes DROP CONSTRAINT changes_organization_id_fkey;

-- The endpoint's cursor in its organization's feed: every change at or
-- before (feed_position, feed_seq) has been fanned out to it. A new
-- endpoint starts at the horizon: it receives the changes committed after
-- its registration (and, at most, a few that committed just before it).
ALTER TABLE webhook_endpoints
    ADD COLUMN feed_position xid8 NOT NULL DEFAULT pg_snapshot_xmin(pg_current_snapshot()),
    ADD COLUMN feed_seq bigint NOT NULL DEFAULT 0;

-- One delivery per endpoint and change: the fan-out may meet a change the
-- trigger already queued (those written while this migration ran) and
-- skips it.
CREATE UNIQUE INDEX webhook_deliveries_endpoint_change_key ON webhook_deliveries (endpoint_id, change_seq);

-- An endpoint that is enabled again starts from the horizon: the changes
-- made while it was disabled are not queued (docs/webhooks.md).
CREATE FUNCTION webhook_endpoint_reenabled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.feed_position := pg_snapshot_xmin(pg_current_snapshot());
    NEW.feed_seq := 0;
    RETURN NEW;
END
$$;

CREATE TRIGGER webhook_endpoint_reenabled BEFORE UPDATE OF status ON webhook_endpoints
    FOR EACH ROW WHEN (OLD.status = 'disabled' AND NEW.status = 'enabled')
    EXECUTE FUNCTION webhook_endpoint_reenabled();
