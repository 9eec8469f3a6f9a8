DROP TRIGGER record_change_deleted ON quotes;
DROP TRIGGER record_change_deleted ON invoices;
CREATE TRIGGER record_change_deleted AFTER DELETE ON quotes
    FOR EACH ROW EXECUTE FUNCTION record_change('quote');
CREATE TRIGGER record_change_deleted AFTER DELETE ON invoices
    FOR EACH ROW EXECUTE FUNCTION record_change('invoice');
DROP FUNCTION record_document_deletion();

DROP TRIGGER lines_touch_document ON quote_line_items;
DROP TRIGGER lines_touch_document ON invoice_line_items;
DROP FUNCTION quote_lines_touch_quote();
DROP FUNCTION invoice_lines_touch_invoice();
DROP TRIGGER lines_lose_equipment ON equipment;
DROP FUNCTION lines_lose_equipment();

DROP TRIGGER set_null_moves_updated_at ON events;
DROP TRIGGER set_null_moves_updated_at ON equipment;
DROP TRIGGER set_null_moves_updated_at ON equipment_reservations;
DROP TRIGGER set_null_moves_updated_at ON quotes;
DROP TRIGGER set_null_moves_updated_at ON invoices;
DROP TRIGGER set_null_moves_updated_at ON pick_lists;
DROP TRIGGER set_null_moves_updated_at ON pick_list_items;
DROP FUNCTION set_null_moves_updated_at();
