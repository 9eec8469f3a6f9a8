DROP INDEX IF EXISTS equipment_reservations_event_idx;
CREATE INDEX equipment_reservations_stock_idx ON equipment_reservations (organization_id, equipment_id, start_date, end_date)
    WHERE reservation_status IN ('reserved', 'checked_out');
DROP INDEX IF EXISTS equipment_reservations_vehicle_holds_idx;
DROP INDEX IF EXISTS equipment_reservations_holds_idx;
-- btree_gist stays: other objects may use it, and it is harmless.
