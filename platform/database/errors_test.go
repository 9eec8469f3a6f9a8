package database

import "testing"

func TestConstraintField(t *testing.T) {
	RegisterConstraintField("events_dates_check", "end_date")
	tests := []struct{ table, constraint, column, want string }{
		{"events", "events_client_id_fkey", "", "client_id"},
		{"quotes", "quotes_quote_number_key", "", "quote_number"},
		{"events", "events_dates_check", "", "end_date"},
		{"clients", "", "name", "name"},
		{"x", "weird", "", "body"},
		{"equipment", "equipment_category_id_fkey", "", "category_id"},
	}
	for _, tt := range tests {
		if got := constraintField(tt.table, tt.constraint, tt.column); got != tt.want {
			t.Errorf("constraintField(%q, %q, %q) = %q, want %q", tt.table, tt.constraint, tt.column, got, tt.want)
		}
	}
}
