-- When an endpoint's latest run of failed attempts ended: its first success
-- after them sets it (docs/observability.md, the delivery lag's `wait`
-- label). A delivery of a change written before it waited on its receiver,
-- whatever its own attempts. A nullable column without a default: no
-- rewrite, only a brief lock.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS recovered_at timestamptz;
