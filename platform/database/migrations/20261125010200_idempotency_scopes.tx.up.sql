-- The scopes of the API key that executed a keyed write. A replay goes only
-- to a key that holds all of them: the record is shared by the
-- organization's keys, and a replay skips the route's own scope check
-- (docs/decisions.md, "Idempotency"). NULL on rows written before: replayed
-- to any key of the organization, as then.
ALTER TABLE idempotency_keys ADD COLUMN scopes text[];
