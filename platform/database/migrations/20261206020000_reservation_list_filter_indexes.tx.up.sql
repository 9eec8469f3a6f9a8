-- The reservation list's vehicle_id and status filters read a page in the
-- list's order through these, as events_status_idx does for events; without
-- them each page of a filter that matches little scanned the organization's
-- reservations (docs/availability.md, "Indexes, chosen by measurement").
CREATE INDEX equipment_reservations_vehicle_page_idx ON equipment_reservations (organization_id, vehicle_id, created_at, id)
    WHERE vehicle_id IS NOT NULL;
CREATE INDEX equipment_reservations_status_page_idx ON equipment_reservations (organization_id, reservation_status, created_at, id);
