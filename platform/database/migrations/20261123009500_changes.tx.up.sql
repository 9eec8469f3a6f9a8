-- The change feed's outbox (docs/changes.md). A row trigger on every v2
-- record table appends one row per changed record to changes, inside the
-- writing transaction, so a change exists if and only if its write
-- committed: no code path (v2, v1, cascades, status moves, quote approval,
-- pick lists made from quotes) can forget to record one, and no extra round
-- trip is made.
--
-- Order. A serial id is taken when a row is written, not when its
-- transaction commits, so ids become visible out of order. Each change
-- instead carries position = the writing transaction's id (xid8), raised to
-- the object's previous change's position when that is higher. Readers list
-- changes ordered by (position, seq) and only those with position below
-- pg_snapshot_xmin(pg_current_snapshot()): every transaction with an id
-- below that horizon has ended, and every transaction still running, or yet
-- to start, writes positions at or above it. So what a reader has passed is
-- final, and it sees every committed change exactly once. Raising position
-- to the object's previous one keeps one object's changes in commit order:
-- a writer can only change a row after the previous writer of that row
-- committed (row lock), and it then reads that writer's change.
CREATE TABLE changes (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    seq             bigint GENERATED ALWAYS AS IDENTITY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    position        xid8 NOT NULL,
    type            text NOT NULL,
    object_type     text NOT NULL,
    object_id       uuid NOT NULL,
    -- The record's row as stored (to_jsonb), plus line_items for quotes and
    -- invoices; api/storage/changes renders it as GET does.
    data            jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX changes_feed_idx ON changes (organization_id, position, seq);
CREATE INDEX changes_object_idx ON changes (object_id, position);
CREATE INDEX changes_created_at_idx ON changes USING brin (created_at);

-- record_change(object_type) is the row trigger. The setting
-- eventapi.outbox = 'off' (set locally by an organization's deletion, and
-- by the outbox-off benchmark) records nothing.
CREATE FUNCTION record_change() RETURNS trigger
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
        -- A quote or invoice: this trigger is deferred to commit, when its
        -- line items are written; render the row and lines as they are then.
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
    IF TG_OP <> 'INSERT' THEN
        SELECT max(c.position) INTO prev FROM changes c WHERE c.object_id = (rec ->> 'id')::uuid;
        IF prev IS NOT NULL AND prev > pos THEN
            pos := prev;
        END IF;
    END IF;
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
    VALUES ((rec ->> 'organization_id')::uuid, pos, object_type || '.' || change_kind,
            object_type, (rec ->> 'id')::uuid, rec);
    RETURN NULL;
END
$$;

CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION record_change('event');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON clients
    FOR EACH ROW EXECUTE FUNCTION record_change('client');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON crew_members
    FOR EACH ROW EXECUTE FUNCTION record_change('crew_member');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON equipment
    FOR EACH ROW EXECUTE FUNCTION record_change('equipment');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON equipment_categories
    FOR EACH ROW EXECUTE FUNCTION record_change('equipment_category');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON vehicles
    FOR EACH ROW EXECUTE FUNCTION record_change('vehicle');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON equipment_reservations
    FOR EACH ROW EXECUTE FUNCTION record_change('equipment_reservation');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON pick_lists
    FOR EACH ROW EXECUTE FUNCTION record_change('pick_list');
CREATE TRIGGER record_change AFTER INSERT OR UPDATE OR DELETE ON pick_list_items
    FOR EACH ROW EXECUTE FUNCTION record_change('pick_list_item');

-- Quotes and invoices carry their line items, written after the document
-- row in the same transaction: their insert and update changes are taken at
-- commit (a deferred constraint trigger), their deletions at once.
CREATE CONSTRAINT TRIGGER record_change AFTER INSERT OR UPDATE ON quotes
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION record_change('quote', 'quote_line_items', 'quote_id');
CREATE TRIGGER record_change_deleted AFTER DELETE ON quotes
    FOR EACH ROW EXECUTE FUNCTION record_change('quote');
CREATE CONSTRAINT TRIGGER record_change AFTER INSERT OR UPDATE ON invoices
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION record_change('invoice', 'invoice_line_items', 'invoice_id');
CREATE TRIGGER record_change_deleted AFTER DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION record_change('invoice');
