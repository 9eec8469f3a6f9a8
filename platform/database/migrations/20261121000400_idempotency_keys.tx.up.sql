-- The durable half of Idempotency-Key (api/middleware/idempotency). A keyed
-- write inserts its row in its own transaction and stores the response on it
-- before COMMIT, so a crash after COMMIT (before the response reaches Redis)
-- still leaves the response here for the retry to replay. Rows are kept for
-- 24 hours; the serve process purges older ones.
CREATE TABLE idempotency_keys (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    key             text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint     bytea NOT NULL,
    status          integer CHECK (status BETWEEN 100 AND 499),
    content_type    text,
    response        bytea,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    completed_at    timestamptz,
    PRIMARY KEY (organization_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
