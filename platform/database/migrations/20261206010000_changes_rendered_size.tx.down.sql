-- Migration 20261204150000's record_document_deletion.
CREATE OR REPLACE FUNCTION record_document_deletion() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    payload jsonb;
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN OLD;
    END IF;
    IF TG_TABLE_NAME = 'quotes' THEN
        payload := to_jsonb(OLD) || jsonb_build_object('line_items', coalesce((
                       SELECT jsonb_agg(to_jsonb(l) ORDER BY l.position) FROM quote_line_items l
                       WHERE l.organization_id = OLD.organization_id AND l.quote_id = OLD.id), '[]'::jsonb));
    ELSE
        payload := to_jsonb(OLD) || jsonb_build_object('line_items', coalesce((
                       SELECT jsonb_agg(to_jsonb(l) ORDER BY l.position) FROM invoice_line_items l
                       WHERE l.organization_id = OLD.organization_id AND l.invoice_id = OLD.id), '[]'::jsonb));
    END IF;
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
    VALUES (OLD.organization_id, greatest(feed_position_now(), change_position_floor()),
            TG_ARGV[0] || '.deleted', TG_ARGV[0], OLD.id, payload);
    RETURN OLD;
END
$$;

-- Migration 20261202170000's record_document_change.
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
            greatest(feed_position_now(), change_position_floor()),
            TG_ARGV[0] || '.' || kind, TG_ARGV[0], NEW.id, payload);
    RETURN NULL;
END
$$;

-- Migration 20261202170000's record_change.
CREATE OR REPLACE FUNCTION record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, greatest(feed_position_now(), change_position_floor()),
                TG_ARGV[0] || '.created', TG_ARGV[0], NEW.id, to_jsonb(NEW));
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, greatest(feed_position_now(), change_position_floor()),
                TG_ARGV[0] || '.updated', TG_ARGV[0], NEW.id, to_jsonb(NEW));
    ELSE
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (OLD.organization_id, greatest(feed_position_now(), change_position_floor()),
                TG_ARGV[0] || '.deleted', TG_ARGV[0], OLD.id, to_jsonb(OLD));
    END IF;
    RETURN NULL;
END
$$;

DROP FUNCTION change_rendered_size(jsonb);

-- Last, as in the up migration: a change of the catalogue only, under an
-- exclusive lock on changes until the COMMIT, taken in short attempts.
SELECT lock_for_migration('changes');
ALTER TABLE changes DROP COLUMN rendered_size;
DROP FUNCTION lock_for_migration(regclass);
