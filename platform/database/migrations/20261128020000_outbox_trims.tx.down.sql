-- Back to migration 20261125009900's functions: the previous-position
-- lookup, and the document payload built with format().
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

CREATE OR REPLACE FUNCTION record_document_change() RETURNS trigger
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

DROP FUNCTION change_position_floor();
