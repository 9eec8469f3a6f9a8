-- Back to transaction ids as positions. Refused while the offset is not 0
-- (a moved database, docs/changes.md "A moved database"): the functions
-- below would give every new change a position below the stored ones,
-- which is the failure the offset repairs.
DO $$
BEGIN
    IF feed_position_offset() <> 0 THEN
        RAISE EXCEPTION 'the change feed''s position offset is % (the database was moved): rolling back migration 20261202170000 would put every new change behind the stored ones', feed_position_offset();
    END IF;
END
$$;

-- Migration 20261129010000's webhook_endpoint_disabled.
CREATE OR REPLACE FUNCTION webhook_endpoint_disabled() RETURNS trigger
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

-- Migration 20261202104500's webhook_endpoint_reenabled.
CREATE OR REPLACE FUNCTION webhook_endpoint_reenabled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.feed_position := pg_snapshot_xmin(pg_current_snapshot());
    NEW.feed_seq := 0;
    NEW.enabled_at := clock_timestamp();
    RETURN NEW;
END
$$;

ALTER TABLE webhook_endpoints ALTER COLUMN feed_position SET DEFAULT pg_snapshot_xmin(pg_current_snapshot());

-- Migration 20261202010000's record_document_change.
CREATE OR REPLACE FUNCTION record_document_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    kind    text := CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'updated' END;
    payload jsonb;
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_TABLE_NAME = 'quotes' THEN
        IF NEW.status = 'approved' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'approved') THEN
            kind := 'approved';
        END IF;
        SELECT to_jsonb(d) || jsonb_build_object('line_items', coalesce((
                   SELECT jsonb_agg(to_jsonb(l) ORDER BY l.position) FROM quote_line_items l
                   WHERE l.organization_id = d.organization_id AND l.quote_id = d.id), '[]'::jsonb))
        INTO payload FROM quotes d WHERE d.id = NEW.id;
    ELSE
        SELECT to_jsonb(d) || jsonb_build_object('line_items', coalesce((
                   SELECT jsonb_agg(to_jsonb(l) ORDER BY l.position) FROM invoice_line_items l
                   WHERE l.organization_id = d.organization_id AND l.invoice_id = d.id), '[]'::jsonb))
        INTO payload FROM invoices d WHERE d.id = NEW.id;
    END IF;
    IF payload IS NULL THEN
        -- Deleted later in this transaction: the deletion's change,
        -- recorded at once by record_change, is the document's last. One
        -- taken now would follow it in the feed and bring it back.
        RETURN NULL;
    END IF;
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
    VALUES (NEW.organization_id,
            greatest(pg_current_xact_id(), change_position_floor()),
            TG_ARGV[0] || '.' || kind, TG_ARGV[0], NEW.id, payload);
    RETURN NULL;
END
$$;

-- Migration 20261130010000's record_change.
CREATE OR REPLACE FUNCTION record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, greatest(pg_current_xact_id(), change_position_floor()),
                TG_ARGV[0] || '.created', TG_ARGV[0], NEW.id, to_jsonb(NEW));
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, greatest(pg_current_xact_id(), change_position_floor()),
                TG_ARGV[0] || '.updated', TG_ARGV[0], NEW.id, to_jsonb(NEW));
    ELSE
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (OLD.organization_id, greatest(pg_current_xact_id(), change_position_floor()),
                TG_ARGV[0] || '.deleted', TG_ARGV[0], OLD.id, to_jsonb(OLD));
    END IF;
    RETURN NULL;
END
$$;

-- Migration 20261128020000's floor.
CREATE OR REPLACE FUNCTION change_position_floor() RETURNS xid8
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint - 1)::text::xid8
$$;

DROP FUNCTION feed_horizon();
DROP FUNCTION feed_position_now();
DROP FUNCTION feed_position_offset();
