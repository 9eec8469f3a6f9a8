DROP INDEX IF EXISTS crew_members_v1_order_idx;
DROP INDEX IF EXISTS equipment_v1_order_idx;
