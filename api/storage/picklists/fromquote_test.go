package picklists

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// describe renders items as "name:qty" in order, naming equipment by names.
func describe(items []Item, names map[uuid.UUID]string) string {
	var out []string
	for _, it := range items {
		name := "?"
		switch {
		case it.EquipmentID != nil && it.CustomDescription == nil:
			name = names[*it.EquipmentID]
		case it.EquipmentID == nil && it.CustomDescription != nil:
			name = "'" + *it.CustomDescription + "'"
		}
		if it.Stage != Stages[0] {
			name += "@" + it.Stage
		}
		out = append(out, fmt.Sprintf("%s:%d", name, it.Quantity))
	}
	return strings.Join(out, " ")
}

func TestItemsFromLines(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	names := map[uuid.UUID]string{a: "A", b: "B"}
	eq := func(id uuid.UUID, q int) SourceLine { return SourceLine{EquipmentID: &id, Quantity: q} }
	custom := func(d string, q int) SourceLine { return SourceLine{Description: d, Quantity: q} }
	tests := []struct {
		name  string
		lines []SourceLine
		want  string
	}{
		{"nothing", nil, ""},
		{"one item per equipment, where its first line is", []SourceLine{eq(a, 3), eq(b, 1), eq(a, 4)}, "A:7 B:1"},
		{"sums beyond one line's maximum", []SourceLine{eq(a, 600_000), eq(a, 600_000)}, "A:1200000"},
		{"custom lines are never merged", []SourceLine{custom("crew", 2), eq(a, 1), custom("crew", 3)}, "'crew':2 A:1 'crew':3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(itemsFromLines(tt.lines), names); got != tt.want {
				t.Errorf("items = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestItemsFromLinesOfTheLargestQuote folds the largest quote lines allow
// (500 lines of up to 1,000,000): one item per equipment record, with the
// quote's totals, none above the write maximum.
func TestItemsFromLinesOfTheLargestQuote(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	var lines []SourceLine
	want := map[uuid.UUID]int{}
	for i := 0; i < 500; i++ {
		id, q := a, 1_000_000-i
		if i%7 == 0 {
			id, q = b, 600_000
		}
		lines = append(lines, SourceLine{EquipmentID: &id, Quantity: q})
		want[id] += q
	}
	items := itemsFromLines(lines)
	if len(items) != len(want) {
		t.Fatalf("%d items, want one per equipment (%d)", len(items), len(want))
	}
	for i, it := range items {
		if it.Quantity < 1 || it.Quantity > MaxItemQuantity || it.Quantity != want[*it.EquipmentID] {
			t.Fatalf("item %d quantity %d, want %d within 1..%d", i, it.Quantity, want[*it.EquipmentID], MaxItemQuantity)
		}
	}
}
