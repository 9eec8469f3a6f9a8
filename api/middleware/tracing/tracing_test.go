package tracing_test

import (
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/api/middleware/tracing"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// unrenderable is details no encoder can write: the render of an error
// carrying it fails.
type unrenderable struct{}

func (unrenderable) MarshalJSON() ([]byte, error) { return nil, errors.New("details refused") }

func TestOneServerSpanPerRequest(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	const parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		name        string
		handler     fiber.Handler
		traceparent string
		status      int
		spanStatus  codes.Code
		// exception is the message of the exception event the span records.
		exception string
	}{
		{"success", func(c *fiber.Ctx) error { return c.SendStatus(200) }, "", 200, codes.Unset, ""},
		{"a 4xx is not a span error", func(*fiber.Ctx) error { return errs.New(errs.NotFound, "gone") }, "", 404, codes.Unset, ""},
		{"a 5xx is a span error", func(*fiber.Ctx) error { return errs.Wrap(errs.New(errs.Internal, "x"), "internal error") }, "", 500, codes.Error, ""},
		{"an error whose render failed: the 500 answered, the failure recorded", func(*fiber.Ctx) error {
			return &errs.Error{Code: errs.Validation, Message: "bad", Details: unrenderable{}}
		}, "", 500, codes.Error, "details refused"},
		{"the caller's trace is continued", func(c *fiber.Ctx) error { return c.SendStatus(200) },
			"00-" + parentTrace + "-00f067aa0ba902b7-01", 200, codes.Unset, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handler := rest.ErrorHandler(slog.New(slog.DiscardHandler))
			app := fiber.New(fiber.Config{ErrorHandler: handler})
			// The request id is assigned first, as in the app, and the span
			// carries it.
			app.Use(func(c *fiber.Ctx) error { rest.EnsureRequestID(c); return c.Next() })
			app.Use(tracing.New(tracing.Config{ErrorHandler: handler}))
			app.Get("/things/:id", tt.handler)
			before := len(rec.Ended())
			req := httptest.NewRequest("GET", "/things/42", nil)
			if tt.traceparent != "" {
				req.Header.Set("traceparent", tt.traceparent)
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			spans := rec.Ended()[before:]
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			s := spans[0]
			if s.Name() != "GET /things/:id" || s.SpanKind() != trace.SpanKindServer || s.Status().Code != tt.spanStatus {
				t.Fatalf("span %q kind %v status %v", s.Name(), s.SpanKind(), s.Status())
			}
			attrs := map[attribute.Key]attribute.Value{}
			for _, kv := range s.Attributes() {
				attrs[kv.Key] = kv.Value
			}
			if attrs["http.route"].AsString() != "/things/:id" || attrs["http.response.status_code"].AsInt64() != int64(tt.status) ||
				attrs["url.path"].AsString() != "/things/42" || attrs["http.request.method"].AsString() != "GET" {
				t.Fatalf("attributes %v", attrs)
			}
			if id := resp.Header.Get(rest.HeaderRequestID); id == "" || attrs["eventapi.request_id"].AsString() != id {
				t.Fatalf("eventapi.request_id %q, want the response's %s %q", attrs["eventapi.request_id"].AsString(), rest.HeaderRequestID, id)
			}
			var exception string
			for _, e := range s.Events() {
				for _, kv := range e.Attributes {
					if e.Name == "exception" && kv.Key == "exception.message" {
						exception = kv.Value.AsString()
					}
				}
			}
			if (tt.exception == "") != (exception == "") || !strings.Contains(exception, tt.exception) {
				t.Fatalf("exception %q, want one naming %q", exception, tt.exception)
			}
			if tt.traceparent != "" && s.SpanContext().TraceID().String() != parentTrace {
				t.Fatalf("trace %s, want the caller's %s", s.SpanContext().TraceID(), parentTrace)
			}
			if tt.traceparent == "" && s.Parent().IsValid() {
				t.Fatalf("a span without traceparent has parent %v", s.Parent())
			}
		})
	}
}
