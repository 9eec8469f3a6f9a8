// Package spantest records the spans a test's code makes.
package spantest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Record installs, for the test t, a global tracer provider that records
// every span in the exporter it returns, and puts the previous provider
// back when t ends. Install it before what takes the global provider when
// it is made (a Redis client's tracing hook, a database opened with
// tracing).
func Record(t testing.TB) (*tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })
	return spans, tp
}
