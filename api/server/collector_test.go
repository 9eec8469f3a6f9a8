//go:build otlpcollector

package server_test

// This test needs a real OpenTelemetry Collector binary, named by
// EVENTAPI_TEST_OTELCOL; scripts/checks/traces.sh builds it (at a pinned
// version, hack/otelcol/build.sh) and runs this test with the
// otlpcollector build tag. The test starts the collector itself on a free
// port with the OTLP/HTTP receiver and the file exporter, sends one
// POST /api/v2/equipment_reservations through an app exporting to it, and
// reads the trace back from the exporter's file.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// startCollector runs the collector until the test ends and returns its
// OTLP/HTTP endpoint and the file its traces are written to.
func startCollector(t *testing.T) (endpoint, file string) {
	t.Helper()
	bin := os.Getenv("EVENTAPI_TEST_OTELCOL")
	if bin == "" {
		t.Fatal("EVENTAPI_TEST_OTELCOL must name the collector binary (scripts/checks/traces.sh sets it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	dir := t.TempDir()
	file = filepath.Join(dir, "traces.jsonl")
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
processors:
  batch:
    timeout: 50ms
exporters:
  file:
    path: %s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [file]
`, addr, file)
	cfgPath := filepath.Join(dir, "collector.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", cfgPath)
	logf, err := os.Create(filepath.Join(dir, "collector.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("collector log:\n%s", b)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr, file
}

type otlpSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Attributes   []struct {
		Key   string `json:"key"`
		Value struct {
			String *string `json:"stringValue"`
			Int    *string `json:"intValue"`
		} `json:"value"`
	} `json:"attributes"`
}

func (s otlpSpan) attr(k string) string {
	for _, a := range s.Attributes {
		if a.Key == k {
			switch {
			case a.Value.String != nil:
				return *a.Value.String
			case a.Value.Int != nil:
				return *a.Value.Int
			}
		}
	}
	return ""
}

// readSpans parses the file exporter's JSON lines (OTLP JSON).
func readSpans(t *testing.T, file string) []otlpSpan {
	t.Helper()
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []otlpSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			continue // a line still being written
		}
		for _, rs := range line.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// TestTraceReachesARealCollector: one POST /api/v2/equipment_reservations
// gives one trace in the collector: the server span named by the route
// template with http.route, the status and the organization, and SQL and
// Redis child spans under it; the request log's flush is a trace of its own.
func TestTraceReachesARealCollector(t *testing.T) {
	endpoint, file := startCollector(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	ctx := context.Background()
	shutdown, exporting, err := telemetry.SetupTracing(ctx, "eventapi-collector-test")
	if err != nil || !exporting {
		t.Fatalf("tracing: exporting=%v %v", exporting, err)
	}
	env := apitest.New(t, func(_ *config.Config, o *server.Options) { o.Tracing = true })
	org := env.NewOrg("Traced")
	eq := bookingtest.For(env, org).Equipment("Console", bookingtest.Stock(4), nil)
	res := org.Post("/api/v2/equipment_reservations", map[string]any{"equipment_id": eq.String(),
		"start_date": "2026-05-01T08:00:00Z", "end_date": "2026-05-03T08:00:00Z", "quantity": 1})
	if res.Status != 201 {
		t.Fatalf("POST: %d %s", res.Status, res.Body)
	}
	if err := env.Svc.RequestLog.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := shutdown(ctx); err != nil {
		t.Fatalf("export to the collector: %v", err)
	}

	const name = "POST /api/v2/equipment_reservations"
	deadline := time.Now().Add(60 * time.Second)
	for {
		spans := readSpans(t, file)
		var server *otlpSpan
		for i := range spans {
			if spans[i].Name == name && spans[i].attr("eventapi.request_id") == res.Header.Get("X-Request-Id") {
				server = &spans[i]
			}
		}
		var sql, redis, flush int
		if server != nil {
			byID := map[string]otlpSpan{}
			for _, s := range spans {
				byID[s.SpanID] = s
			}
			under := func(s otlpSpan) bool {
				for p := s.ParentSpanID; p != ""; p = byID[p].ParentSpanID {
					if p == server.SpanID {
						return true
					}
				}
				return false
			}
			for _, s := range spans {
				switch {
				case s.TraceID == server.TraceID && under(s) && s.attr("db.system") == "postgresql":
					sql++
				case s.TraceID == server.TraceID && under(s) && s.attr("db.system") == "redis":
					redis++
				case s.Name == "request_log.flush" && s.ParentSpanID == "" && s.TraceID != server.TraceID:
					flush++
				}
			}
		}
		if server != nil && sql > 0 && redis > 0 && flush > 0 {
			if server.attr("eventapi.organization_id") != org.ID.String() || server.attr("http.route") != "/api/v2/equipment_reservations" ||
				server.attr("http.response.status_code") != "201" || server.ParentSpanID != "" {
				t.Errorf("server span attributes: org=%q route=%q status=%q parent=%q", server.attr("eventapi.organization_id"),
					server.attr("http.route"), server.attr("http.response.status_code"), server.ParentSpanID)
			}
			t.Logf("trace %s: %d SQL and %d Redis child spans; %d request-log flush traces", server.TraceID, sql, redis, flush)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("collector file has %d spans; server span found=%v, SQL=%d, Redis=%d, flush traces=%d", len(spans), server != nil, sql, redis, flush)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
