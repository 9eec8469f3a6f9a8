package database

import (
	"maps"
	"slices"
	"testing"
)

// ConstraintFields exposes constraintFields to the test that finds each of
// its constraints in a migrated database.
var ConstraintFields = constraintFields

// TestConstraintField: the column the server names wins; else a listed
// constraint names its field; else the name's <table>_<column>_<kind> says
// it; any other name is the body's.
func TestConstraintField(t *testing.T) {
	tests := []struct{ table, constraint, column, want string }{
		// The constraints whose names do not say their field.
		{"events", "events_dates_check", "", "end_date"},
		{"equipment_reservations", "equipment_reservations_dates_check", "", "end_date"},
		{"pick_list_items", "pick_list_items_what_check", "", "equipment_id"},
		// The suffix rule, each kind.
		{"events", "events_client_id_fkey", "", "client_id"},
		{"quotes", "quotes_quote_number_key", "", "quote_number"},
		{"equipment", "equipment_stock_quantity_check", "", "stock_quantity"},
		{"equipment_categories", "equipment_categories_name_idx", "", "name"},
		{"equipment", "equipment_category_id_fkey", "", "category_id"},
		// A table name that prefixes another's: the constraint's own table.
		{"equipment_reservations", "equipment_reservations_event_id_fkey", "", "event_id"},
		// The column the server names wins over any name.
		{"clients", "", "name", "name"},
		{"events", "events_dates_check", "start_date", "start_date"},
		// Names the rule does not read.
		{"x", "weird", "", "body"},
		{"events", "clients_name_key", "", "body"},     // another table's
		{"events", "events_name", "", "body"},          // no kind
		{"events", "events_check", "", "body"},         // no column
		{"", "events_client_id_fkey", "", "body"},      // no table
		{"events", "events_dates_check_x", "", "body"}, // a kind not at the end
	}
	for _, tt := range tests {
		if got := constraintField(tt.table, tt.constraint, tt.column); got != tt.want {
			t.Errorf("constraintField(%q, %q, %q) = %q, want %q", tt.table, tt.constraint, tt.column, got, tt.want)
		}
	}
	// Every listed constraint has its row above.
	for _, c := range slices.Sorted(maps.Keys(constraintFields)) {
		if !slices.ContainsFunc(tests, func(tt struct{ table, constraint, column, want string }) bool {
			return tt.constraint == c && tt.column == "" && tt.want == constraintFields[c]
		}) {
			t.Errorf("constraintFields lists %s, which the table does not test", c)
		}
	}
}
