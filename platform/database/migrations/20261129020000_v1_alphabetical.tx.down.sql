DROP INDEX IF EXISTS crew_members_v1_alphabetical_idx;
DROP INDEX IF EXISTS equipment_v1_alphabetical_idx;
CREATE INDEX equipment_v1_order_idx ON equipment (organization_id, lower(name), name, id);
CREATE INDEX crew_members_v1_order_idx ON crew_members
    (organization_id, lower(last_name), lower(first_name), last_name, first_name, id);
