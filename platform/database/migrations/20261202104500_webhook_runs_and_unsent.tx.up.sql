-- Webhooks (docs/webhooks.md): an endpoint's run, and a delivery we cannot
-- prepare.
--
-- enabled_at is when the endpoint's current run began: its registration or
-- its latest re-enable. A claim made before it belongs to an earlier run:
-- the re-enable gave every pending delivery a fresh retry window but left
-- the one in flight to its attempt, whose failure, recorded after the
-- re-enable, set failing_since to a time before it and, its window being
-- the old one, could fail the delivery for good and disable the endpoint
-- again at once. Such a failure is now recorded as the delivery's attempt
-- only: the delivery gets the fresh window the others got, and the
-- endpoint is not touched. Existing endpoints take their registration's
-- time.
ALTER TABLE webhook_endpoints ADD COLUMN enabled_at timestamptz;
UPDATE webhook_endpoints SET enabled_at = created_at;
ALTER TABLE webhook_endpoints
    ALTER COLUMN enabled_at SET NOT NULL,
    ALTER COLUMN enabled_at SET DEFAULT clock_timestamp();

-- Re-enabling starts a run; the rest is migration 20261124009800's (the
-- cursor moves to the horizon). clock_timestamp() is read with the row
-- locked, so every claim of the endpoint committed before it reads an
-- earlier time and every later claim a later one.
CREATE OR REPLACE FUNCTION webhook_endpoint_reenabled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.feed_position := pg_snapshot_xmin(pg_current_snapshot());
    NEW.feed_seq := 0;
    NEW.enabled_at := clock_timestamp();
    RETURN NEW;
END
$$;

-- unprepared_since is the first of the current run of failures of ours to
-- prepare the delivery (the message not loaded or rendered, the secret not
-- opened); null when there is none. They are not the endpoint's failures,
-- so they leave first_failed_at and the endpoint alone, but a delivery
-- that fails so for the retry window is failed, with the reason recorded,
-- instead of being tried every minute until the feed's purge deletes it.
ALTER TABLE webhook_deliveries ADD COLUMN unprepared_since timestamptz;
