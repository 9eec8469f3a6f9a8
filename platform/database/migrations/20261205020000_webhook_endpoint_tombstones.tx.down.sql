DROP TRIGGER webhook_delivery_claimed ON webhook_deliveries;
DROP FUNCTION webhook_delivery_claimed();
DROP INDEX webhook_deliveries_endpoint_stale_idx;

DROP TRIGGER webhook_endpoint_tombstone ON webhook_endpoints;
DROP FUNCTION webhook_endpoint_tombstone();

-- The cascade again: the deliveries of deleted endpoints go first (all at
-- once: a down migration runs once).
DELETE FROM webhook_deliveries d
WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.organization_id = d.organization_id AND e.id = d.endpoint_id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_organization_id_endpoint_id_fkey
    FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, id) ON DELETE CASCADE;
DROP TABLE webhook_endpoint_tombstones;
