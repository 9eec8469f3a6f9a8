-- The outbox trigger does less per changed row (docs/changes.md, "Cost").
--
-- record_change(object_type) now covers plain rows only: one branch per
-- operation, each a single INSERT whose values come straight from NEW or OLD
-- (the row is turned into jsonb once, inside the INSERT). The former body
-- built the jsonb into a variable first and read the organization and id
-- back out of it with ->> and casts, and tested for quotes on every row.
--
-- Quotes and invoices, whose insert and update changes are taken at commit
-- with their line items, get their own function, record_document_change.
-- Their deletions stay with record_change.
--
-- What a change holds, its position and its order are unchanged (migration
-- 20261123009500 states the ordering argument; 20261123009700 the lookup).
CREATE OR REPLACE FUNCTION record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    pos  xid8 := pg_current_xact_id();
    prev xid8;
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, pos, TG_ARGV[0] || '.created', TG_ARGV[0], NEW.id, to_jsonb(NEW));
    ELSIF TG_OP = 'UPDATE' THEN
        -- Raise the position to the record's previous change's: only a
        -- change above our own position can raise it.
        SELECT max(c.position) INTO prev FROM changes c
        WHERE c.organization_id = NEW.organization_id AND c.position > pos AND c.object_id = NEW.id;
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, greatest(pos, prev), TG_ARGV[0] || '.updated', TG_ARGV[0], NEW.id, to_jsonb(NEW));
    ELSE
        SELECT max(c.position) INTO prev FROM changes c
        WHERE c.organization_id = OLD.organization_id AND c.position > pos AND c.object_id = OLD.id;
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (OLD.organization_id, greatest(pos, prev), TG_ARGV[0] || '.deleted', TG_ARGV[0], OLD.id, to_jsonb(OLD));
    END IF;
    RETURN NULL;
END
$$;

-- record_document_change(object_type, lines_table, lines_fk) is the deferred
-- trigger of quotes and invoices: at commit, the document row with its line
-- items as they are then; a quote that became approved is 'approved'.
CREATE FUNCTION record_document_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    object_type text := TG_ARGV[0];
    pos         xid8 := pg_current_xact_id();
    prev        xid8;
    kind        text := CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'updated' END;
    payload     jsonb;
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF object_type = 'quote' THEN
        IF NEW.status = 'approved' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'approved') THEN
            kind := 'approved';
        END IF;
    END IF;
    EXECUTE format(
        'SELECT to_jsonb(d) || jsonb_build_object(''line_items'', coalesce((
             SELECT jsonb_agg(to_jsonb(l) ORDER BY l.position) FROM %I l
             WHERE l.organization_id = d.organization_id AND l.%I = d.id), ''[]''::jsonb))
         FROM %I d WHERE d.id = $1', TG_ARGV[1], TG_ARGV[2], TG_TABLE_NAME)
        INTO payload USING NEW.id;
    IF TG_OP = 'UPDATE' THEN
        SELECT max(c.position) INTO prev FROM changes c
        WHERE c.organization_id = NEW.organization_id AND c.position > pos AND c.object_id = NEW.id;
    END IF;
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
    VALUES (NEW.organization_id, greatest(pos, prev), object_type || '.' || kind, object_type, NEW.id,
            coalesce(payload, to_jsonb(NEW)));
    RETURN NULL;
END
$$;

DROP TRIGGER record_change ON quotes;
CREATE CONSTRAINT TRIGGER record_change AFTER INSERT OR UPDATE ON quotes
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION record_document_change('quote', 'quote_line_items', 'quote_id');
DROP TRIGGER record_change ON invoices;
CREATE CONSTRAINT TRIGGER record_change AFTER INSERT OR UPDATE ON invoices
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION record_document_change('invoice', 'invoice_line_items', 'invoice_id');
