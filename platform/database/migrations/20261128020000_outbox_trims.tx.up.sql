-- The outbox trigger no longer looks up the record's previous change
-- (docs/changes.md, "Why a reader never misses a change" and "Cost").
--
-- A change's position must be at least its own transaction's id (nothing is
-- skipped) and, for an update or a deletion, at least the position of the
-- record's previous change (one record's changes in commit order). Until
-- now the second bound came from a query per update: the highest position
-- of the record's changes above our own, through the feed index. It now
-- comes from the statement's snapshot: the writer of the row's previous
-- version completed before this statement's snapshot was taken (the row
-- lock: in READ COMMITTED the trigger's INSERT takes a fresh snapshot after
-- the lock was granted; in REPEATABLE READ and SERIALIZABLE a row written
-- by a transaction the snapshot does not see cannot be updated or deleted).
-- A snapshot's xmax is above every transaction id that had completed when
-- it was taken, so that writer's id is at most xmax less one, the bound.
-- So is the position of its change: the writer's own id, or a bound taken
-- before the writer committed, and the bound never goes down. Two changes
-- at the same position keep the order of their seq (time order).
--
-- What this costs the feed: an update's or deletion's change is listed once
-- every transaction with an id up to that bound has ended, the transactions
-- that began writing before the change was written, where it waited for
-- those that began before its own transaction. Inserts keep their own id.
--
-- The function computes the bound; it is inlined into the INSERT.
CREATE FUNCTION change_position_floor() RETURNS xid8
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint - 1)::text::xid8
$$;

CREATE OR REPLACE FUNCTION record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
        VALUES (NEW.organization_id, pg_current_xact_id(), TG_ARGV[0] || '.created', TG_ARGV[0], NEW.id, to_jsonb(NEW));
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

-- Quotes and invoices (at commit, the document with its line items as they
-- are then): the same bound, and the payload read by a static statement
-- per table, whose plan is kept, instead of one built with format() and
-- planned again on every call. The triggers' arguments still name the
-- tables; each branch is the statement format() built from them.
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
            CASE TG_OP WHEN 'INSERT' THEN pg_current_xact_id() ELSE greatest(pg_current_xact_id(), change_position_floor()) END,
            TG_ARGV[0] || '.' || kind, TG_ARGV[0], NEW.id, coalesce(payload, to_jsonb(NEW)));
    RETURN NULL;
END
$$;
