package documents_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// TestNext takes numbers step by step; each step says what is in place
// first (numbers supplied by hand, a rolled-back transaction).
func TestNext(t *testing.T) {
	f := storagetest.NewFixture(t)
	ctx := context.Background()
	next := func(org tenancy.OrganizationID, n documents.Numbering) string {
		t.Helper()
		var got string
		err := database.RunInTx(ctx, f.DB, func(ctx context.Context, tx bun.Tx) error {
			var err error
			got, err = documents.Next(ctx, tx, org, n)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	steps := []struct {
		name   string
		before func()
		org    tenancy.OrganizationID
		seq    documents.Numbering
		want   string
	}{
		{"the first quote number", nil, f.A, documents.QuoteNumbers, "Q-000001"},
		{"the next one", nil, f.A, documents.QuoteNumbers, "Q-000002"},
		{"invoices count apart", nil, f.A, documents.InvoiceNumbers, "INV-000001"},
		{"another organization counts apart", nil, f.B, documents.QuoteNumbers, "Q-000001"},
		{"numbers supplied by hand are stepped over", func() {
			quote(t, f, f.A, "Q-000003")
			quote(t, f, f.A, "Q-000004")
		}, f.A, documents.QuoteNumbers, "Q-000005"},
		{"another organization's numbers are not", func() { quote(t, f, f.B, "Q-000002") }, f.A, documents.QuoteNumbers, "Q-000006"},
		{"a rolled-back number is given back", func() {
			err := database.RunInTx(ctx, f.DB, func(ctx context.Context, tx bun.Tx) error {
				if n, err := documents.Next(ctx, tx, f.A, documents.QuoteNumbers); err != nil || n != "Q-000007" {
					t.Errorf("inside the rolled-back transaction: %q %v", n, err)
				}
				return errs.New(errs.Validation, "refused")
			})
			if !errs.Is(err, errs.Validation) {
				t.Fatal(err)
			}
		}, f.A, documents.QuoteNumbers, "Q-000007"},
		{"a run of 12,000 supplied numbers is stepped over at once", func() {
			if _, err := f.DB.NewRaw(`INSERT INTO quotes (organization_id, quote_number, title)
				SELECT ?, 'Q-' || lpad(g::text, 6, '0'), 'Imported' FROM generate_series(7, 12006) AS g`, f.A).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}, f.A, documents.QuoteNumbers, "Q-012007"},
		{"the counter stays past the run", nil, f.A, documents.QuoteNumbers, "Q-012008"},
		{"look-alikes of the next free number do not hold it", func() {
			quote(t, f, f.A, "Q-012009")
			quote(t, f, f.A, "Q-0012010")
			quote(t, f, f.A, "Q-12010")
			quote(t, f, f.A, "Q-012011")
		}, f.A, documents.QuoteNumbers, "Q-012010"},
		{"past the six digits", func() {
			if _, err := f.DB.NewRaw(`UPDATE number_counters SET last_value = 999998
				WHERE organization_id = ? AND kind = 'invoice'`, f.A).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			f.Insert(t, "invoices", f.A, map[string]any{"invoice_number": "INV-999999", "due_date": "2027-01-01"})
		}, f.A, documents.InvoiceNumbers, "INV-1000000"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.before != nil {
				s.before()
			}
			if got := next(s.org, s.seq); got != s.want {
				t.Fatalf("Next = %s, want %s", got, s.want)
			}
		})
	}
}

func TestCheckFree(t *testing.T) {
	f := storagetest.NewFixture(t)
	held := quote(t, f, f.A, "Q-7")
	other := quote(t, f, f.A, "Q-8")
	quote(t, f, f.B, "Q-9")
	tests := []struct {
		name   string
		number string
		self   uuid.UUID
		holder uuid.UUID // uuid.Nil: the number is free
	}{
		{"an unused number on create", "Q-1", uuid.Nil, uuid.Nil},
		{"a used number on create", "Q-7", uuid.Nil, held},
		{"a document keeps its own number", "Q-7", held, uuid.Nil},
		{"another document's number on update", "Q-7", other, held},
		{"another organization's number is free", "Q-9", uuid.Nil, uuid.Nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := documents.CheckFree(context.Background(), f.DB, f.A, documents.QuoteNumbers, tt.number, tt.self)
			if tt.holder == uuid.Nil {
				if err != nil {
					t.Fatalf("CheckFree: %v, want free", err)
				}
				return
			}
			e := errs.As(err)
			if e == nil || e.Code != errs.DuplicateRecord {
				t.Fatalf("CheckFree: %v, want duplicate_record", err)
			}
			d, _ := e.Details.(map[string]any)
			if d["field"] != "quote_number" || d["existing_id"] != tt.holder {
				t.Fatalf("details %v, want quote_number held by %s", e.Details, tt.holder)
			}
		})
	}
}
