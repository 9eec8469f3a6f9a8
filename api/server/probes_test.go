package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// TestReadyzDoesNotDependOnRedis stops a Redis server of its own (really:
// the process is killed) under a running app: /readyz stays 200 and reports
// "redis": "unavailable", reads keep working, a keyed write is refused with
// 503, and readiness still follows the drain.
func TestReadyzDoesNotDependOnRedis(t *testing.T) {
	rs := startRedis(t)
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.RedisURL = rs.URL() }))
	org := env.NewOrg("Acme")
	readyz := func() (int, server.Readiness) {
		t.Helper()
		resp, err := env.Svc.App.Test(httptest.NewRequest("GET", "/readyz", nil), 10_000)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		var r server.Readiness
		if resp.StatusCode == 200 {
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("readyz body %s: %v", b, err)
			}
		}
		return resp.StatusCode, r
	}
	if code, r := readyz(); code != 200 || r.Redis != "ok" || r.Postgres != "ok" {
		t.Fatalf("with Redis up: %d %+v", code, r)
	}

	rs.Stop()
	if code, r := readyz(); code != 200 || r.Redis != "unavailable" || r.Postgres != "ok" || r.Draining {
		t.Fatalf("with Redis stopped: %d %+v", code, r)
	}
	if r := org.Get("/api/v2/events"); r.Status != 200 {
		t.Fatalf("read with Redis stopped: %d %s", r.Status, r.Body)
	}
	keyed := org.Do("POST", "/api/v2/clients", map[string]any{"name": "Keyed"}, "Idempotency-Key", "k-1")
	if keyed.Status != http.StatusServiceUnavailable {
		t.Fatalf("keyed write with Redis stopped: %d %s", keyed.Status, keyed.Body)
	}

	env.Svc.Drain.Start()
	resp, err := env.Svc.App.Test(httptest.NewRequest("GET", "/readyz", nil), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || !strings.Contains(string(b), `"draining":true`) {
		t.Fatalf("draining: %d %s", resp.StatusCode, b)
	}
	if !resp.Close { // net/http moves Connection: close into resp.Close
		t.Fatalf("draining response without Connection: close: %v", resp.Header)
	}
}
