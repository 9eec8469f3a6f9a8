package rest_test

import (
	"slices"
	"testing"

	"github.com/eventapi/eventapi/api/rest"
)

// TestReadOnlyFields: a resource's read-only fields are the common ones,
// its extras, and the expansions inlined into its records, not those
// nested in another expansion; ExpansionsWithin gives a nested record its
// own.
func TestReadOnlyFields(t *testing.T) {
	lists := []rest.Expansion{
		rest.Expand("event"),
		rest.Expand("items"),
		rest.Expand("equipment").In("items"),
		rest.Expand("category").In("equipment"),
	}
	common := []string{"id", "organization_id", "demo", "created_at", "updated_at"}
	if !slices.Equal(rest.CommonReadOnly, common) {
		t.Errorf("CommonReadOnly = %v, want %v", rest.CommonReadOnly, common)
	}
	for _, tt := range []struct {
		name string
		xs   []rest.Expansion
		more []string
		want []string
	}{
		{"no expansions", nil, nil, common},
		{"extras, after the ids", nil, []string{"total_amount", "x"},
			[]string{"id", "organization_id", "total_amount", "x", "demo", "created_at", "updated_at"}},
		{"top-level expansions only", lists, nil, append(slices.Clone(common), "event", "items")},
		{"an item's", rest.ExpansionsWithin(lists, "items"), nil, append(slices.Clone(common), "equipment")},
		{"an item's equipment's", rest.ExpansionsWithin(lists, "equipment"), []string{"x"},
			[]string{"id", "organization_id", "x", "demo", "created_at", "updated_at", "category"}},
	} {
		if got := rest.ReadOnlyFields(tt.xs, tt.more...); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
