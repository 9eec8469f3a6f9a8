-- Each change stores its size as a page of the feed answers it
-- (docs/changes.md, "Pages"), measured once, when the change is written.
-- A page ends before the change that would take it past 2 MiB
-- (MaxPageBytes in api/storage/changes), and PostgreSQL finds that change
-- by a running sum over the limit + 1 changes it reads: it measured each of
-- them there, casting its jsonb to text and scanning the text, so a page of
-- one 3 MB change at limit=100 cost a hundred measurements of 3 MB, ~100
-- times the work of the page it returned. The page statement now sums the
-- stored size, and reads the data of the changes it returns alone.
--
-- change_rendered_size is the rule the page statement applied: the stored
-- jsonb's text in bytes, plus five for each <, > and & and three for each
-- U+2028 and U+2029, which the answer's JSON encoder writes as six-byte
-- \u escapes. The characters are counted by the bytes replace() removes
-- (one for each of <, > and &, three for each separator in UTF-8), the
-- count that length() and translate() gave: a replace() that finds nothing
-- returns its input uncopied, where translate() compares every character
-- with each one it removes, which cost the trigger about twice as much on
-- a client's change. The data is cast to text once.
CREATE FUNCTION change_rendered_size(data jsonb) RETURNS integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    t text := data::text;
BEGIN
    RETURN octet_length(t)
        + 5 * (octet_length(t) - octet_length(replace(replace(replace(t, '<', ''), '>', ''), '&', '')))
        + (octet_length(t) - octet_length(replace(replace(t, E'\u2028', ''), E'\u2029', '')));
END
$$;

-- The three functions that write changes (migration 20261202170000's
-- record_change and record_document_change, migration 20261204150000's
-- record_document_deletion) measure the data they built. record_change
-- builds it into a variable, to measure it without building it twice.
CREATE OR REPLACE FUNCTION record_change() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    payload jsonb;
BEGIN
    IF current_setting('eventapi.outbox', true) = 'off' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        payload := to_jsonb(NEW);
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data, rendered_size)
        VALUES (NEW.organization_id, greatest(feed_position_now(), change_position_floor()),
                TG_ARGV[0] || '.created', TG_ARGV[0], NEW.id, payload, change_rendered_size(payload));
    ELSIF TG_OP = 'UPDATE' THEN
        payload := to_jsonb(NEW);
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data, rendered_size)
        VALUES (NEW.organization_id, greatest(feed_position_now(), change_position_floor()),
                TG_ARGV[0] || '.updated', TG_ARGV[0], NEW.id, payload, change_rendered_size(payload));
    ELSE
        payload := to_jsonb(OLD);
        INSERT INTO changes (organization_id, position, type, object_type, object_id, data, rendered_size)
        VALUES (OLD.organization_id, greatest(feed_position_now(), change_position_floor()),
                TG_ARGV[0] || '.deleted', TG_ARGV[0], OLD.id, payload, change_rendered_size(payload));
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
    IF payload IS NULL THEN
        -- Deleted later in this transaction: the deletion's change,
        -- recorded at once by record_change, is the document's last. One
        -- taken now would follow it in the feed and bring it back.
        RETURN NULL;
    END IF;
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data, rendered_size)
    VALUES (NEW.organization_id,
            greatest(feed_position_now(), change_position_floor()),
            TG_ARGV[0] || '.' || kind, TG_ARGV[0], NEW.id, payload, change_rendered_size(payload));
    RETURN NULL;
END
$$;

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
    INSERT INTO changes (organization_id, position, type, object_type, object_id, data, rendered_size)
    VALUES (OLD.organization_id, greatest(feed_position_now(), change_position_floor()),
            TG_ARGV[0] || '.deleted', TG_ARGV[0], OLD.id, payload, change_rendered_size(payload));
    RETURN OLD;
END
$$;

-- lock_for_migration takes tbl's ACCESS EXCLUSIVE lock for the rest of the
-- migration's transaction, in attempts of at most 500 ms a second apart,
-- for up to about five minutes, then fails the migration (the migrate Job
-- runs it again). A plain ALTER TABLE waits with no lock_timeout (the
-- migrator lifts it) behind any transaction that has read the table, and
-- while it waits every later statement on the table queues behind it: for
-- changes, every write of a record, whose trigger inserts a change. An
-- attempt that times out leaves the queue, so writes stall 500 ms at most
-- at a time (docs/helm.md, "Upgrades and migrations").
CREATE FUNCTION lock_for_migration(tbl regclass) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    FOR attempt IN 1..200 LOOP
        BEGIN
            PERFORM set_config('lock_timeout', '500ms', true);
            EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', tbl);
            PERFORM set_config('lock_timeout', '0', true);
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            PERFORM pg_sleep(1);
        END;
    END LOOP;
    RAISE EXCEPTION 'lock_for_migration: % stayed in use for 200 attempts; run the migration again', tbl
        USING ERRCODE = 'lock_not_available';
END
$$;

-- Last: the new column is a change of the catalogue only (nullable, no
-- default: no row is rewritten), but it locks changes exclusively, every
-- write of a record waiting for it, until the COMMIT that follows at once.
-- The changes written before it keep no size; the page statement measures
-- those as before, and the 30-day retention removes them.
SELECT lock_for_migration('changes');
ALTER TABLE changes ADD COLUMN rendered_size integer;
