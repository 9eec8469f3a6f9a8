ALTER TABLE idempotency_keys DROP COLUMN bound_key_id;
