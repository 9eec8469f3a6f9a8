package documents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/tenancy"
)

var kind = documents.Kind{Name: quotes.Kind, Lines: documents.QuoteLines, Numbers: documents.QuoteNumbers}

// write is a document body: a title, optionally a number, references and
// lines (quantity × unit price in cents).
func write(title, number string, refs []related.Ref, lines ...[2]int) documents.Write {
	w := documents.Write{Number: number, Refs: refs}
	w.Changes.SetIf(title != "", "title", title)
	w.Changes.SetIf(number != "", "quote_number", number)
	if lines != nil {
		ls := []documents.Line{}
		for _, l := range lines {
			ls = append(ls, documents.Line{Description: "line", Quantity: l[0], UnitPrice: money.Amount(l[1])})
		}
		w.Lines = &ls
	}
	return w
}

// badStatus adds a status the database's check constraint refuses.
func badStatus(w documents.Write) documents.Write {
	w.Changes.Set("status", "bogus")
	return w
}

// TestCreate: numbers, line totals and the document total, and what a
// refused create leaves behind (nothing, not even a number).
func TestCreate(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	theirClient := f.Insert(t, "clients", f.B, map[string]any{"name": "Theirs"})
	tenant := tenancy.Tenant{Org: f.A}
	steps := []struct {
		name   string
		w      documents.Write
		code   errs.Code
		field  string // the field refused, and =its issue when given
		number string
		total  money.Amount
		lines  []money.Amount
	}{
		{"no lines: a zero total", write("First", "", nil), "", "", "Q-000001", 0, nil},
		{"line totals are quantity × unit price, exactly", write("Priced", "", nil, [2]int{3, 4550}, [2]int{1, 1}),
			"", "", "Q-000002", 13651, []money.Amount{13650, 1}},
		{"a number supplied by hand", write("Manual", "Q-000100", nil), "", "", "Q-000100", 0, nil},
		{"a supplied number already used", write("Again", "Q-000100", nil), errs.DuplicateRecord, "", "", 0, nil},
		{"another organization's client", write("Foreign", "", []related.Ref{{Field: "client_id", Table: related.TableClients, ID: &theirClient}}),
			errs.Validation, "client_id", "", 0, nil},
		{"a line total over the largest", write("Huge line", "", nil, [2]int{1000, int(documents.MaxTotal/1000 + 1)}),
			errs.Validation, "line_items[0].unit_price=quantity × unit_price must be at most 999999999999.99", "", 0, nil},
		{"a document total over the largest", write("Huge sum", "", nil, [2]int{1, int(documents.MaxTotal)}, [2]int{1, 1}),
			errs.Validation, "line_items=the total must be at most 999999999999.99", "", 0, nil},
		{"a value the database refuses, after the number was drawn", badStatus(write("Bad status", "", nil)),
			errs.Validation, "status", "", 0, nil},
		{"a hook that fails, after the lines were stored", write("Hooked", "", nil, [2]int{1, 1}), errs.InvalidTransition, "", "", 0, nil},
		{"refused creates took no number", write("After", "", nil), "", "", "Q-000003", 0, nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			before := count(t, f, f.A)
			var hook documents.Hook[quotes.Quote]
			if s.code == errs.InvalidTransition {
				hook = func(context.Context, bun.IDB, *quotes.Quote) error {
					return errs.New(errs.InvalidTransition, "refused by the hook")
				}
			}
			q, err := documents.Create[quotes.Quote](ctx, f.DB, tenant, kind, s.w, hook)
			if s.code != "" {
				e := errs.As(err)
				if e == nil || e.Code != s.code {
					t.Fatalf("Create: %v, want %s", err, s.code)
				}
				field, issue, _ := strings.Cut(s.field, "=")
				if field != "" && fields(t, err)[0] != field {
					t.Fatalf("Create: %v, want it to name %s", err, field)
				}
				if issue != "" && e.Details.(errs.ValidationDetails).Fields[0].Issue != issue {
					t.Fatalf("Create: %v, want the issue %q", err, issue)
				}
				if after := count(t, f, f.A); after != before {
					t.Fatalf("a refused create left %d quotes, want %d", after, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q.QuoteNumber != s.number || q.TotalAmount != s.total || q.LineItems == nil || len(*q.LineItems) != len(s.lines) {
				t.Fatalf("created %s total %v with %v, want %s total %v with %d lines", q.QuoteNumber, q.TotalAmount, q.LineItems, s.number, s.total, len(s.lines))
			}
			for i, l := range *q.LineItems {
				if l.LineTotal != s.lines[i] {
					t.Fatalf("line %d total %v, want %v", i, l.LineTotal, s.lines[i])
				}
			}
			stored, err := documents.Get[quotes.Quote](ctx, f.DB, f.A, q.ID, kind)
			if err != nil || stored.TotalAmount != s.total || len(*stored.LineItems) != len(s.lines) {
				t.Fatalf("stored: %+v %v", stored, err)
			}
		})
	}
}

// TestUpdate: lines replace the whole set and recompute the total; without
// lines both stay; another organization's document is not found.
func TestUpdate(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	q, err := documents.Create[quotes.Quote](ctx, f.DB, tenancy.Tenant{Org: f.A}, kind, write("Q", "", nil, [2]int{2, 500}), nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		org   tenancy.OrganizationID
		w     documents.Write
		code  errs.Code
		title string
		total money.Amount
		lines int
	}{
		{"a title alone keeps lines and total", f.A, write("Renamed", "", nil), "", "Renamed", 1000, 1},
		{"new lines replace the set and the total", f.A, write("", "", nil, [2]int{1, 100}, [2]int{2, 200}), "", "Renamed", 500, 2},
		{"an empty set clears lines and total", f.A, write("", "", nil, [][2]int{}...), "", "Renamed", 0, 0},
		{"another organization cannot update it", f.B, write("Taken", "", nil, [2]int{1, 1}), errs.NotFound, "Renamed", 0, 0},
		{"a total over the largest is refused, nothing changes", f.A, write("Huge", "", nil, [2]int{1, int(documents.MaxTotal)}, [2]int{1, 1}),
			errs.Validation, "Renamed", 0, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got, err := documents.Update[quotes.Quote](ctx, f.DB, s.org, q.ID, kind, s.w, nil)
			if s.code != "" {
				if !errs.Is(err, s.code) {
					t.Fatalf("Update: %v, want %s", err, s.code)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got.Title != s.title || got.TotalAmount != s.total || len(*got.LineItems) != s.lines {
				t.Fatalf("returned %q total %v with %d lines", got.Title, got.TotalAmount, len(*got.LineItems))
			}
			stored, err := documents.Get[quotes.Quote](ctx, f.DB, f.A, q.ID, kind)
			if err != nil || stored.Title != s.title || stored.TotalAmount != s.total || len(*stored.LineItems) != s.lines {
				t.Fatalf("stored %+v %v, want %q total %v with %d lines", stored, err, s.title, s.total, s.lines)
			}
		})
	}
}

func count(t *testing.T, f *storagetest.Fixture, org tenancy.OrganizationID) int {
	t.Helper()
	p, err := storage.List[quotes.Quote](context.Background(), f.DB, org, storage.PageRequest{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Items)
}
