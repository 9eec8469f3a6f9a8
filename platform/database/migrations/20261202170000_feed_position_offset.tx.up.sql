-- The feed's positions survive a move of the database (docs/changes.md,
-- "A moved database").
--
-- A change's position, the feed's horizon and each webhook endpoint's
-- cursor were the server's transaction ids. A database moved to another
-- cluster by pg_dump and pg_restore (a major upgrade by dump, a move to a
-- managed service) or by logical replication keeps its stored positions
-- but meets a transaction counter that is far lower: every saved cursor
-- and every endpoint stood past every new change, the restored history
-- stood above the horizon, and once the counter caught up a record's old
-- changes sorted after its new ones.
--
-- Every position is now the transaction id plus an offset, the constant
-- that feed_position_offset() returns: 0 until `eventapi migrate up` finds
-- a stored position at or above the next one (a moved database) and
-- replaces the function with one that returns a higher constant
-- (platform/database, raiseFeedOffset). The offset lives in the function's
-- body, not in a table: the function is inlined into every statement that
-- uses it, so a write reads nothing more than before, and PostgreSQL
-- replans the statements that inlined it when it is replaced. pg_dump
-- carries the body with the schema.
--
-- xid8 has no arithmetic operators (PostgreSQL 15): the functions go
-- through bigint, in which every real transaction id fits.
CREATE FUNCTION feed_position_offset() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT 0::bigint
$$;

-- The position a change written now takes at least: this transaction's id,
-- plus the offset.
CREATE FUNCTION feed_position_now() RETURNS xid8
LANGUAGE sql STABLE AS $$
    SELECT (pg_current_xact_id()::text::bigint + feed_position_offset())::text::xid8
$$;

-- The feed's visibility horizon: the oldest transaction still running,
-- plus the offset. A position below it is final (docs/changes.md).
CREATE FUNCTION feed_horizon() RETURNS xid8
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint + feed_position_offset())::text::xid8
$$;

-- Migration 20261128020000's floor, plus the offset.
CREATE OR REPLACE FUNCTION change_position_floor() RETURNS xid8
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint - 1 + feed_position_offset())::text::xid8
$$;

-- Migration 20261130010000's record_change, the position from
-- feed_position_now().
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

-- Migration 20261202010000's record_document_change, the position from
-- feed_position_now().
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

-- A new endpoint starts at the horizon (migration 20261124009800).
ALTER TABLE webhook_endpoints ALTER COLUMN feed_position SET DEFAULT feed_horizon();

-- Migration 20261202104500's webhook_endpoint_reenabled, the horizon from
-- feed_horizon().
CREATE OR REPLACE FUNCTION webhook_endpoint_reenabled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.feed_position := feed_horizon();
    NEW.feed_seq := 0;
    NEW.enabled_at := clock_timestamp();
    RETURN NEW;
END
$$;

-- Migration 20261129010000's webhook_endpoint_disabled, the horizon from
-- feed_horizon().
CREATE OR REPLACE FUNCTION webhook_endpoint_disabled() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    horizon xid8 := feed_horizon();
    last_position xid8;
    last_seq bigint;
BEGIN
    INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
    SELECT c.organization_id, NEW.id, c.id, c.seq, c.type, clock_timestamp()
    FROM changes c
    WHERE c.organization_id = NEW.organization_id
      AND (c.position, c.seq) > (NEW.feed_position, NEW.feed_seq)
      AND c.position < horizon
      AND (OLD.enabled_events @> ARRAY['*'] OR OLD.enabled_events @> ARRAY[c.type])
    ORDER BY c.position, c.seq
    ON CONFLICT (endpoint_id, change_seq) DO NOTHING;

    SELECT c.position, c.seq INTO last_position, last_seq
    FROM changes c
    WHERE c.organization_id = NEW.organization_id
      AND (c.position, c.seq) > (NEW.feed_position, NEW.feed_seq)
      AND c.position < horizon
    ORDER BY c.position DESC, c.seq DESC
    LIMIT 1;
    IF FOUND THEN
        NEW.feed_position := last_position;
        NEW.feed_seq := last_seq;
    END IF;
    RETURN NEW;
END
$$;
