-- Webhooks (docs/webhooks.md): deleting an endpoint and re-enabling one are
-- O(1), however many deliveries the endpoint has.
--
-- 1. Deleting an endpoint. Its deliveries referenced it ON DELETE CASCADE,
-- so DELETE FROM webhook_endpoints deleted every delivery of the endpoint
-- and every attempt of those in one statement: 1.6 M deliveries for a busy
-- endpoint (30 days of the feed), far past the request's timeout, so the
-- endpoint could not be deleted at all, and each try held the endpoint's
-- row while the fan-out waited for it. The foreign key goes; a deleted
-- endpoint leaves a tombstone, written by a trigger in the deleting
-- statement, and the hourly retention pass (webhooks.PurgeDeletedEndpoints)
-- deletes its deliveries in bounded batches, then the tombstone. Every
-- statement that reads deliveries goes through their endpoint (the claim,
-- the message's load, the last look, a failure's record, the list, a
-- retry), so a deleted endpoint's deliveries are unreachable at once.
--
-- The tombstone is written by the database, not by the application, so the
-- DELETE of a pod of the release before this one (running during a rolling
-- update, expecting the cascade) leaves one too: its statement is the same
-- DELETE, now O(1), and no delivery is left without a tombstone. An
-- endpoint deleted with its organization (ON DELETE CASCADE from
-- organizations) gets one as well; its deliveries are already gone with its
-- organization's changes (tenancy.DeleteOrganization), so the purge only
-- removes the tombstone. No foreign key to organizations: the tombstone of
-- such an endpoint is written while the organization's row is deleted.
CREATE TABLE webhook_endpoint_tombstones (
    endpoint_id     uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    deleted_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION webhook_endpoint_tombstone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_endpoint_tombstones (endpoint_id, organization_id)
    VALUES (OLD.id, OLD.organization_id)
    ON CONFLICT (endpoint_id) DO NOTHING;
    RETURN NULL;
END
$$;

CREATE TRIGGER webhook_endpoint_tombstone AFTER DELETE ON webhook_endpoints
    FOR EACH ROW EXECUTE FUNCTION webhook_endpoint_tombstone();


-- 2. Re-enabling an endpoint. It gave every pending delivery a fresh retry
-- window, due now, in one UPDATE in the PATCH's transaction: 320 k
-- deliveries after a 3-day outage, each a non-HOT update of every index,
-- past the request's timeout, so the endpoint stayed disabled. The
-- endpoint's enabled_at, which the re-enable moves (migration
-- 20261202104500), now defines the fresh window lazily: a pending delivery
-- last written before it (updated_at < enabled_at) is "stale", and
--
-- * the claim treats a stale delivery as due whatever its next_attempt_at
--   (the claim's own statement, through the index below: the stale ones
--   of an endpoint are the head of its range), unless a lease on it is
--   live (an attempt claimed before the re-enable, left to its end);
-- * claiming a stale delivery starts its fresh window: the trigger below
--   clears first_failed_at, window_attempts and unprepared_since in the
--   claim's own UPDATE, before RETURNING hands them to the worker, for the
--   claim of every release (a pod of the release before this one, during
--   a rolling update, claims stale deliveries that are due by their
--   next_attempt_at, and its worker gets the fresh window too).
--
-- A claim writes updated_at, so a delivery is stale only until its first
-- claim after the re-enable. updated_at and enabled_at are both read from
-- the database's clock (clock_timestamp()), and a failure's record locks
-- the endpoint's row as the re-enable does, so they are ordered.
CREATE INDEX webhook_deliveries_endpoint_stale_idx ON webhook_deliveries (endpoint_id, updated_at) WHERE status = 'pending';

-- The claim counts each endpoint's live leases (ClaimDue): through the
-- pending index that read the endpoint's whole backoff backlog, which a
-- re-enable now leaves in place; the leased deliveries are few.
CREATE INDEX webhook_deliveries_endpoint_leased_idx ON webhook_deliveries (endpoint_id)
    WHERE status = 'pending' AND leased_until IS NOT NULL;

CREATE FUNCTION webhook_delivery_claimed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.updated_at < (SELECT e.enabled_at FROM webhook_endpoints e
                         WHERE e.organization_id = NEW.organization_id AND e.id = NEW.endpoint_id) THEN
        NEW.first_failed_at := NULL;
        NEW.window_attempts := 0;
        NEW.unprepared_since := NULL;
    END IF;
    RETURN NEW;
END
$$;

-- A claim is the only write that sets a new lease_owner.
CREATE TRIGGER webhook_delivery_claimed BEFORE UPDATE ON webhook_deliveries
    FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.lease_owner IS NOT NULL AND NEW.lease_owner IS DISTINCT FROM OLD.lease_owner)
    EXECUTE FUNCTION webhook_delivery_claimed();

-- Last: dropping the foreign key locks webhook_deliveries and
-- webhook_endpoints exclusively (reads wait too) until the COMMIT that
-- follows at once; the index builds above only hold writes to the
-- deliveries back meanwhile.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_organization_id_endpoint_id_fkey;
