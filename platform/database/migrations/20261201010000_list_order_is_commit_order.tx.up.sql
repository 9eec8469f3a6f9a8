-- A list's order is its commit order (docs/decisions.md, "Lists: a late
-- commit is never skipped").
--
-- Lists are read in (created_at, id) order with a keyset cursor. created_at
-- used to be the clock when the row was written, and a transaction commits
-- later: a row written at t1 by a transaction that was still running when a
-- reader took its page, committed after a row written at t2 > t1, sorted
-- before the reader's cursor and was never listed to that reader.
--
-- Each insert into a listed table now first takes a transaction-scoped
-- advisory lock on (table, organization) and then reads the clock. Two
-- inserting transactions of one organization and table therefore run their
-- inserts one after the other: the second reads the clock only after the
-- first committed. So every row that a reader's snapshot does not see (it
-- committed later, or is still running) has a created_at after every row
-- the snapshot sees, and a cursor never passes a row that commits later.
--
-- The lock is the two-integer form, a space of its own: no other lock of the
-- service (all single bigint keys) can collide with it. A hash collision of
-- two organizations only makes them wait for each other's inserts.
--
-- A row whose created_at the statement took from the clock (the column's
-- default, or clock_timestamp() in the statement: anything from the
-- statement's start on) gets the clock as it is once the lock is held, and
-- updated_at moves forward by as much, so values a statement set relative
-- to each other (a pick list made from a quote) keep their distance. A
-- created_at given from before the statement began (an import, a test's
-- fixture), or from after the lock was taken, is kept as given.
CREATE FUNCTION list_position() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    locked_at timestamptz;
    moved     interval;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(TG_TABLE_NAME), hashtext(NEW.organization_id::text));
    locked_at := clock_timestamp();
    IF NEW.created_at BETWEEN statement_timestamp() AND locked_at THEN
        moved := locked_at - NEW.created_at;
        NEW.created_at := locked_at;
        NEW.updated_at := NEW.updated_at + moved;
    END IF;
    RETURN NEW;
END
$$;

DO $$
DECLARE
    listed text;
BEGIN
    FOREACH listed IN ARRAY ARRAY['events', 'clients', 'crew_members', 'equipment', 'equipment_categories',
            'vehicles', 'equipment_reservations', 'quotes', 'invoices', 'pick_lists', 'webhook_endpoints'] LOOP
        EXECUTE format('CREATE TRIGGER list_position BEFORE INSERT ON %I FOR EACH ROW EXECUTE FUNCTION list_position()', listed);
    END LOOP;
END
$$;
