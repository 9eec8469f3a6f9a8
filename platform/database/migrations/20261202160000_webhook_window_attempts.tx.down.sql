ALTER TABLE webhook_deliveries DROP COLUMN window_attempts;
