DROP TRIGGER enqueue_webhook_deliveries ON changes;
DROP FUNCTION enqueue_webhook_deliveries();
DROP TABLE webhook_delivery_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
