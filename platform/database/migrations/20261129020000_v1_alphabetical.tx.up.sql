-- The v1 lists are alphabetical (docs/v1.md, "Ordering"). The former order,
-- lower(name) then name, took its meaning from the database's collation:
-- under C (what a database created by `eventapi migrate --create-database`
-- on a C.UTF-8 cluster gets) accented names came after "z" ("Éclair" after
-- "zulu"), and under another collation the order was that collation's. The
-- ICU root collation "und-x-icu" (PostgreSQL built with ICU, as Debian's,
-- the official images and the managed services are) compares letters first,
-- then accents, then case, the same on every installation: "apple",
-- "Apple", "Äpfel" sort among the a's. Ties of identical names go by id.
DROP INDEX IF EXISTS crew_members_v1_order_idx;
DROP INDEX IF EXISTS equipment_v1_order_idx;
CREATE INDEX equipment_v1_alphabetical_idx ON equipment (organization_id, (name COLLATE "und-x-icu"), id);
CREATE INDEX crew_members_v1_alphabetical_idx ON crew_members
    (organization_id, (last_name COLLATE "und-x-icu"), (first_name COLLATE "und-x-icu"), id);
