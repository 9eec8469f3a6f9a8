-- The API key a keyed write's answer is shown to alone, when the answer
-- holds a secret the server made (a new webhook endpoint's signing secret,
-- a rotated one): another key of the organization that passes the same
-- scope checks would get a different secret by executing the request, so
-- a replay of this one is not its answer (docs/decisions.md, "Edge
-- layer"). NULL for every other answer, and on rows written before.
ALTER TABLE idempotency_keys ADD COLUMN bound_key_id uuid;
