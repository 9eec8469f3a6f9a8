ALTER TABLE idempotency_keys DROP COLUMN response_sealed;
