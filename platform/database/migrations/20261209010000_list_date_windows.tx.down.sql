DROP INDEX IF EXISTS equipment_reservations_window_idx;
DROP INDEX IF EXISTS events_window_idx;
