package edgetest

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/middleware/idempotency"
	"github.com/eventapi/eventapi/platform/config"
)

// TestRedisStoppedMidRun points the app at a redis-server of the test's own,
// kills it mid-run and starts it again on the same port: reads keep working
// (the limiter fails open, counted), keyed writes get 503 and are not
// executed, writes without a key succeed, and everything recovers without
// restarting the app.
func TestRedisStoppedMidRun(t *testing.T) {
	rs := startRedis(t)
	env, _ := newApp(t, apitest.WithConfig(func(c *config.Config) { c.RedisURL = rs.URL() }))
	a := env.NewOrg("A")
	app := env.Svc.App
	keyed := func(key, name string) *reply {
		return viaApp(t, app, "POST", "/api/v2/clients", a.Key, fmt.Sprintf(`{"name":%q}`, name), keyHeader, key)
	}

	if r := keyed("before-outage", "Before"); r.Status != http.StatusCreated {
		t.Fatalf("healthy keyed write: %d %s", r.Status, r.Body)
	}
	if r := a.Get("/api/v2/health"); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "998" {
		t.Fatalf("healthy read: %d remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}

	rs.Stop()
	failOpens := env.Svc.FailOpens.Load()
	clientsBefore := count(t, env, "clients", a.ID)
	for i := 0; i < 5; i++ {
		start := time.Now()
		r := a.Get("/api/v2/clients")
		t.Logf("read %d during the outage: %d in %v", i, r.Status, time.Since(start))
		if r.Status != http.StatusOK || r.Header.Get("X-RateLimit-Limit") != "1000" || r.Header.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("read during the outage: %d %s %v", r.Status, r.Body, r.Header)
		}
	}
	if got := env.Svc.FailOpens.Load() - failOpens; got != 5 {
		t.Fatalf("FailOpens grew by %d over 5 reads, want 5", got)
	}
	r := keyed("during-outage", "During")
	if r.Status != http.StatusServiceUnavailable || r.Code() != "service_unavailable" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("keyed write during the outage: %d %s", r.Status, r.Body)
	}
	if n := count(t, env, "clients", a.ID); n != clientsBefore {
		t.Fatalf("the refused keyed write was executed: %d clients, want %d", n, clientsBefore)
	}
	if n := keyRows(t, env, a.ID, "during-outage"); n != 0 {
		t.Fatalf("%d idempotency rows for a refused request", n)
	}
	if r := a.Post("/api/v2/clients", map[string]any{"name": "No key"}); r.Status != http.StatusCreated {
		t.Fatalf("write without a key during the outage: %d %s", r.Status, r.Body)
	}

	rs.Start()
	// go-redis probes a broken pool about once a second; recovery needs no
	// restart of the app. Poll the keyed write until it executes.
	deadline := time.Now().Add(15 * time.Second)
	for {
		r = keyed("during-outage", "During")
		if r.Status == http.StatusCreated || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r.Status != http.StatusCreated || r.Header.Get(idempotency.HeaderReplayed) != "" {
		t.Fatalf("keyed write after Redis returned: %d %s", r.Status, r.Body)
	}
	if again := keyed("during-outage", "During"); again.Status != http.StatusCreated || again.Header.Get(idempotency.HeaderReplayed) != "true" {
		t.Fatalf("replay after recovery: %d %s", again.Status, again.Body)
	}
	failOpens = env.Svc.FailOpens.Load()
	h := a.Get("/api/v2/health")
	if h.Status != 200 || env.Svc.FailOpens.Load() != failOpens {
		t.Fatalf("after recovery the limiter still fails open: %d", h.Status)
	}
	// The restarted Redis started empty, and the window with it: it holds
	// at least the keyed write, its replay and this read.
	if rem, err := strconv.Atoi(h.Header.Get("X-RateLimit-Remaining")); err != nil || rem > 997 {
		t.Fatalf("X-RateLimit-Remaining %q after recovery, want at most 997", h.Header.Get("X-RateLimit-Remaining"))
	}
}
