package server_test

import (
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// TestSpansCarryTheOrganization checks what an SRE sees: one server span per
// request, named after the route, with the organization id, and SQL spans
// from bun's hook in the same trace.
func TestSpansCarryTheOrganization(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	defer otel.SetTracerProvider(prev)

	env := apitest.New(t, func(_ *config.Config, o *server.Options) { o.Tracing = true })
	org := env.NewOrg("Traced")
	if res := org.Get("/api/v2/clients"); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var server sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "GET /api/v2/clients" {
			server = s
		}
	}
	if server == nil {
		t.Fatal("no server span named after the route")
	}
	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range server.Attributes() {
		attrs[kv.Key] = kv.Value
	}
	if attrs["eventapi.organization_id"].AsString() != org.ID.String() {
		t.Errorf("organization attribute = %v", attrs["eventapi.organization_id"])
	}
	if attrs["http.response.status_code"].AsInt64() != 200 {
		t.Errorf("status attribute = %v", attrs["http.response.status_code"])
	}
	sql := 0
	for _, s := range rec.Ended() {
		if s.SpanContext().TraceID() == server.SpanContext().TraceID() && s.SpanContext().SpanID() != server.SpanContext().SpanID() {
			sql++
		}
	}
	if sql == 0 {
		t.Error("no SQL span in the request's trace")
	}
}
