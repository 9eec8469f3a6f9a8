-- Figures must be finite. The CHECKs of 20261121000100 let 'NaN' through
-- (NaN sorts above every number in PostgreSQL, so NaN > 0 holds) and
-- 'Infinity' (> 0): the API never writes them, since JSON cannot carry
-- them, but a row written by SQL directly made every answer that reads it
-- (a truck's load, a quote's total) fail. `x < 'Infinity'` refuses both for
-- double precision; numeric(p, s) cannot hold infinity, only NaN.
--
-- NOT VALID: the constraints hold for every write from now on without
-- scanning the tables under this migration's lock. A row already holding
-- such a value stays until it is mended; find them with the queries in
-- docs/decisions.md ("Stored figures are finite"), then
-- ALTER TABLE … VALIDATE CONSTRAINT.
ALTER TABLE equipment
    ADD CONSTRAINT equipment_figures_finite CHECK (
        case_length_in < 'Infinity' AND case_width_in < 'Infinity' AND case_height_in < 'Infinity'
        AND weight_lbs < 'Infinity' AND daily_rate <> 'NaN') NOT VALID;
ALTER TABLE quotes ADD CONSTRAINT quotes_total_finite CHECK (total_amount <> 'NaN') NOT VALID;
ALTER TABLE quote_line_items
    ADD CONSTRAINT quote_line_items_finite CHECK (unit_price <> 'NaN' AND line_total <> 'NaN') NOT VALID;
ALTER TABLE invoices ADD CONSTRAINT invoices_total_finite CHECK (total_amount <> 'NaN') NOT VALID;
ALTER TABLE invoice_line_items
    ADD CONSTRAINT invoice_line_items_finite CHECK (unit_price <> 'NaN' AND line_total <> 'NaN') NOT VALID;
