-- A quote or invoice written and then deleted in one transaction (a
-- database-side cleanup; the API deletes neither) was listed as deleted
-- and then created or updated: its change is taken at commit
-- (record_document_change, a deferred trigger), after the deletion's,
-- and fell back to the row as written when the row was gone. It now
-- records nothing when the document no longer exists (docs/changes.md,
-- "What is recorded").
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
