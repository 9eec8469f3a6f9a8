package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/stdr"
	"go.opentelemetry.io/otel"

	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// jsonLines parses every line of out as a JSON object; a line that is not
// one fails the test.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a line that is not JSON: %q", l)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestOTelErrorLogIsRateLimited: the first error is logged at once, then at
// most one line per interval, each with the count of errors not logged
// since the line before; after a quiet interval the next error is logged at
// once. The clock is the test's.
func TestOTelErrorLogIsRateLimited(t *testing.T) {
	type step struct {
		at         time.Duration // since the first error
		logged     bool
		suppressed float64 // on the line, when logged
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the first error at once", []step{{0, true, 0}}},
		{"the errors of the next minute are counted, not logged", []step{
			{0, true, 0}, {time.Second, false, 0}, {5 * time.Second, false, 0}, {time.Minute - time.Nanosecond, false, 0}}},
		{"an error a minute after the line is logged with the count", []step{
			{0, true, 0}, {5 * time.Second, false, 0}, {10 * time.Second, false, 0}, {time.Minute, true, 2},
			{time.Minute + 5*time.Second, false, 0}, {2 * time.Minute, true, 1}}},
		{"an unreachable collector, an export every 5 s for 10 minutes: a line a minute", func() []step {
			var s []step
			for at := time.Duration(0); at < 10*time.Minute; at += 5 * time.Second {
				first := at%time.Minute == 0
				n := 0.0
				if first && at > 0 {
					n = 11 // the other exports of the minute before
				}
				s = append(s, step{at, first, n})
			}
			return s
		}()},
		{"after a quiet hour, at once with what was left over", []step{
			{0, true, 0}, {time.Second, false, 0}, {time.Hour, true, 1}, {time.Hour + time.Second, false, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
			now := start
			h := newOTelErrorLog(NewLogger(&out, "info"), time.Minute, func() time.Time { return now })
			for i, s := range tt.steps {
				now = start.Add(s.at)
				before := out.Len()
				h.Handle(errors.New("traces export: connection refused"))
				lines := jsonLines(t, out.String()[before:])
				if !s.logged {
					if len(lines) != 0 {
						t.Fatalf("step %d (+%v): logged %v, want nothing", i, s.at, lines)
					}
					continue
				}
				if len(lines) != 1 {
					t.Fatalf("step %d (+%v): %d lines, want 1", i, s.at, len(lines))
				}
				l := lines[0]
				if l["level"] != "WARN" || l["msg"] != OTelErrorMessage || l["error"] != "traces export: connection refused" ||
					l["suppressed"] != s.suppressed || l["log_interval"] != "1m0s" {
					t.Fatalf("step %d (+%v): line %v, want WARN %q with suppressed=%v", i, s.at, l, OTelErrorMessage, s.suppressed)
				}
			}
		})
	}
}

// TestOTelErrorsAreJSONLines: with LogOTelErrors, a trace exporter whose
// collector is unreachable (two providers, two failed exports within a
// minute) writes one JSON WARN line, and a malformed OTEL_EXPORTER_OTLP_HEADERS
// one JSON ERROR line, on the service's logger; nothing goes to the
// standard logger, where the SDK's default error handler writes (stderr).
// logOTelErrorsForTest installs LogOTelErrors on a JSON logger writing to
// the returned buffer (set the OTEL_* variables first: it reads the header
// lists) and points the standard logger, where the SDK's defaults write,
// at stderr; the SDK's global state is put back when the test ends.
func logOTelErrorsForTest(t *testing.T) (out, stderr *logtest.Buffer) {
	t.Helper()
	out, stderr = &logtest.Buffer{}, &logtest.Buffer{}
	log.SetOutput(stderr)
	prevTP, prevMP, prevProp := otel.GetTracerProvider(), otel.GetMeterProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() {
		log.SetOutput(os.Stderr)
		// As the SDK's defaults: the standard logger, on stderr.
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Print(err) }))
		otel.SetLogger(stdr.New(log.New(os.Stderr, "", log.LstdFlags|log.Lshortfile)))
		otel.SetTracerProvider(prevTP)
		if otel.GetMeterProvider() != prevMP {
			otel.SetMeterProvider(prevMP)
		}
		otel.SetTextMapPropagator(prevProp)
	})
	LogOTelErrors(NewLogger(out, "info"))
	return out, stderr
}

// closedAddr is the address of a port nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func TestOTelErrorsAreJSONLines(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+closedAddr(t))
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "300") // ms: each export gives up quickly
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign")
	out, stderr := logOTelErrorsForTest(t)
	ctx := context.Background()
	for range 2 {
		shutdown, exporting, err := SetupTracing(ctx, "otelerrors-test")
		if err != nil || !exporting {
			t.Fatalf("SetupTracing: exporting=%v %v", exporting, err)
		}
		_, span := Tracer().Start(ctx, "lost")
		span.End()
		_ = shutdown(ctx) // exports the span: fails, and says so through the error handler
	}

	t.Logf("log lines:\n%s", out.String())
	var warn, configErr []map[string]any
	for _, l := range jsonLines(t, out.String()) {
		switch {
		case l["msg"] == OTelErrorMessage:
			warn = append(warn, l)
		case l["msg"] == "parse headers":
			configErr = append(configErr, l)
		default:
			t.Errorf("unexpected line %v", l)
		}
	}
	if len(warn) != 1 || warn[0]["level"] != "WARN" || !strings.Contains(warn[0]["error"].(string), "traces export") ||
		warn[0]["suppressed"] != 0.0 {
		t.Errorf("export failures logged as %v, want one WARN %q line for the first", warn, OTelErrorMessage)
	}
	if len(configErr) == 0 || configErr[0]["level"] != "ERROR" {
		t.Errorf("the malformed OTEL_EXPORTER_OTLP_HEADERS logged as %v, want ERROR \"parse headers\" lines", configErr)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("the standard logger (stderr) got %q", s)
	}
}

// TestOTelLogNeverCarriesHeaderValues: with the report's two typos in
// OTEL_EXPORTER_OTLP_HEADERS (which CheckEnv refuses at start; here the
// exporters are built anyway), the SDK's complaints about both entries
// reach the log, from the trace and the metric exporter, gRPC and HTTP,
// and no line carries either credential.
func TestOTelLogNeverCarriesHeaderValues(t *testing.T) {
	for _, protocol := range []string{protoHTTP, protoGRPC} {
		t.Run(protocol, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+closedAddr(t))
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "300")
			t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", typoHeaders)
			out, stderr := logOTelErrorsForTest(t)
			ctx := context.Background()
			shutdownTracing, exporting, err := SetupTracing(ctx, "otelerrors-test")
			if err != nil || !exporting {
				t.Fatalf("SetupTracing: exporting=%v %v", exporting, err)
			}
			metrics, err := SetupPrometheusMetrics(ctx, "otelerrors-test")
			if err != nil || !metrics.OTLP {
				t.Fatalf("SetupPrometheusMetrics: %v", err)
			}
			_, span := Tracer().Start(ctx, "lost")
			span.End()
			_ = shutdownTracing(ctx)
			_ = metrics.Shutdown(ctx)

			logged := out.String()
			t.Logf("log lines:\n%s", logged)
			said := map[string]int{}
			for _, l := range jsonLines(t, logged) {
				said[l["msg"].(string)]++
			}
			// Each exporter reads the list once.
			if said["parse headers"] != 2 || said["escape header value"] != 2 {
				t.Errorf("the SDK's complaints: %v, want two \"parse headers\" and two \"escape header value\"", said)
			}
			for _, secret := range []string{typoSecret1, typoSecret2} {
				if strings.Contains(logged, secret) || strings.Contains(stderr.String(), secret) {
					t.Errorf("the log carries %q", secret)
				}
			}
		})
	}
}
