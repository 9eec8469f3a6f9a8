-- The deliveries list filtered by status (GET …/deliveries?status=failed,
-- since 2.11.6) reads this index: a few failed deliveries among many
-- succeeded ones are found without reading the others. A plain build:
-- deliveries wait for it (docs/helm.md, "Upgrades and migrations", says
-- how to build it beforehand on a large table).
CREATE INDEX IF NOT EXISTS webhook_deliveries_status_list_idx
    ON webhook_deliveries (organization_id, endpoint_id, status, created_at DESC, id DESC);
