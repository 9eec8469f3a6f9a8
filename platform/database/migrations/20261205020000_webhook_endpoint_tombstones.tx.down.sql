-- The lazy fresh window is written out first: a re-enable of this release
-- rewrote at most 500 deliveries, and the release before reads the window
-- of the others as it stands (spent: their first failure would give them
-- up) and waits for their old next_attempt_at.
UPDATE webhook_deliveries d SET first_failed_at = NULL, window_attempts = 0, unprepared_since = NULL,
       next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
FROM webhook_endpoints e
WHERE e.organization_id = d.organization_id AND e.id = d.endpoint_id
  AND d.status = 'pending' AND d.updated_at < e.enabled_at
  AND (d.leased_until IS NULL OR d.leased_until <= clock_timestamp());
DROP INDEX webhook_deliveries_endpoint_leased_idx;
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
