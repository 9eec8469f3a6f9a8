package tracing_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/middleware/tracing"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes each export
// request as a collector does (protobuf, gzip or not) and keeps its spans.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			r.spans = append(r.spans, ss.GetSpans()...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *otlpReceiver) received() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

func stringAttr(s *tracepb.Span, key string) string {
	for _, kv := range s.GetAttributes() {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// rawRequest sends a request line and headers exactly as given, bytes a
// Go client would escape included, and waits for the status line.
func rawRequest(t *testing.T, addr, head string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, head+"Host: eventapi\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%q: %v", head, err)
	}
	t.Logf("%q: %q", head, line)
}

// TestInvalidUTF8FromAClientCostsNoSpans: requests whose path (and trace
// headers) carry bytes that are not UTF-8, sent as raw bytes over TCP,
// exported in the same batch as ordinary requests through the OTLP/HTTP
// exporter serve uses (telemetry.SetupTracing) to a receiver: every span
// arrives, the odd bytes as U+FFFD. The exporter refuses a whole batch
// for one invalid string, so before the path was made valid this batch
// lost every span, those of the ordinary requests beside it included.
func TestInvalidUTF8FromAClientCostsNoSpans(t *testing.T) {
	rcv := &otlpReceiver{}
	collector := httptest.NewServer(rcv)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })
	shutdown, exporting, err := telemetry.SetupTracing(context.Background(), "tracing-utf8-test")
	if err != nil || !exporting {
		t.Fatalf("SetupTracing: exporting=%v %v", exporting, err)
	}

	for _, tc := range []struct {
		name   string
		routes bool
	}{{"route resolver", true}, {"Fiber's route path", false}} {
		t.Run(tc.name, func(t *testing.T) {
			handler := rest.ErrorHandler(slog.New(slog.DiscardHandler))
			// Immutable as the server's app (api/server/app.go): the
			// span keeps the path after the request's buffers are reused.
			app := fiber.New(fiber.Config{ErrorHandler: handler, DisableStartupMessage: true, Immutable: true})
			cfg := tracing.Config{ErrorHandler: handler}
			if tc.routes {
				cfg.Routes = route.New(app)
			}
			app.Use(tracing.New(cfg))
			app.Get("/api/v2/events/:id", func(c *fiber.Ctx) error { return c.SendStatus(http.StatusNoContent) })
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = app.Listener(ln) }()
			defer func() { _ = app.ShutdownWithTimeout(5 * time.Second) }()
			addr := ln.Addr().String()
			for _, head := range []string{
				"GET /api/v2/events/1 HTTP/1.1\r\n",
				"GET /api/v2/events/\xff\xfe HTTP/1.1\r\n",  // a route's path
				"GET /api/v2/nowhere/\xc3\x28 HTTP/1.1\r\n", // no route's path
				"GET /api/v2/events/2 HTTP/1.1\r\n" + // trace headers with invalid bytes
					"traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n" +
					"tracestate: k=\xff\r\nbaggage: k=%ff\xfe\r\nUser-Agent: agent\xff\r\n",
				"GET /api/v2/events/3 HTTP/1.1\r\n",
			} {
				rawRequest(t, addr, head)
			}
		})
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("tracer provider shutdown: %v", err)
	}

	var paths []string
	for _, s := range rcv.received() {
		paths = append(paths, stringAttr(s, "url.path"))
		if !validUTF8Span(s) {
			t.Errorf("span %q carries a string that is not valid UTF-8", s.GetName())
		}
	}
	sort.Strings(paths)
	want := []string{
		"/api/v2/events/1", "/api/v2/events/1",
		"/api/v2/events/2", "/api/v2/events/2",
		"/api/v2/events/3", "/api/v2/events/3",
		"/api/v2/events/\uFFFD", "/api/v2/events/\uFFFD",
		"/api/v2/nowhere/\uFFFD(", "/api/v2/nowhere/\uFFFD(",
	}
	if len(paths) != len(want) {
		t.Fatalf("the receiver got %d spans, want %d; url.path of those received: %q", len(paths), len(want), paths)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Fatalf("url.path of the spans received %q, want %q", paths, want)
		}
	}
}

// validUTF8Span reports whether the span's name and string attributes are
// valid UTF-8 (proto.Unmarshal would have refused them otherwise; this
// names the span when it does not).
func validUTF8Span(s *tracepb.Span) bool {
	if !utf8.ValidString(s.GetName()) || !utf8.ValidString(s.GetTraceState()) {
		return false
	}
	for _, kv := range s.GetAttributes() {
		if !utf8.ValidString(kv.GetValue().GetStringValue()) {
			return false
		}
	}
	return true
}
