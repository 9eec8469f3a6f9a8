ALTER TABLE webhook_deliveries DROP COLUMN unprepared_since;

-- Back to migration 20261124009800's trigger function.
CREATE OR REPLACE FUNCTION webhook_endpoint_reenabled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.feed_position := pg_snapshot_xmin(pg_current_snapshot());
    NEW.feed_seq := 0;
    RETURN NEW;
END
$$;

ALTER TABLE webhook_endpoints DROP COLUMN enabled_at;
