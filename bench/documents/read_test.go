// Package documents measures reading one quote with its line items: in one
// snapshot (a read-only REPEATABLE READ transaction, as quotes.Get reads
// it) against two statements on the pool, which could pair a total with
// lines of another version (docs/changelog.md, 2.8.4). Run: see
// bench/README.md.
package documents

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/quotes"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// lines is the quote's size: a typical rental quote.
const lines = 12

type fixture struct {
	db  *bun.DB
	org tenancy.OrganizationID
	id  uuid.UUID
}

func setup(tb testing.TB) fixture {
	tb.Helper()
	ctx := context.Background()
	db := pgtest.Open(tb)
	o, err := tenancy.CreateOrganization(ctx, db, "documents bench", nil)
	if err != nil {
		tb.Fatal(err)
	}
	t := tenancy.Tenant{Org: tenancy.OrganizationID{UUID: o.ID}}
	ls := make([]documents.Line, lines)
	for i := range ls {
		ls[i] = documents.Line{Description: fmt.Sprintf("line %d", i), Quantity: i + 1, UnitPrice: money.Amount(12_550)}
	}
	var w documents.Write
	w.Changes.Set("title", "Main stage audio")
	w.Lines = &ls
	q, err := quotes.Create(ctx, db, t, w)
	if err != nil {
		tb.Fatal(err)
	}
	return fixture{db: db, org: t.Org, id: q.ID}
}

// ways read the quote with its lines.
var ways = []struct {
	name string
	read func(context.Context, fixture) (int, error)
}{
	{"snapshot", func(ctx context.Context, f fixture) (int, error) {
		q, err := quotes.Get(ctx, f.db, f.org, f.id)
		if err != nil {
			return 0, err
		}
		return len(*q.LineItems), nil
	}},
	{"two-statements", func(ctx context.Context, f fixture) (int, error) {
		q, err := storage.Get[quotes.Quote](ctx, f.db, f.org, f.id, quotes.Kind)
		if err != nil {
			return 0, err
		}
		ls, err := documents.Load(ctx, f.db, documents.QuoteLines, f.org, q.ID)
		if err != nil {
			return 0, err
		}
		return len(ls[q.ID]), nil
	}},
}

// TestWaysAgree keeps the benchmark honest: both ways read every line.
func TestWaysAgree(t *testing.T) {
	f := setup(t)
	for _, w := range ways {
		if n, err := w.read(context.Background(), f); err != nil || n != lines {
			t.Fatalf("%s: %d lines, %v; want %d", w.name, n, err, lines)
		}
	}
}

// BenchmarkRead reads the quote one way per sub-benchmark; with -count, the
// two alternate, and benchstat gives the ratio.
func BenchmarkRead(b *testing.B) {
	f := setup(b)
	ctx := context.Background()
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := w.read(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
