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

func TestItemsFromLinesSplitAtTheLimit(t *testing.T) {
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
		{"merged below the limit", []SourceLine{eq(a, 3), eq(b, 1), eq(a, 4)}, "A:7 B:1"},
		{"merged exactly to the limit", []SourceLine{eq(a, 6), eq(a, 4)}, "A:10"},
		{"one over the limit", []SourceLine{eq(a, 10), eq(a, 1)}, "A:10 A:1"},
		{"two lines of 6", []SourceLine{eq(a, 6), eq(a, 6)}, "A:10 A:2"},
		{"the overflow sits at the line that made it", []SourceLine{eq(a, 6), eq(b, 2), eq(a, 6), custom("crew", 1), eq(a, 3)}, "A:10 B:2 A:5 'crew':1"},
		{"only the last item of an equipment is not full", []SourceLine{eq(a, 9), eq(a, 9), eq(a, 9), eq(a, 9)}, "A:10 A:10 A:10 A:6"},
		{"one line above the limit", []SourceLine{eq(a, 25)}, "A:10 A:10 A:5"},
		{"custom lines are never merged", []SourceLine{custom("crew", 2), custom("crew", 3)}, "'crew':2 'crew':3"},
		{"a custom line above the limit is split", []SourceLine{custom("cable", 21)}, "'cable':10 'cable':10 'cable':1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(itemsFromLines(tt.lines, 10), names); got != tt.want {
				t.Errorf("items = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestItemsFromLinesOfTheLargestQuote folds the largest quote lines allow
// (500 lines of 1,000,000 of one equipment) at the real limit: the totals
// stay the quote's and no item is above the write maximum.
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
	items := itemsFromLines(lines, MaxItemQuantity)
	got := map[uuid.UUID]int{}
	open := map[uuid.UUID]bool{} // an equipment whose last item was not full
	for i, it := range items {
		if it.Quantity < 1 || it.Quantity > MaxItemQuantity {
			t.Fatalf("item %d quantity %d, want 1..%d", i, it.Quantity, MaxItemQuantity)
		}
		if open[*it.EquipmentID] {
			t.Fatalf("item %d: an earlier item of its equipment is not full", i)
		}
		open[*it.EquipmentID] = it.Quantity < MaxItemQuantity
		got[*it.EquipmentID] += it.Quantity
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("total %d, want %d", got[id], n)
		}
	}
}
