package server_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// TestWebhookDeliveriesAreMetered: a delivery to a real receiver that
// answers 204, and one to a receiver that answers 500, are counted by
// outcome in /metrics, with the attempt duration and the delivery lag as
// histograms and no organization or endpoint in any label.
func TestWebhookDeliveriesAreMetered(t *testing.T) {
	fams, org := meteredDeliveries(t)
	for _, name := range []string{"eventapi_webhook_attempt_duration_seconds", "eventapi_webhook_delivery_lag_seconds"} {
		if fams[name] == nil || len(fams[name].GetMetric()) == 0 {
			t.Errorf("no %s histogram", name)
		}
	}
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			for k, v := range labels(m) {
				if v == org.ID.String() || k == "endpoint" || k == "url" {
					t.Errorf("%s carries %s=%s", name, k, v)
				}
			}
		}
	}
}

// TestDeliveryLagSaysWhatItWaitedOn: deliveries to an endpoint that takes
// them at once are counted in the lag histogram as wait="service"; to an
// endpoint that refuses for a while, both the delivery it refused and the
// one of a change written meanwhile, sent only after it came back, as
// wait="receiver", the series EventapiWebhookDeliveryLagging leaves out.
func TestDeliveryLagSaysWhatItWaitedOn(t *testing.T) {
	u := metricsEndpoint(t)
	env := meteredWebhookEnv(t, func(w *config.Webhook) { w.BackoffBase = 20 * time.Millisecond; w.EndpointConcurrency = 1 })
	prompt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(prompt.Close)
	refused := make(chan struct{}, 1)
	var isBack atomic.Bool
	troubled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !isBack.Load() {
			select {
			case refused <- struct{}{}:
			default:
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(troubled.Close)
	org := env.NewOrg("Lagged")
	for _, url := range []string{prompt.URL, troubled.URL} {
		if res := org.Post("/api/v2/webhook_endpoints", map[string]any{"url": url, "enabled_events": []string{"client.created"}}); res.Status != 201 {
			t.Fatalf("create endpoint: %d %s", res.Status, res.Body)
		}
	}
	lagged := func(fams map[string]*dto.MetricFamily, wait string) uint64 {
		var n uint64
		for _, m := range fams["eventapi_webhook_delivery_lag_seconds"].GetMetric() {
			if labels(m)["wait"] == wait {
				n += m.GetHistogram().GetSampleCount()
			}
		}
		return n
	}
	before := scrape(t, u)
	for i, name := range []string{"Written before the outage", "Written during it"} {
		if res := org.Post("/api/v2/clients", map[string]any{"name": name}); res.Status != 201 {
			t.Fatalf("create client: %d %s", res.Status, res.Body)
		}
		if i == 0 {
			<-refused // the endpoint fails: its run of failures has begun
		}
	}
	isBack.Store(true)
	deadline := time.Now().Add(30 * time.Second)
	for {
		fams := scrape(t, u)
		service := lagged(fams, "service") - lagged(before, "service")
		receiver := lagged(fams, "receiver") - lagged(before, "receiver")
		if service == 2 && receiver == 2 {
			return
		}
		if service > 2 || receiver > 2 || time.Now().After(deadline) {
			t.Fatalf("lag counted for wait=service %d, wait=receiver %d; want 2 each", service, receiver)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// meteredDeliveries creates a client in an organization with two webhook
// endpoints, real receivers of which one answers 204 and one 500, and
// returns the first scrape of /metrics that counts both attempts: by then
// the process has served requests, used its pools and delivered, so every
// series the service exports is in it.
func meteredDeliveries(t *testing.T) (map[string]*dto.MetricFamily, *apitest.Org) {
	t.Helper()
	u := metricsEndpoint(t)
	// A failure is retried after the test.
	env := meteredWebhookEnv(t, func(w *config.Webhook) { w.BackoffBase = time.Hour })
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(ok.Close)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	t.Cleanup(broken.Close)
	org := env.NewOrg("Hooked")
	for _, url := range []string{ok.URL, broken.URL} {
		if res := org.Post("/api/v2/webhook_endpoints", map[string]any{"url": url, "enabled_events": []string{"client.created"}}); res.Status != 201 {
			t.Fatalf("create endpoint: %d %s", res.Status, res.Body)
		}
	}
	before := scrape(t, u)
	successes := counter(before, "eventapi_webhook_attempts_total", map[string]string{"outcome": "success"})
	failures := counter(before, "eventapi_webhook_attempts_total", map[string]string{"outcome": "failure"})
	if res := org.Post("/api/v2/clients", map[string]any{"name": "Metered"}); res.Status != 201 {
		t.Fatalf("create client: %d %s", res.Status, res.Body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		fams := scrape(t, u)
		s := counter(fams, "eventapi_webhook_attempts_total", map[string]string{"outcome": "success"})
		f := counter(fams, "eventapi_webhook_attempts_total", map[string]string{"outcome": "failure"})
		if s == successes+1 && f == failures+1 {
			return fams, org
		}
		if time.Now().After(deadline) {
			t.Fatalf("attempts counted: success %v (want %v), failure %v (want %v)", s, successes+1, f, failures+1)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDueDeliveriesAreMetered: with one delivery to an endpoint in flight
// (its receiver holds the request) and the endpoint's concurrency cap at 1,
// the next change's delivery is due and waits: /metrics counts it in
// eventapi_webhook_deliveries_due, and counts none once the receiver lets
// go and both are delivered.
func TestDueDeliveriesAreMetered(t *testing.T) {
	u := metricsEndpoint(t)
	env := meteredWebhookEnv(t, func(w *config.Webhook) { w.EndpointConcurrency = 1 })
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	released := false
	t.Cleanup(func() {
		if !released {
			close(release)
		}
	})
	org := env.NewOrg("Backlogged")
	if res := org.Post("/api/v2/webhook_endpoints", map[string]any{"url": receiver.URL, "enabled_events": []string{"client.created"}}); res.Status != 201 {
		t.Fatalf("create endpoint: %d %s", res.Status, res.Body)
	}
	if res := org.Post("/api/v2/clients", map[string]any{"name": "First"}); res.Status != 201 {
		t.Fatalf("create client: %d %s", res.Status, res.Body)
	}
	<-arrived // the first delivery is in flight and holds the endpoint's one slot
	if res := org.Post("/api/v2/clients", map[string]any{"name": "Second"}); res.Status != 201 {
		t.Fatalf("create client: %d %s", res.Status, res.Body)
	}
	waitForDue := func(want float64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			fams := scrape(t, u)
			var got float64 = -1
			if f := fams["eventapi_webhook_deliveries_due"]; f != nil && len(f.GetMetric()) == 1 {
				got = f.GetMetric()[0].GetGauge().GetValue()
			}
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("eventapi_webhook_deliveries_due = %v, want %v", got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitForDue(1)
	close(release)
	released = true
	waitForDue(0)
}

// meteredWebhookEnv starts the app with /metrics on and the webhook workers
// polling every 20 ms, private receivers allowed, tuned by tune.
func meteredWebhookEnv(t *testing.T, tune func(*config.Webhook)) *apitest.Env {
	t.Helper()
	return apitest.New(t, func(c *config.Config, o *server.Options) {
		o.Metrics = true
		c.Webhook.AllowPrivate = true
		c.Webhook.PollInterval = 20 * time.Millisecond
		tune(&c.Webhook)
	})
}
