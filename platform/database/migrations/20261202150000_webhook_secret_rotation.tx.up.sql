-- Webhooks (docs/webhooks.md, "Rotating the secret"): an endpoint's signing
-- secret can be replaced (POST /api/v2/webhook_endpoints/{id}/rotate_secret)
-- while the one it replaces stays valid for a grace period, during which
-- every attempt carries both signatures.
--
-- previous_secret is the replaced secret, sealed as secret is (AES-256-GCM,
-- the endpoint's id as additional data); previous_secret_expires_at ends
-- its grace period. Only one previous secret is kept: a rotation during a
-- grace period replaces it. Both are null when no previous secret was kept
-- (a rotation with no grace period, or none yet); once the expiry has
-- passed the previous secret is no longer used nor shown, and the next
-- rotation overwrites it.
ALTER TABLE webhook_endpoints
    ADD COLUMN previous_secret bytea,
    ADD COLUMN previous_secret_expires_at timestamptz,
    ADD CONSTRAINT webhook_endpoints_previous_secret_check
        CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));
