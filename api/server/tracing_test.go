package server_test

import (
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// TestSpansCarryTheOrganization checks what an SRE sees: one server span per
// request, named after the route, with the organization id, and SQL spans
// from bun's hook in the same trace.
func TestSpansCarryTheOrganization(t *testing.T) {
	rec, env := tracedEnv(t)
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

// TestProbesAreUntraced: /livez and /readyz make no span, and neither do
// the Redis commands of /readyz's check (the Redis store is traced in
// this service), so the kubelet's probes are no traces; a request of the
// API beside them still is one.
func TestProbesAreUntraced(t *testing.T) {
	rec, env := tracedEnv(t)
	org := env.NewOrg("Probed")
	before := len(rec.Ended())
	for _, path := range []string{"/livez", "/readyz"} {
		res := env.Send(apitest.Request{Method: "GET", Path: path})
		if res.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
		}
		if path == "/readyz" && !strings.Contains(string(res.Body), `"redis":"ok"`) {
			t.Fatalf("GET /readyz: %s, want Redis checked", res.Body)
		}
	}
	// Spans end before the probe's answer is read, so those the probes made are here.
	for _, s := range rec.Ended()[before:] {
		if s.SpanKind() == trace.SpanKindServer || attrOf(s, "db.system") == "redis" {
			t.Errorf("a probe made the span %q (kind %v, url.path %q)", s.Name(), s.SpanKind(), attrOf(s, "url.path"))
		}
	}
	if res := org.Get("/api/v2/health"); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	traced := false
	for _, s := range rec.Ended() {
		traced = traced || s.Name() == "GET /api/v2/health"
	}
	if !traced {
		t.Error("no span for an API request beside the probes")
	}
}

// attrOf is the string value of a span's attribute key, or "".
func attrOf(s sdktrace.ReadOnlySpan, key attribute.Key) string {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value.String()
		}
	}
	return ""
}

// tracedEnv is a traced server whose spans rec records, until the test
// ends.
func tracedEnv(t *testing.T) (*tracetest.SpanRecorder, *apitest.Env) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	return rec, apitest.New(t, func(_ *config.Config, o *server.Options) { o.Tracing = true })
}

// TestCreateSpanNamesItsStatementAndTable: a v2 create writes its row with
// a statement built as SQL, whose span is named INSERT (bun names a raw
// statement SELECT) and whose db.statement names the table, without the
// values.
func TestCreateSpanNamesItsStatementAndTable(t *testing.T) {
	rec, env := tracedEnv(t)
	org := env.NewOrg("Traced create")
	if res := org.Post("/api/v2/clients", `{"name":"Traced Client Ltd"}`); res.Status != 201 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var statements []string
	for _, s := range rec.Ended() {
		for _, kv := range s.Attributes() {
			if kv.Key == "db.statement" {
				statements = append(statements, s.Name()+": "+kv.Value.AsString())
				if s.Name() == "INSERT" && strings.Contains(kv.Value.AsString(), `INSERT INTO "clients"`) {
					if strings.Contains(kv.Value.AsString(), "Traced Client Ltd") {
						t.Errorf("the statement carries a value: %s", kv.Value.AsString())
					}
					return
				}
			}
		}
	}
	t.Errorf("no INSERT span whose statement names clients; spans:\n%s", strings.Join(statements, "\n"))
}
