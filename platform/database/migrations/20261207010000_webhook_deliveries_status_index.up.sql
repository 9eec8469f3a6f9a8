-- The deliveries list filtered by status (GET …/deliveries?status=failed,
-- since 2.11.6) reads this index: a few failed deliveries among many
-- succeeded ones are found without reading the others. Built CONCURRENTLY,
-- so deliveries keep being written and claimed while it builds
-- (docs/helm.md, "Upgrades and migrations").
CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_status_list_idx
    ON webhook_deliveries (organization_id, endpoint_id, status, created_at DESC, id DESC);
