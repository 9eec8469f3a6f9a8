-- Changes the database makes by itself are recorded as an API write's are
-- (docs/changes.md, "What is recorded"):
--
-- 1. A row that an ON DELETE SET NULL foreign key changes moves its
--    updated_at, so that its .updated change is newer than the copy a
--    client holds (it kept the old value: a client syncing by updated_at,
--    or dropping a message not newer than its copy, missed it). The
--    trigger fires only for an update that clears one of those columns
--    and leaves updated_at as it was, which the API's writes never do
--    (they set it).
-- 2. Deleting equipment named by a quote's or invoice's line, or by a pick
--    list's item, keeps the line or item valid and says so in the feed: it
--    keeps the equipment's name as its description when it had none (a
--    line needs one or the other, and GET's lines sent back in a PATCH were
--    refused; an item's check refused the deletion outright), its pick list
--    moves its updated_at once per transaction,
--    and an update of a document's lines touches the document, whose
--    change (taken at commit with its lines) records the new state. The
--    API replaces lines and never updates them, so only the database's own
--    updates reach that trigger, and it touches a document once per
--    transaction (several equipment records deleted together, named by
--    one quote's lines, gave one identical change each).
--
--    None of this runs while the outbox is off (an organization's
--    deletion, tenancy.DeleteOrganization): the cascade records nothing,
--    and a second update of a document whose organization row is already
--    gone fails its foreign key check (an update of a row this transaction
--    wrote checks it again), which failed the deletion.
-- 3. A quote or invoice deleted in the database is recorded with its
--    lines: the deletion's change was taken after the foreign key's cascade
--    had removed them, so its last state showed a total and no lines.

CREATE FUNCTION set_null_moves_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) IS DISTINCT FROM 'off' THEN
        NEW.updated_at := greatest(clock_timestamp(), OLD.updated_at);
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF client_id ON events
    FOR EACH ROW WHEN (OLD.client_id IS NOT NULL AND NEW.client_id IS NULL
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();
CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF category_id ON equipment
    FOR EACH ROW WHEN (OLD.category_id IS NOT NULL AND NEW.category_id IS NULL
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();
CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF vehicle_id ON equipment_reservations
    FOR EACH ROW WHEN (OLD.vehicle_id IS NOT NULL AND NEW.vehicle_id IS NULL
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();
CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF client_id, event_id ON quotes
    FOR EACH ROW WHEN (((OLD.client_id IS NOT NULL AND NEW.client_id IS NULL)
                        OR (OLD.event_id IS NOT NULL AND NEW.event_id IS NULL))
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();
CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF client_id, event_id ON invoices
    FOR EACH ROW WHEN (((OLD.client_id IS NOT NULL AND NEW.client_id IS NULL)
                        OR (OLD.event_id IS NOT NULL AND NEW.event_id IS NULL))
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();
CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF event_id, quote_id ON pick_lists
    FOR EACH ROW WHEN (((OLD.event_id IS NOT NULL AND NEW.event_id IS NULL)
                        OR (OLD.quote_id IS NOT NULL AND NEW.quote_id IS NULL))
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();
CREATE TRIGGER set_null_moves_updated_at BEFORE UPDATE OF equipment_id, parent_item_id ON pick_list_items
    FOR EACH ROW WHEN (((OLD.equipment_id IS NOT NULL AND NEW.equipment_id IS NULL)
                        OR (OLD.parent_item_id IS NOT NULL AND NEW.parent_item_id IS NULL))
                       AND NEW.updated_at = OLD.updated_at)
    EXECUTE FUNCTION set_null_moves_updated_at();

-- Runs before the foreign key's SET NULL, which then finds no line to change.
CREATE FUNCTION lines_lose_equipment() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN OLD;
    END IF;
    UPDATE pick_lists l SET updated_at = greatest(clock_timestamp(), l.updated_at)
     WHERE l.organization_id = OLD.organization_id AND l.xmin <> pg_current_xact_id()::xid
       AND l.id IN (SELECT pick_list_id FROM pick_list_items
                    WHERE organization_id = OLD.organization_id AND equipment_id = OLD.id);
    UPDATE pick_list_items
       SET equipment_id = NULL, custom_description = coalesce(custom_description, OLD.name)
     WHERE organization_id = OLD.organization_id AND equipment_id = OLD.id;
    UPDATE quote_line_items
       SET equipment_id = NULL, description = CASE description WHEN '' THEN OLD.name ELSE description END
     WHERE organization_id = OLD.organization_id AND equipment_id = OLD.id;
    UPDATE invoice_line_items
       SET equipment_id = NULL, description = CASE description WHEN '' THEN OLD.name ELSE description END
     WHERE organization_id = OLD.organization_id AND equipment_id = OLD.id;
    RETURN OLD;
END
$$;

CREATE TRIGGER lines_lose_equipment BEFORE DELETE ON equipment
    FOR EACH ROW EXECUTE FUNCTION lines_lose_equipment();

-- A document this transaction has written already (its xmin) has its
-- change queued: taken at commit, it holds the lines as they are then.
CREATE FUNCTION quote_lines_touch_quote() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    UPDATE quotes d SET updated_at = greatest(clock_timestamp(), d.updated_at)
      FROM (SELECT DISTINCT organization_id, quote_id FROM changed_lines) l
     WHERE d.organization_id = l.organization_id AND d.id = l.quote_id
       AND d.xmin <> pg_current_xact_id()::xid;
    RETURN NULL;
END
$$;

CREATE FUNCTION invoice_lines_touch_invoice() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    UPDATE invoices d SET updated_at = greatest(clock_timestamp(), d.updated_at)
      FROM (SELECT DISTINCT organization_id, invoice_id FROM changed_lines) l
     WHERE d.organization_id = l.organization_id AND d.id = l.invoice_id
       AND d.xmin <> pg_current_xact_id()::xid;
    RETURN NULL;
END
$$;

CREATE TRIGGER lines_touch_document AFTER UPDATE ON quote_line_items
    REFERENCING NEW TABLE AS changed_lines
    FOR EACH STATEMENT EXECUTE FUNCTION quote_lines_touch_quote();
CREATE TRIGGER lines_touch_document AFTER UPDATE ON invoice_line_items
    REFERENCING NEW TABLE AS changed_lines
    FOR EACH STATEMENT EXECUTE FUNCTION invoice_lines_touch_invoice();

-- The deletion of a document, taken before the row (and, by the foreign
-- key's cascade, its lines) is gone.
CREATE FUNCTION record_document_deletion() RETURNS trigger
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

DROP TRIGGER record_change_deleted ON quotes;
DROP TRIGGER record_change_deleted ON invoices;
CREATE TRIGGER record_change_deleted BEFORE DELETE ON quotes
    FOR EACH ROW EXECUTE FUNCTION record_document_deletion('quote');
CREATE TRIGGER record_change_deleted BEFORE DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION record_document_deletion('invoice');
