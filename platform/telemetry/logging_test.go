package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestLoggerCarriesRequestAndTraceIDs: a line in a request's context has
// its request id, and its trace and span ids with whether the trace is
// sampled: under a ratio sampler most ids name a trace the backend never
// gets (docs/observability.md, "Traces and log lines").
func TestLoggerCarriesRequestAndTraceIDs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sampler sdktrace.Sampler
	}{{"sampled", sdktrace.AlwaysSample()}, {"not sampled", sdktrace.NeverSample()}} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := NewLogger(&buf, "info")
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tc.sampler))
			ctx, span := tp.Tracer("t").Start(WithRequestID(context.Background(), "req-1"), "op")
			log.InfoContext(ctx, "hello")
			span.End()
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			sc := span.SpanContext()
			if rec["request_id"] != "req-1" {
				t.Errorf("request_id = %v", rec["request_id"])
			}
			if rec["trace_id"] != sc.TraceID().String() || rec["span_id"] != sc.SpanID().String() {
				t.Errorf("trace_id %v, span_id %v; want %s, %s", rec["trace_id"], rec["span_id"], sc.TraceID(), sc.SpanID())
			}
			if rec["trace_sampled"] != sc.IsSampled() {
				t.Errorf("trace_sampled = %v, want %v", rec["trace_sampled"], sc.IsSampled())
			}
		})
	}
}

// TestLogTimesAreUTC: a process whose zone is east of UTC (TZ set in the
// pod) still logs its times in UTC.
func TestLogTimesAreUTC(t *testing.T) {
	local := time.Local
	time.Local = time.FixedZone("east", 9*3600)
	t.Cleanup(func() { time.Local = local })
	var buf bytes.Buffer
	NewLogger(&buf, "info").Info("hello")
	var rec struct{ Time string }
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(rec.Time, "Z") {
		t.Errorf("time %q, want UTC (ending in Z)", rec.Time)
	}
}

func TestExportEnabled(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
	}
	for _, tt := range tests {
		if got := exportEnabled(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("exportEnabled(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// writes records each Write to it as one string and signals it.
type writes struct {
	mu    sync.Mutex
	calls []string
	wrote chan struct{}
}

func newWrites() *writes { return &writes{wrote: make(chan struct{}, 100)} }

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.calls = append(w.calls, string(p))
	w.mu.Unlock()
	w.wrote <- struct{}{}
	return len(p), nil
}

// messages returns the msg of every line written so far, by write call.
func (w *writes) messages(t *testing.T) [][]string {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out [][]string
	for _, call := range w.calls {
		var msgs []string
		for _, line := range strings.Split(strings.TrimSuffix(call, "\n"), "\n") {
			var rec struct{ Msg string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			msgs = append(msgs, rec.Msg)
		}
		out = append(out, msgs)
	}
	return out
}

func TestBufferedLoggerHoldsOnlyRequestLinesBelowWarn(t *testing.T) {
	inRequest := WithRequestID(context.Background(), "req-1")
	cases := []struct {
		name string
		log  func(l *slog.Logger)
		want [][]string // the lines of each write, before stop
	}{
		{name: "request lines wait", log: func(l *slog.Logger) {
			l.InfoContext(inRequest, "a")
			l.DebugContext(inRequest, "b")
		}},
		{name: "a line outside a request writes out the held ones first", log: func(l *slog.Logger) {
			l.InfoContext(inRequest, "a")
			l.InfoContext(inRequest, "b")
			l.Info("lifecycle")
		}, want: [][]string{{"a", "b", "lifecycle"}}},
		{name: "a warning in a request is written at once", log: func(l *slog.Logger) {
			l.InfoContext(inRequest, "a")
			l.WarnContext(inRequest, "slow")
		}, want: [][]string{{"a", "slow"}}},
		{name: "an error in a request too", log: func(l *slog.Logger) {
			l.ErrorContext(inRequest, "panic")
			l.InfoContext(inRequest, "after")
		}, want: [][]string{{"panic"}}},
		{name: "attributes and groups keep the buffer", log: func(l *slog.Logger) {
			l.With("k", "v").WithGroup("g").InfoContext(inRequest, "a")
			l.With("k", "v").Warn("w")
		}, want: [][]string{{"a", "w"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWrites()
			log, stop := bufferedLogger(w, "debug", time.Hour) // no timer flush during the case
			c.log(log)
			got := w.messages(t)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("written before stop: %q, want %q", got, c.want)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, call := range w.messages(t) {
				all = append(all, call...)
			}
			if held := len(all) - len(flat(c.want)); held < 0 || (len(c.want) == 0 && held == 0) {
				t.Errorf("after stop, lines %q: the held ones are missing", all)
			}
		})
	}
}

func flat(calls [][]string) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c...)
	}
	return out
}

// A request line is written out by the timer when nothing else comes.
func TestBufferedLoggerFlushesOnItsOwn(t *testing.T) {
	w := newWrites()
	log, stop := NewBufferedLogger(w, "info")
	defer func() { _ = stop() }()
	log.InfoContext(WithRequestID(context.Background(), "req-1"), "request")
	select {
	case <-w.wrote:
	case <-time.After(time.Minute):
		t.Fatal("the held line was never written")
	}
	if got := w.messages(t); fmt.Sprint(got) != "[[request]]" {
		t.Errorf("written: %q", got)
	}
}

// Many request lines make a few large writes, each of whole lines.
func TestBufferedLoggerWritesWholeLines(t *testing.T) {
	w := newWrites()
	log, stop := bufferedLogger(w, "info", time.Hour)
	ctx := WithRequestID(context.Background(), "req-1")
	const n = 2000
	for i := range n {
		log.InfoContext(ctx, "request", "i", i, "pad", strings.Repeat("x", i%300))
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, call := range w.messages(t) { // fails on a line cut in two
		lines += len(call)
	}
	if lines != n {
		t.Errorf("%d lines written, want %d", lines, n)
	}
	if len(w.calls) > n/20 {
		t.Errorf("%d writes for %d lines: not buffered", len(w.calls), n)
	}
}

// TestNoTraceIDsWithoutExport: a process that exports no spans reads no
// caller's trace context, so a sampled traceparent from an ingress puts
// no trace or span id, nor trace_sampled, on its lines: they would name
// the caller's trace as if this process had traced the request.
func TestNoTraceIDsWithoutExport(t *testing.T) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
		t.Setenv(name, "")
	}
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })
	_, exporting, err := SetupTracing(context.Background(), "no-export-test")
	if err != nil || exporting {
		t.Fatalf("SetupTracing: exporting=%v %v", exporting, err)
	}
	header := propagation.MapCarrier{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	ctx := otel.GetTextMapPropagator().Extract(WithRequestID(context.Background(), "req-1"), header)
	ctx, span := Tracer().Start(ctx, "GET")
	var buf bytes.Buffer
	NewLogger(&buf, "info").InfoContext(ctx, "request")
	span.End()
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["request_id"] != "req-1" {
		t.Errorf("request_id = %v", rec["request_id"])
	}
	for _, field := range []string{"trace_id", "span_id", "trace_sampled"} {
		if v, ok := rec[field]; ok {
			t.Errorf("%s = %v on a line of a process that exports no spans", field, v)
		}
	}
}
