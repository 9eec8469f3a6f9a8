-- Webhooks (docs/webhooks.md, "Delivery and retries"): the backoff counts
-- the failed attempts of a delivery's current retry window, not of its
-- life. window_attempts is that count: it grows with each failed attempt
-- that first_failed_at's window counts, and goes back to 0 wherever
-- first_failed_at is cleared (a success, a retry on request, a re-enable of
-- the endpoint), so a fresh window starts the schedule from its first step.
-- attempt_count stays the lifetime count the deliveries list shows. Before,
-- the wait followed attempt_count, so a delivery retried by hand after 20
-- failures waited up to the longest delay (12 h) after its next failure.
ALTER TABLE webhook_deliveries ADD COLUMN window_attempts integer NOT NULL DEFAULT 0;

-- A pending delivery in a window counts the attempts made since it began
-- (the first of them started at first_failed_at).
UPDATE webhook_deliveries d SET window_attempts = (
        SELECT count(*) FROM webhook_delivery_attempts a
        WHERE a.organization_id = d.organization_id AND a.delivery_id = d.id AND a.started_at >= d.first_failed_at)
    WHERE d.status = 'pending' AND d.first_failed_at IS NOT NULL;
