package contract

import (
	"slices"
	"testing"
)

func TestNestedObjects(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const id = "/00000000-0000-0000-0000-000000000001"
	tests := []struct {
		method, path string
		want         []string
	}{
		{"POST", "/api/v2/quotes", []string{"line_items[0]"}},
		{"PATCH", "/api/v2/invoices" + id, []string{"line_items[0]"}},
		{"POST", "/api/v2/clients", nil},
		{"GET", "/api/v2/clients", nil},
		{"POST", "/api/v2/no_such_route", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			if got := c.NestedObjects(tt.method, tt.path); !slices.Equal(got, tt.want) {
				t.Fatalf("NestedObjects = %q, want %q", got, tt.want)
			}
		})
	}
}
