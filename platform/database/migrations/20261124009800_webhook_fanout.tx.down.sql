DROP TRIGGER webhook_endpoint_reenabled ON webhook_endpoints;
DROP FUNCTION webhook_endpoint_reenabled();
DROP INDEX webhook_deliveries_endpoint_change_key;
ALTER TABLE webhook_endpoints DROP COLUMN feed_position, DROP COLUMN feed_seq;
DELETE FROM changes c WHERE NOT EXISTS (SELECT 1 FROM organizations o WHERE o.id = c.organization_id);
ALTER TABLE changes ADD CONSTRAINT changes_organization_id_fkey
    FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE;

-- The fan-out trigger of migration 20261123009700.
CREATE FUNCTION enqueue_webhook_deliveries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
    SELECT e.organization_id, e.id, NEW.id, NEW.seq, NEW.type, clock_timestamp()
    FROM webhook_endpoints e
    WHERE e.organization_id = NEW.organization_id
      AND e.status = 'enabled'
      AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[NEW.type]);
    RETURN NULL;
END
$$;
CREATE TRIGGER enqueue_webhook_deliveries AFTER INSERT ON changes
    FOR EACH ROW EXECUTE FUNCTION enqueue_webhook_deliveries();
