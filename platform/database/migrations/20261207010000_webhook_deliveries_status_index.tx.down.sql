DROP INDEX IF EXISTS webhook_deliveries_status_list_idx;
