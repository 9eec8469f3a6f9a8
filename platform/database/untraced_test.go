package database_test

import (
	"context"
	"testing"

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
