package server_test

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// TestRetentionRunsAreMetered: the retention pass and the request log's
// partition maintenance a service runs at start count a completed run of
// each of their jobs in
// eventapi_retention_runs_total, and every job's series is on /metrics from
// the start, at 0 for the outcomes it has not had.
func TestRetentionRunsAreMetered(t *testing.T) {
	u := metricsEndpoint(t)
	before := scrape(t, u)
	apitest.New(t, func(c *config.Config, o *server.Options) { o.Metrics = true })
	hourly := []string{telemetry.RetentionChangeFeed, telemetry.RetentionWebhookSecrets, telemetry.RetentionDeletedEndpoints,
		telemetry.RetentionRequestLog}
	deadline := time.Now().Add(time.Minute)
	for {
		fams := scrape(t, u)
		done := 0
		for _, job := range hourly {
			if counter(fams, "eventapi_retention_runs_total", map[string]string{"retention_job": job, "outcome": "ok"}) >
				counter(before, "eventapi_retention_runs_total", map[string]string{"retention_job": job, "outcome": "ok"}) {
				done++
			}
		}
		if done == len(hourly) {
			for _, job := range telemetry.RetentionJobs {
				for _, outcome := range []string{"ok", "failed", "skipped"} {
					if !hasSeries(fams, "eventapi_retention_runs_total", map[string]string{"retention_job": job, "outcome": outcome}) {
						t.Errorf("no series of %s %s", job, outcome)
					}
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the %d retention jobs run at start counted a completed run within a minute", done, len(hourly))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasSeries reports whether the family name has a series with the labels
// want.
func hasSeries(fams map[string]*dto.MetricFamily, name string, want map[string]string) bool {
	for _, m := range fams[name].GetMetric() {
		ls, ok := labels(m), true
		for k, v := range want {
			ok = ok && ls[k] == v
		}
		if ok {
			return true
		}
	}
	return false
}
