-- The v1 lists are alphabetical regardless of letter case (the database
-- collation is C, so plain ORDER BY name puts "Zebra" before "apple"). These
-- indexes serve the v1 orderings: equipment by name, crew by last name then
-- first name, each with the exact value and id as deterministic tie-breakers.
CREATE INDEX equipment_v1_order_idx ON equipment (organization_id, lower(name), name, id);
CREATE INDEX crew_members_v1_order_idx ON crew_members
    (organization_id, lower(last_name), lower(first_name), last_name, first_name, id);
