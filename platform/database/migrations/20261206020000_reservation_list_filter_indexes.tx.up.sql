-- The reservation list's vehicle_id and status filters read a page in the
-- list's order through these, as events_status_idx does for events; without
-- them each page of a filter that matches little scanned the organization's
-- reservations (docs/availability.md, "Indexes, chosen by measurement").
--
-- A plain CREATE INDEX (a migration runs in a transaction, where
-- CONCURRENTLY cannot) holds reservation writes of every organization for
-- the build: about 8 s at 2 million reservations. IF NOT EXISTS lets an
-- operator build both beforehand with CREATE INDEX CONCURRENTLY under these
-- names, and this migration then builds nothing (docs/helm.md, "Upgrades
-- and migrations").
CREATE INDEX IF NOT EXISTS equipment_reservations_vehicle_page_idx ON equipment_reservations (organization_id, vehicle_id, created_at, id)
    WHERE vehicle_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS equipment_reservations_status_page_idx ON equipment_reservations (organization_id, reservation_status, created_at, id);
