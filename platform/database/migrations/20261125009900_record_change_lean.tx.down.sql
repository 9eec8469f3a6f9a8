-- Back to migration 20261123009700's single outbox function.
DROP TRIGGER record_change ON quotes;
CREATE CONSTRAINT TRIGGER record_change AFTER INSERT OR UPDATE ON quotes
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION record_change('quote', 'quote_line_items', 'quote_id');
DROP TRIGGER record_change ON invoices;
CREATE CONSTRAINT TRIGGER record_change AFTER INSERT OR UPDATE ON invoices
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION record_change('invoice', 'invoice_line_items', 'invoice_id');
DROP FUNCTION record_document_change();

CREATE OR REPLACE FUNCTION record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    object_type text := TG_ARGV[0];
    rec         jsonb;
    change_kind text;
    pos         xid8 := pg_current_xact_id();
    prev        xid8;
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        rec := to_jsonb(OLD);
        change_kind := 'deleted';
    ELSE
        rec := to_jsonb(NEW);
        change_kind := CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'updated' END;
    END IF;
    IF object_type = 'quote' AND TG_OP <> 'DELETE' THEN
        IF NEW.status = 'approved' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'approved') THEN
            change_kind := 'approved';
        END IF;
    END IF;
    IF TG_ARGV[1] IS NOT NULL AND TG_OP <> 'DELETE' THEN
        -- A quote or invoice, at commit: the row with its line items.
        EXECUTE format(
            'SELECT to_jsonb(d) || jsonb_build_object(''line_items'', coalesce((
                 SELECT jsonb_agg(to_jsonb(l) ORDER BY l.position) FROM %I l
                 WHERE l.organization_id = d.organization_id AND l.%I = d.id), ''[]''::jsonb))
             FROM %I d WHERE d.id = $1', TG_ARGV[1], TG_ARGV[2], TG_TABLE_NAME)
            INTO rec USING NEW.id;
        IF rec IS NULL THEN
            rec := to_jsonb(NEW);
        END IF;
    END IF;
    -- Raise the position to the object's previous change's (see migration
    -- 20261123009500): only a change above our own position can raise it.
    IF TG_OP <> 'INSERT' THEN
        SELECT max(c.position) INTO prev FROM changes c
        WHERE c.organization_id = (rec ->> 'organization_id')::uuid AND c.position > pos
          AND c.object_id = (rec ->> 'id')::uuid;
        IF prev IS NOT NULL THEN
            pos := prev;
        END IF;
    END IF;
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
    VALUES ((rec ->> 'organization_id')::uuid, pos, object_type || '.' || change_kind,
            object_type, (rec ->> 'id')::uuid, rec);
    RETURN NULL;
END
$$;
