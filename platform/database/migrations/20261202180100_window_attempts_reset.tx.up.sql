-- Webhooks (docs/webhooks.md, "Delivery and retries"): window_attempts
-- (migration 20261202160000) goes back to 0 wherever a delivery's retry
-- window ends, that is whenever first_failed_at is cleared (a success, a
-- retry on request, a re-enable of the endpoint). This release's
-- statements reset it themselves, but a pod of the release before it,
-- still running during a rolling update, clears first_failed_at without
-- knowing the column: the delivery's next window would start its backoff
-- where the last one stopped. The trigger resets it in the database, for
-- every writer; a statement that sets it to 0 itself is unchanged.
CREATE FUNCTION webhook_delivery_window_reset() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.window_attempts := 0;
    RETURN NEW;
END
$$;

-- No column list (UPDATE OF): the WHEN clause compares the row as written,
-- whichever statement or earlier trigger cleared the window.
CREATE TRIGGER webhook_delivery_window_reset BEFORE UPDATE ON webhook_deliveries
FOR EACH ROW WHEN (OLD.first_failed_at IS NOT NULL AND NEW.first_failed_at IS NULL)
EXECUTE FUNCTION webhook_delivery_window_reset();
