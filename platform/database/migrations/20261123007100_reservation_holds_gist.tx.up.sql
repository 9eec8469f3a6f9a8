-- Which reservations hold stock over a window (api/stock) is asked by the
-- stock guard on every reservation write and by the availability endpoints,
-- for one or up to 100 equipment records at once, and by the truck load for
-- one vehicle. A GiST index over the reservation's [start_date, end_date)
-- range answers "overlaps this window" directly, wherever the window lies in
-- the equipment's history; the btree it replaces scanned every reservation
-- that started before the window's end, and the planner turned the batch
-- into a sequential scan of the whole table. Measurements: docs/availability.md.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE INDEX equipment_reservations_holds_idx ON equipment_reservations
    USING gist (organization_id, equipment_id, tstzrange(start_date, end_date))
    WHERE reservation_status IN ('reserved', 'checked_out');

CREATE INDEX equipment_reservations_vehicle_holds_idx ON equipment_reservations
    USING gist (organization_id, vehicle_id, tstzrange(start_date, end_date))
    WHERE vehicle_id IS NOT NULL AND reservation_status IN ('reserved', 'checked_out');

DROP INDEX equipment_reservations_stock_idx;

-- GET /events/{id}?expand=equipment_reservations (and the event_id filter of
-- the reservation list) read an event's reservations.
CREATE INDEX equipment_reservations_event_idx ON equipment_reservations (organization_id, event_id, created_at, id)
    WHERE event_id IS NOT NULL;
