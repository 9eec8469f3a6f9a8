package database_test

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/spantest"
)

// TestUntracedStatementsMakeNoSpans: with tracing on, a statement makes a
// span, and one run under telemetry.Untraced makes none (the webhook
// worker's polls).
func TestUntracedStatementsMakeNoSpans(t *testing.T) {
	spans, _ := spantest.Record(t)

	ctx := context.Background()
	db := tracedDB(t)
	spans.Reset()
	var one int
	if err := db.NewSelect().ColumnExpr("1").Scan(telemetry.Untraced(ctx), &one); err != nil || one != 1 {
		t.Fatalf("untraced select: %d, %v", one, err)
	}
	if got := spans.GetSpans(); len(got) != 0 {
		t.Errorf("an untraced statement made %d spans, first %q", len(got), got[0].Name)
	}
	if err := db.NewSelect().ColumnExpr("1").Scan(ctx, &one); err != nil {
		t.Fatal(err)
	}
	if got := spans.GetSpans(); len(got) != 1 {
		t.Errorf("a traced statement made %d spans, want 1", len(got))
	}
}

// TestStatementsOfATransactionAreChildrenOfTheCaller: a statement run in
// RunInTx, under a savepoint of it, or in bun's own RunInTx, and the
// transaction's COMMIT, are children of the caller's span beside BEGIN,
// not of the BEGIN span, which has ended (bun keeps the context BEGIN's
// hook returns as the transaction's).
func TestStatementsOfATransactionAreChildrenOfTheCaller(t *testing.T) {
	spans, tp := spantest.Record(t)

	db := tracedDB(t)
	spans.Reset()
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	var one, two int
	err := database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().ColumnExpr("1").Scan(ctx, &one); err != nil {
			return err
		}
		return database.RunInTx(ctx, tx, func(ctx context.Context, sp bun.Tx) error {
			return sp.NewSelect().ColumnExpr("2").Scan(ctx, &two)
		})
	})
	parent.End()
	if err != nil || one != 1 || two != 2 {
		t.Fatalf("%d, %d, %v", one, two, err)
	}
	// bun's own RunInTx, which some background work calls directly, too.
	ctx, parent2 := tp.Tracer("test").Start(context.Background(), "job")
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return tx.NewSelect().ColumnExpr("3").Scan(ctx, &one)
	})
	parent2.End()
	if err != nil {
		t.Fatal(err)
	}
	counted := map[string]int{}
	for _, s := range spans.GetSpans() {
		name := strings.Fields(s.Name)[0]
		if name != "SELECT" && name != "BEGIN" && name != "COMMIT" {
			continue
		}
		counted[name]++
		if p := s.Parent.SpanID(); p != parent.SpanContext().SpanID() && p != parent2.SpanContext().SpanID() {
			t.Errorf("%s: parent %s, want a caller's span (%s or %s)", s.Name, p, parent.SpanContext().SpanID(), parent2.SpanContext().SpanID())
		}
	}
	if counted["SELECT"] != 3 || counted["BEGIN"] != 2 || counted["COMMIT"] != 2 {
		t.Errorf("spans %v, want 3 SELECT, 2 BEGIN, 2 COMMIT", counted)
	}

	// Background work, without a span of its own: the transaction is one
	// trace, BEGIN its root.
	spans.Reset()
	if err := database.RunInTx(context.Background(), db, func(ctx context.Context, tx bun.Tx) error {
		return tx.NewSelect().ColumnExpr("4").Scan(ctx, &one)
	}); err != nil {
		t.Fatal(err)
	}
	traces := map[string]bool{}
	for _, s := range spans.GetSpans() {
		traces[s.SpanContext.TraceID().String()] = true
	}
	if len(traces) != 1 {
		t.Errorf("a background transaction made %d traces, want 1: %v", len(traces), spans.GetSpans())
	}
}

// TestRawStatementsAreNamedByTheirOperation: a statement written as SQL
// (bun names every raw statement SELECT) makes a span named after its own
// first keyword, past the comments before it, with db.operation to match
// and the statement as written.
func TestRawStatementsAreNamedByTheirOperation(t *testing.T) {
	spans, _ := spantest.Record(t)

	ctx := context.Background()
	db := tracedDB(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE named (n int)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ query, want string }{
		{"INSERT INTO named VALUES (?)", "INSERT"},
		{"/* every organization: a test */ UPDATE named SET n = ?", "UPDATE"},
		{"-- a line\n  /* and a block */\n DELETE FROM named WHERE n = ?", "DELETE"},
		{"/* outer /* nested */ still the comment */ DELETE FROM named WHERE n = ?", "DELETE"},
		{"SELECT ?::int", "SELECT"},
	} {
		spans.Reset()
		if _, err := db.NewRaw(c.query, 1).Exec(ctx); err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		got := spans.GetSpans()
		if len(got) != 1 {
			t.Fatalf("%q made %d spans, want 1", c.query, len(got))
		}
		attrs := map[string]string{}
		for _, a := range got[0].Attributes {
			attrs[string(a.Key)] = a.Value.String()
		}
		if got[0].Name != c.want || attrs["db.operation"] != c.want || attrs["db.statement"] != c.query {
			t.Errorf("%q: span %q, db.operation %q, db.statement %q; want %q and the statement as written",
				c.query, got[0].Name, attrs["db.operation"], attrs["db.statement"], c.want)
		}
	}
}

// tracedDB opens a fresh database with tracing on, closed when t ends.
func tracedDB(t *testing.T) *bun.DB {
	t.Helper()
	db, err := database.Open(context.Background(), pgtest.NewDatabase(t), database.Options{MaxOpenConns: 2, Tracing: true, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
