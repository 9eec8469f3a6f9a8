-- GET /events and GET /equipment_reservations take a date window (start,
-- end) since 2.14.0: a record is listed when its [start_date, end_date)
-- overlaps it (storage.DateWindow). A load planner asks for next week's
-- events and reservations, a small slice of a long history; GiST indexes
-- over the records' ranges find them wherever they lie, where the page
-- index alone read the organization's records up to them. The reservation
-- holds indexes are partial (holding statuses) and keyed by equipment or
-- vehicle, so they cannot serve a list of every status.
CREATE INDEX events_window_idx ON events
    USING gist (organization_id, tstzrange(start_date, end_date));

CREATE INDEX equipment_reservations_window_idx ON equipment_reservations
    USING gist (organization_id, tstzrange(start_date, end_date));
