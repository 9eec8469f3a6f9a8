package documents_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/tenancy"
)

// fields returns the fields a validation_error names, or nil for no error.
func fields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e := errs.As(err)
	if e == nil || e.Code != errs.Validation {
		t.Fatalf("%v, want a validation_error", err)
	}
	var out []string
	for _, f := range e.Details.(errs.ValidationDetails).Fields {
		out = append(out, f.Field)
	}
	return out
}

func TestTotal(t *testing.T) {
	tests := []struct {
		name   string
		totals []money.Amount
		want   money.Amount
		bad    bool
	}{
		{"no lines", nil, 0, false},
		{"exact sum in cents", []money.Amount{1, 10, 100_00}, 100_11, false},
		{"exactly the largest total", []money.Amount{documents.MaxTotal - 1, 1}, documents.MaxTotal, false},
		{"a cent over the largest total", []money.Amount{documents.MaxTotal, 1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []documents.Line
			for _, lt := range tt.totals {
				lines = append(lines, documents.Line{LineTotal: lt})
			}
			got, err := documents.Total(lines)
			if tt.bad {
				if f := fields(t, err); !slices.Equal(f, []string{documents.Field}) {
					t.Fatalf("Total: %v, want a validation_error on %s", err, documents.Field)
				}
				if got, want := errs.As(err).Details.(errs.ValidationDetails).Fields[0].Issue, "the total must be at most 999999999999.99"; got != want {
					t.Fatalf("Total: issue %q, want %q", got, want)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Total = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestResolveEquipment(t *testing.T) {
	f := storagetest.NewFixture(t)
	mine := f.Insert(t, "equipment", f.A, map[string]any{"name": "Speaker"})
	theirs := f.Insert(t, "equipment", f.B, map[string]any{"name": "Theirs"})
	line := func(id *uuid.UUID, description string) documents.Line {
		return documents.Line{EquipmentID: id, Description: description, Quantity: 1}
	}
	missing := uuid.New()
	tests := []struct {
		name         string
		lines        []documents.Line
		bad          []string
		descriptions []string // after the call, when no line is bad
	}{
		{"no lines", nil, nil, nil},
		{"lines without equipment", []documents.Line{line(nil, "Labour"), line(nil, "Fuel")}, nil, []string{"Labour", "Fuel"}},
		{"own equipment, twice, named when the line has no description", []documents.Line{line(&mine, ""), line(nil, "Labour"), line(&mine, "Left speaker")},
			nil, []string{"Speaker", "Labour", "Left speaker"}},
		{"another organization's equipment names its line, and lends no name", []documents.Line{line(&mine, ""), line(&theirs, "")},
			[]string{"line_items[1].equipment_id"}, []string{"Speaker", ""}},
		{"every bad line is named", []documents.Line{line(&missing, ""), line(&mine, "x"), line(&theirs, "")},
			[]string{"line_items[0].equipment_id", "line_items[2].equipment_id"}, []string{"", "x", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fields(t, documents.ResolveEquipment(context.Background(), f.DB, f.A, tt.lines))
			if !slices.Equal(got, tt.bad) {
				t.Fatalf("fields %v, want %v", got, tt.bad)
			}
			var descriptions []string
			for _, l := range tt.lines {
				descriptions = append(descriptions, l.Description)
			}
			if !slices.Equal(descriptions, tt.descriptions) {
				t.Fatalf("descriptions %q, want %q", descriptions, tt.descriptions)
			}
		})
	}
}

// quote inserts a bare quote of org and returns its id.
func quote(t *testing.T, f *storagetest.Fixture, org tenancy.OrganizationID, number string) uuid.UUID {
	t.Helper()
	return f.Insert(t, "quotes", org, map[string]any{"quote_number": number, "title": "Quote"})
}

func TestReplaceAndLoad(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	q1, q2 := quote(t, f, f.A, "H-1"), quote(t, f, f.A, "H-2")
	theirs := quote(t, f, f.B, "H-1")
	desc := func(names ...string) []documents.Line {
		var out []documents.Line
		for i, n := range names {
			out = append(out, documents.Line{Description: n, Quantity: i + 1, UnitPrice: 150, LineTotal: money.Amount(150 * (i + 1))})
		}
		return out
	}
	steps := []struct {
		name string
		org  tenancy.OrganizationID
		doc  uuid.UUID
		set  []documents.Line
		code errs.Code
		// want are the descriptions of q1, q2 and B's quote afterwards.
		want [3][]string
	}{
		{"first set", f.A, q1, desc("a", "b", "c"), "", [3][]string{{"a", "b", "c"}, {}, {}}},
		{"another document's lines", f.A, q2, desc("x"), "", [3][]string{{"a", "b", "c"}, {"x"}, {}}},
		{"the whole set is replaced, in the new order", f.A, q1, desc("c", "a"), "", [3][]string{{"c", "a"}, {"x"}, {}}},
		{"B's own document", f.B, theirs, desc("b1"), "", [3][]string{{"c", "a"}, {"x"}, {"b1"}}},
		{"an empty set clears", f.A, q2, nil, "", [3][]string{{"c", "a"}, {}, {"b1"}}},
		{"A cannot write lines onto B's document", f.A, theirs, desc("stolen"), errs.Validation, [3][]string{{"c", "a"}, {}, {"b1"}}},
		{"B cannot clear A's document", f.B, q1, nil, "", [3][]string{{"c", "a"}, {}, {"b1"}}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got, err := documents.Replace(ctx, f.DB, documents.QuoteLines, s.org, s.doc, s.set)
			if s.code != "" {
				if !errs.Is(err, s.code) {
					t.Fatalf("Replace: %v, want %s", err, s.code)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if len(got) != len(s.set) || got == nil {
				t.Fatalf("Replace returned %d lines (nil %v), want %d", len(got), got == nil, len(s.set))
			}
			for i, l := range got {
				if l.ID == uuid.Nil || l.Parent != s.doc || l.Position != i || l.Description != s.set[i].Description || l.LineTotal != s.set[i].LineTotal {
					t.Fatalf("stored line %d: %+v, want %+v under %s", i, l, s.set[i], s.doc)
				}
			}
			a, err := documents.Load(ctx, f.DB, documents.QuoteLines, f.A, q1, q2, theirs)
			if err != nil {
				t.Fatal(err)
			}
			b, err := documents.Load(ctx, f.DB, documents.QuoteLines, f.B, theirs)
			if err != nil {
				t.Fatal(err)
			}
			have := [3][]string{names(a[q1]), names(a[q2]), names(b[theirs])}
			for i := range have {
				if !slices.Equal(have[i], s.want[i]) {
					t.Fatalf("document %d holds %v, want %v", i, have[i], s.want[i])
				}
			}
			if len(a[theirs]) != 0 {
				t.Fatalf("A loaded B's lines: %v", names(a[theirs]))
			}
		})
	}
	if none, err := documents.Load(ctx, f.DB, documents.QuoteLines, f.A); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("Load of no parents = %v, %v; want an empty map", none, err)
	}
}

func names(lines []documents.Line) []string {
	out := []string{}
	for _, l := range lines {
		out = append(out, l.Description)
	}
	return out
}
