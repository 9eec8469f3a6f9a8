package contract

import (
	"slices"
	"testing"
)

// TestSchemaWalks checks the two walks of a request body's schema that the
// isolation suite relies on: the fields holding a record id, and the
// objects below the top level.
func TestSchemaWalks(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const id = "/00000000-0000-0000-0000-000000000001"
	tests := []struct {
		method, path   string
		wantReferences []string
		wantNested     []string
	}{
		{"POST", "/api/v2/quotes", []string{"client_id", "event_id", "line_items[0].equipment_id"}, []string{"line_items[0]"}},
		{"PATCH", "/api/v2/invoices" + id, []string{"client_id", "event_id", "line_items[0].equipment_id"}, []string{"line_items[0]"}},
		{"POST", "/api/v2/equipment_reservations", []string{"equipment_id", "event_id", "vehicle_id"}, nil},
		{"POST", "/api/v2/clients", nil, nil},
		{"GET", "/api/v2/clients", nil, nil},
		{"POST", "/api/v2/no_such_route", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if got := c.RequestReferences(tt.method, tt.path); !slices.Equal(got, tt.wantReferences) {
				t.Errorf("RequestReferences = %q, want %q", got, tt.wantReferences)
			}
			if got := c.NestedObjects(tt.method, tt.path); !slices.Equal(got, tt.wantNested) {
				t.Errorf("NestedObjects = %q, want %q", got, tt.wantNested)
			}
		})
	}
}
