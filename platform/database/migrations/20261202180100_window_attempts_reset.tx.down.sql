DROP TRIGGER webhook_delivery_window_reset ON webhook_deliveries;
DROP FUNCTION webhook_delivery_window_reset();
