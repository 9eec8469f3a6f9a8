ALTER TABLE invoice_line_items DROP CONSTRAINT invoice_line_items_finite;
ALTER TABLE invoices DROP CONSTRAINT invoices_total_finite;
ALTER TABLE quote_line_items DROP CONSTRAINT quote_line_items_finite;
ALTER TABLE quotes DROP CONSTRAINT quotes_total_finite;
ALTER TABLE equipment DROP CONSTRAINT equipment_figures_finite;
