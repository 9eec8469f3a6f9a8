package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// upGauge is the value of a dependency's gauge (eventapi_edge_store_up,
// eventapi_database_up) in a scrape of u, which must hold it once and with
// no label naming org or any organization.
func upGauge(t *testing.T, u, name string, org *apitest.Org) float64 {
	t.Helper()
	ms := scrape(t, u)[name].GetMetric()
	if len(ms) != 1 {
		t.Fatalf("%s has %d series, want 1", name, len(ms))
	}
	for _, l := range ms[0].GetLabel() {
		if strings.Contains(l.GetValue(), org.ID.String()) || strings.Contains(l.GetName(), "organization") {
			t.Errorf("%s carries an organization in label %s=%s", name, l.GetName(), l.GetValue())
		}
	}
	return ms[0].GetGauge().GetValue()
}

// edgeStoreUp is the eventapi_edge_store_up samples of a scrape.
func edgeStoreUp(fams map[string]*dto.MetricFamily) []*dto.Metric {
	return fams["eventapi_edge_store_up"].GetMetric()
}

// TestEdgeStoreUpIsMetered: a pod whose Redis (a redis-server of the
// test's own) answers exports eventapi_edge_store_up 1; once that Redis is
// killed, 0, with no request meanwhile (the fail-open counters need
// traffic; docs/observability.md, EventapiRedisUnavailable). The series
// carries no organization. Once the service is closed its series is gone
// (Close unregisters the check), and a pod without Redis exports none.
func TestEdgeStoreUpIsMetered(t *testing.T) {
	u := metricsEndpoint(t)
	t.Run("up, then Redis killed", func(t *testing.T) {
		rs := startRedis(t)
		env := apitest.New(t, func(c *config.Config, o *server.Options) { o.Metrics = true; c.RedisURL = rs.URL() })
		org := env.NewOrg("Pinged")
		if res := org.Get("/api/v2/clients"); res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		gauge := func() float64 { return upGauge(t, u, "eventapi_edge_store_up", org) }
		// The first check runs as the service opens, beside it: waited for.
		waitFor(t, "the first check", func() bool { return len(edgeStoreUp(scrape(t, u))) == 1 })
		if got := gauge(); got != 1 {
			t.Fatalf("with Redis up: eventapi_edge_store_up = %v, want 1", got)
		}
		rs.Stop()
		// Waited for, not read once: the test claims that the check fails
		// after the kill, not how soon.
		waitFor(t, "eventapi_edge_store_up 0 with Redis killed", func() bool { return gauge() == 0 })
	})
	if ms := edgeStoreUp(scrape(t, u)); len(ms) != 0 {
		t.Errorf("a closed service still exports eventapi_edge_store_up: %v", ms)
	}
	t.Run("no Redis", func(t *testing.T) {
		env := apitest.New(t, func(c *config.Config, o *server.Options) { o.Metrics = true; c.RedisURL = "" })
		if res := env.NewOrg("Local").Get("/api/v2/clients"); res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		if ms := edgeStoreUp(scrape(t, u)); len(ms) != 0 {
			t.Errorf("a service without Redis exports eventapi_edge_store_up: %v", ms)
		}
	})
}

// TestEdgeStoreCheckNeverHoldsUpMetrics: the gauge's check runs beside the
// collection, never in it. A check that does not return (here, one that
// ignores its deadline) leaves /metrics answering, without the gauge, and
// stopping it waits only for that check. The check ran in the collection's
// callback at first, under the SDK's lock: a Redis Cluster client that
// registered instruments during a check waited for that lock, and the
// pod's /metrics, and its stop, hung for good.
func TestEdgeStoreCheckNeverHoldsUpMetrics(t *testing.T) {
	u := metricsEndpoint(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	stop := server.MeterEdgeStore(func(context.Context) error {
		select {
		case started <- struct{}{}:
		default:
		}
		<-release
		return nil
	})
	<-started
	answered := make(chan map[string]*dto.MetricFamily, 1)
	go func() { answered <- scrape(t, u) }()
	select {
	case fams := <-answered:
		if ms := edgeStoreUp(fams); len(ms) != 0 {
			t.Errorf("a gauge before any check ended: %v", ms)
		}
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("/metrics did not answer while the check ran")
	}
	close(release)
	stop()
}
