-- Webhooks (docs/webhooks.md). An organization registers endpoints; every
-- change the outbox records (changes) is fanned out, by a trigger in the
-- writing transaction, into one delivery per enabled endpoint that wants its
-- type. Workers in every pod claim due deliveries with FOR UPDATE SKIP
-- LOCKED and a lease, POST them, and record every attempt.
CREATE TABLE webhook_endpoints (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    url             text NOT NULL,
    description     text,
    enabled_events  text[] NOT NULL,
    status          text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
    -- The signing secret, sealed with AES-256-GCM (nonce || ciphertext).
    secret          bytea NOT NULL,
    -- When the endpoint's current run of failures began; null when its
    -- last attempt succeeded (or it was re-enabled).
    failing_since   timestamptz,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id)
);

-- The fan-out's lookup: an organization without enabled endpoints costs one
-- probe of this (usually empty) index per change.
CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (organization_id) WHERE status = 'enabled';
CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (organization_id, created_at, id);

CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    endpoint_id     uuid NOT NULL,
    change_id       uuid NOT NULL REFERENCES changes (id) ON DELETE CASCADE,
    type            text NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempt_count   integer NOT NULL DEFAULT 0,
    -- When a pending delivery is due; null once it succeeded or failed.
    next_attempt_at timestamptz,
    -- The first failed attempt of the current run (the 3-day window).
    first_failed_at timestamptz,
    -- A claim: the worker holding lease_owner may deliver until
    -- leased_until; after it, any worker may claim the delivery again.
    leased_until    timestamptz,
    lease_owner     uuid,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (organization_id, id),
    FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, id) ON DELETE CASCADE
);

-- The workers' queue: pending deliveries by due time (a claim pushes
-- next_attempt_at to the lease's end, so an expired lease is simply due).
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- Per-endpoint claims and in-flight counts.
CREATE INDEX webhook_deliveries_endpoint_pending_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
-- The deliveries list, newest first.
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (organization_id, endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_change_idx ON webhook_deliveries (change_id);

CREATE TABLE webhook_delivery_attempts (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id uuid NOT NULL,
    delivery_id     uuid NOT NULL,
    started_at      timestamptz NOT NULL,
    -- The receiver's HTTP status; null when no response came.
    response_status integer,
    duration_ms     integer NOT NULL,
    -- Why the attempt failed, in our own words; null on success.
    error           text,
    FOREIGN KEY (organization_id, delivery_id) REFERENCES webhook_deliveries (organization_id, id) ON DELETE CASCADE
);

CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, started_at);

-- Fan-out: in the transaction that records the change, one delivery per
-- enabled endpoint of the organization whose enabled_events holds '*' or
-- the change's type. The delivery commits (and becomes visible to the
-- workers) exactly when the change does.
CREATE FUNCTION enqueue_webhook_deliveries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, type, next_attempt_at)
    SELECT e.organization_id, e.id, NEW.id, NEW.type, clock_timestamp()
    FROM webhook_endpoints e
    WHERE e.organization_id = NEW.organization_id
      AND e.status = 'enabled'
      AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[NEW.type]);
    RETURN NULL;
END
$$;

CREATE TRIGGER enqueue_webhook_deliveries AFTER INSERT ON changes
    FOR EACH ROW EXECUTE FUNCTION enqueue_webhook_deliveries();
