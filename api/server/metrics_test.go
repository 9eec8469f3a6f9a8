package server_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/requestlog"
	"github.com/eventapi/eventapi/platform/telemetry"
)

var (
	metricsOnce sync.Once
	metricsURL  string
)

// metricsEndpoint installs the process's Prometheus meter provider once (the
// global instruments bind to the first provider set) and serves it on a free
// port, as serve does on EVENTAPI_METRICS_ADDR.
func metricsEndpoint(t *testing.T) string {
	t.Helper()
	metricsOnce.Do(func() {
		m, err := telemetry.SetupPrometheusMetrics(context.Background(), "eventapi-test")
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = telemetry.ServeMetrics(context.Background(), ln, m.Handler) }()
		metricsURL = "http://" + ln.Addr().String() + "/metrics"
	})
	if metricsURL == "" {
		t.Fatal("metrics endpoint failed to start")
	}
	return metricsURL
}

// scrape fetches and parses the exposition; a parse error fails the test.
func scrape(t *testing.T, u string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// counter sums a counter family's samples whose labels include want.
func counter(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var sum float64
	for _, m := range fams[name].GetMetric() {
		ls, ok := labels(m), true
		for k, v := range want {
			ok = ok && ls[k] == v
		}
		if ok {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// TestMetricsExposition: after traffic, /metrics parses as Prometheus text,
// holds the request-duration histogram labelled by route template, method
// and status, the pool gauges, and no organization id in any label.
func TestMetricsExposition(t *testing.T) {
	u := metricsEndpoint(t)
	env := apitest.New(t, func(_ *config.Config, o *server.Options) { o.Metrics = true })
	org := env.NewOrg("Metered")
	other := env.NewOrg("Other")
	if res := org.Get("/api/v2/clients"); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	if res := other.Get("/api/v2/clients/" + org.ID.String()); res.Status != 404 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	fams := scrape(t, u)
	hist := fams["http_server_request_duration_seconds"]
	if hist == nil || hist.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("no http_server_request_duration_seconds histogram; families: %d", len(fams))
	}
	found := map[string]bool{}
	for _, m := range hist.GetMetric() {
		ls := labels(m)
		found[ls["http_request_method"]+" "+ls["http_route"]+" "+ls["http_response_status_code"]+" "+ls["http_response_status_class"]] = true
	}
	for _, want := range []string{"GET /api/v2/clients 200 2xx", "GET /api/v2/clients/{id} 404 4xx"} {
		if !found[want] {
			t.Errorf("no histogram series %q; have %v", want, found)
		}
	}
	// The pool gauges the chart's dashboard plots (charts/eventapi/dashboards).
	for _, name := range []string{"go_sql_connections_in_use", "go_sql_connections_max_open", "db_client_connections_usage"} {
		if fams[name] == nil {
			names := make([]string, 0, len(fams))
			for n := range fams {
				names = append(names, n)
			}
			t.Errorf("no %s (pool gauge); families: %v", name, names)
		}
	}
	// The failure counters are there before any failure, at 0 unless an
	// earlier test of this process failed something: an alert on their
	// rate needs the series to exist.
	for _, name := range []string{"eventapi_ratelimit_fail_open_total", "eventapi_idempotency_unavailable_total",
		"eventapi_request_log_dropped_total", "eventapi_webhook_attempts_total", "eventapi_large_reads_waiting"} {
		if fams[name] == nil {
			t.Errorf("no %s before any failure", name)
		}
	}
	// The fail-open counter has a series per limiter.
	limiters := map[string]bool{}
	for _, m := range fams["eventapi_ratelimit_fail_open_total"].GetMetric() {
		limiters[labels(m)["limiter"]] = true
	}
	if !limiters["v1"] || !limiters["v2"] {
		t.Errorf("eventapi_ratelimit_fail_open_total has series for limiters %v, want v1 and v2", limiters)
	}
	// The dashboard's job variable selects the jobs by target_info's
	// service_name.
	if ti := fams["target_info"]; ti == nil || len(ti.GetMetric()) != 1 || labels(ti.GetMetric()[0])["service_name"] == "" {
		t.Errorf("no target_info with a service_name: %v", ti)
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				for _, id := range []string{org.ID.String(), other.ID.String()} {
					if strings.Contains(l.GetValue(), id) || strings.Contains(l.GetName(), "organization") {
						t.Errorf("%s carries an organization in label %s=%s", name, l.GetName(), l.GetValue())
					}
				}
			}
		}
	}
}

// TestRequestLogDropsWhenTheDatabaseStalls holds an exclusive lock on the
// request log's table, so the writer's COPY waits, with a buffer
// of two records. Requests keep succeeding, and the records that find the
// buffer full are dropped and counted in /metrics.
func TestRequestLogDropsWhenTheDatabaseStalls(t *testing.T) {
	u := metricsEndpoint(t)
	env := apitest.New(t, func(_ *config.Config, o *server.Options) {
		o.Metrics = true
		o.RequestLog = requestlog.WriterConfig{Buffer: 2, Batch: 1, Interval: 10 * time.Millisecond, WriteTimeout: time.Minute}
	})
	org := env.NewOrg("Stalled")
	before := counter(scrape(t, u), "eventapi_request_log_dropped_total", map[string]string{"reason": "buffer_full"})

	ctx := context.Background()
	tx, err := env.Svc.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	// The parent table, with every partition: a test that runs across
	// midnight writes into the next day's.
	if _, err := tx.ExecContext(ctx, "LOCK TABLE request_log_segments IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if res := org.Get("/api/v2/events"); res.Status != 200 {
			t.Fatalf("request %d while the log stalls: %d %s", i, res.Status, res.Body)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		after := counter(scrape(t, u), "eventapi_request_log_dropped_total", map[string]string{"reason": "buffer_full"})
		if after > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no drop counted (before %v, after %v, writer dropped %d)", before, after, env.Svc.RequestLog.Dropped())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// Once the lock is gone the writer catches up.
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := env.Svc.RequestLog.Flush(fctx); err != nil {
		t.Fatal(err)
	}
	if env.Svc.RequestLog.Written() == 0 {
		t.Error("nothing written after the stall ended")
	}
}

// TestRefusalsAreCounted: requests the HTTP layer answers before the
// middleware chain (an unknown method, headers over the read buffer) are in the
// duration histogram too, with the method _OTHER for an unknown one and no
// route.
func TestRefusalsAreCounted(t *testing.T) {
	u := metricsEndpoint(t)
	env := apitest.New(t, func(_ *config.Config, o *server.Options) { o.Metrics = true })
	org := env.NewOrg("Refused")
	base := env.Listen(t)
	count := func(series string) uint64 { return requestCount(t, u, series) }
	before405, before431 := count("_OTHER  405"), count("GET  431")
	auth := "Authorization: Bearer " + org.Key + "\r\n"
	for range 3 {
		resp, _ := rawExchange(t, base, "PURGE /api/v2/clients HTTP/1.1\r\nHost: test\r\n"+auth+"\r\n", nil)
		if resp.StatusCode != 405 {
			t.Fatalf("PURGE: %d", resp.StatusCode)
		}
	}
	// Far over the read buffer: fasthttp fails the read before any handler.
	var pad strings.Builder
	for i := range 40 {
		pad.WriteString("X-Pad-" + string(rune('a'+i%26)) + ": " + strings.Repeat("h", 1000) + "\r\n")
	}
	resp, _ := rawExchange(t, base, "GET /api/v2/clients HTTP/1.1\r\nHost: test\r\n"+auth+pad.String()+"\r\n", nil)
	if resp.StatusCode != 431 {
		t.Fatalf("oversized headers: %d", resp.StatusCode)
	}
	if got := count("_OTHER  405") - before405; got != 3 {
		t.Errorf("%d unknown-method refusals counted, want 3", got)
	}
	if got := count("GET  431") - before431; got != 1 {
		var have []string
		for _, m := range scrape(t, u)["http_server_request_duration_seconds"].GetMetric() {
			ls := labels(m)
			have = append(have, ls["http_request_method"]+" "+ls["http_route"]+" "+ls["http_response_status_code"])
		}
		t.Errorf("%d header refusals counted, want 1; series: %v", got, have)
	}
}

// requestCount is the number of requests the duration histogram at u
// counted in series, "<method> <route> <status>".
func requestCount(t *testing.T, u, series string) uint64 {
	t.Helper()
	for _, m := range scrape(t, u)["http_server_request_duration_seconds"].GetMetric() {
		ls := labels(m)
		if ls["http_request_method"]+" "+ls["http_route"]+" "+ls["http_response_status_code"] == series {
			return m.GetHistogram().GetSampleCount()
		}
	}
	return 0
}
