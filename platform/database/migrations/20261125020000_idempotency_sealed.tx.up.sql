-- A keyed write's stored response is sealed with AES-256-GCM under the
-- service secret response_seal_key, bound to its (organization, key): it
-- may hold a new webhook endpoint's signing secret or a client's record,
-- which must not sit in the clear for 24 h (docs/decisions.md,
-- "Idempotency"). false on rows written before: their response is plain.
ALTER TABLE idempotency_keys ADD COLUMN response_sealed boolean NOT NULL DEFAULT false;
