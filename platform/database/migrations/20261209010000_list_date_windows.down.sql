DROP INDEX CONCURRENTLY IF EXISTS equipment_reservations_window_idx

--bun:split

DROP INDEX CONCURRENTLY IF EXISTS events_window_idx
