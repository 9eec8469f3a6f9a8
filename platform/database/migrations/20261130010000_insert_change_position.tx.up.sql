-- Inserts' changes are raised to the floor too (docs/changes.md, "Why a
-- reader never misses a change"): a change sorts after every change whose
-- transaction had completed when its statement took its snapshot, not only
-- after the record's previous change. An insert kept its transaction's own
-- id, and a transaction that took its id early (the Idempotency-Key
-- middleware's claim row, before the handler's locks) and then waited for a
-- lock was listed before a change that committed while it waited and that
-- it depended on: a reservation admitted because another was deleted came
-- first in the feed, the unit booked twice at once for a reader.
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
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
    VALUES (NEW.organization_id,
            greatest(pg_current_xact_id(), change_position_floor()),
            TG_ARGV[0] || '.' || kind, TG_ARGV[0], NEW.id, coalesce(payload, to_jsonb(NEW)));
    RETURN NULL;
END
$$;
