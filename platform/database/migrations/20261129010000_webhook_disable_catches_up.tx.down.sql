DROP TRIGGER webhook_endpoint_disabled ON webhook_endpoints;
DROP FUNCTION webhook_endpoint_disabled();
