-- The outbox costs a write less (docs/changes.md, "Cost"):
--
-- * changes is keyed by its seq (an identity: each insert lands on the
--   index's last page) instead of the random id, whose btree took a random
--   page per change; webhook deliveries reference changes by seq. The id
--   stays what the API and webhook-id show; nothing looks a change up by it.
-- * The object's previous position is found through the feed index instead
--   of an index of its own: only changes of the same organization above the
--   writer's own position can raise it, and those are the few written since
--   the writer's transaction took its id. One index fewer per change.
ALTER TABLE webhook_deliveries ADD COLUMN change_seq bigint;
UPDATE webhook_deliveries d SET change_seq = c.seq FROM changes c WHERE c.id = d.change_id;
ALTER TABLE webhook_deliveries ALTER COLUMN change_seq SET NOT NULL;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_change_id_fkey;
ALTER TABLE changes DROP CONSTRAINT changes_pkey;
ALTER TABLE changes ADD PRIMARY KEY (seq);
ALTER TABLE webhook_deliveries ADD FOREIGN KEY (change_seq) REFERENCES changes (seq) ON DELETE CASCADE;
DROP INDEX webhook_deliveries_change_idx;
CREATE INDEX webhook_deliveries_change_idx ON webhook_deliveries (change_seq);
DROP INDEX changes_object_idx;

CREATE OR REPLACE FUNCTION enqueue_webhook_deliveries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
    SELECT e.organization_id, e.id, NEW.id, NEW.seq, NEW.type, clock_timestamp()
    FROM webhook_endpoints e
    WHERE e.organization_id = NEW.organization_id
      AND e.status = 'enabled'
      AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[NEW.type]);
    RETURN NULL;
END
$$;

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
