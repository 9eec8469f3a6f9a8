package database_test

import (
	"context"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// TestUntracedStatementsMakeNoSpans: with tracing on, a statement makes a
// span, and one run under telemetry.Untraced makes none (the webhook
// worker's polls).
func TestUntracedStatementsMakeNoSpans(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })

	ctx := context.Background()
	db, err := database.Open(ctx, pgtest.NewDatabase(t), database.Options{MaxOpenConns: 2, Tracing: true, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
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
// RunInTx, and under a savepoint of it, is a child of the caller's span,
// beside BEGIN and COMMIT, not of the BEGIN span (which bun's own RunInTx
// would hand its function, ended).
func TestStatementsOfATransactionAreChildrenOfTheCaller(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })

	db, err := database.Open(context.Background(), pgtest.NewDatabase(t), database.Options{MaxOpenConns: 2, Tracing: true, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	spans.Reset()
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	var one, two int
	err = database.RunInTx(ctx, db, func(ctx context.Context, tx bun.Tx) error {
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
	selects := 0
	for _, s := range spans.GetSpans() {
		if !strings.HasPrefix(s.Name, "SELECT") {
			continue
		}
		selects++
		if s.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("%s: parent %s, want the caller's span %s", s.Name, s.Parent.SpanID(), parent.SpanContext().SpanID())
		}
	}
	if selects != 2 {
		t.Errorf("%d SELECT spans, want 2: %v", selects, spans.GetSpans())
	}
}
