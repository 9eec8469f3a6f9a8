-- GET /events and GET /equipment_reservations take a date window (start,
-- end) since 2.14.0: a record is listed when its [start_date, end_date)
-- overlaps it (storage.DateWindow). A load planner asks for next week's
-- events and reservations, a small slice of a long history; GiST indexes
-- over the records' ranges find them wherever they lie, where the page
-- index alone read the organization's records up to them. The reservation
-- holds indexes are partial (holding statuses) and keyed by equipment or
-- vehicle, so they cannot serve a list of every status.
--
-- Built concurrently (a migration without .tx., docs/helm.md, "Indexes on
-- large tables"): a GiST build is slow (about 13 s at a million rows), and
-- a plain one would hold every organization's event and reservation writes
-- for that long.
CREATE INDEX CONCURRENTLY IF NOT EXISTS events_window_idx ON events
    USING gist (organization_id, tstzrange(start_date, end_date))

--bun:split

CREATE INDEX CONCURRENTLY IF NOT EXISTS equipment_reservations_window_idx ON equipment_reservations
    USING gist (organization_id, tstzrange(start_date, end_date))
