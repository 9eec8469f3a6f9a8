package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/dialect/pgdialect"

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

// TestReadyzIgnoresASaturatedPool takes every connection of the app's pool:
// PostgreSQL still answers, so /readyz must stay 200 instead of waiting for
// a pool connection and failing a busy pod.
func TestReadyzIgnoresASaturatedPool(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.DBMaxConns = 2 }))
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		conn, err := env.Svc.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	if n := env.Svc.DB.DB.Stats().InUse; n != 2 {
		t.Fatalf("%d pool connections in use, want all 2", n)
	}
	resp, err := env.Svc.App.Test(httptest.NewRequest("GET", "/readyz", nil), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("readyz with a saturated pool: %d %s", resp.StatusCode, b)
	}
}

// TestReadyzSurvivesATerminatedConnection: the probe pool's connection,
// used by a /readyz a moment before, is terminated by the server
// (pg_terminate_backend, as an administrator or a PgBouncer restart does):
// the next /readyz answers 200, since PostgreSQL is up. It answered 503
// once, for a connection the pool did not check again within a second.
func TestReadyzSurvivesATerminatedConnection(t *testing.T) {
	env := apitest.New(t)
	ctx := context.Background()
	readyz := func() int {
		t.Helper()
		resp, err := env.Svc.App.Test(httptest.NewRequest("GET", "/readyz", nil), 10_000)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	if code := readyz(); code != 200 {
		t.Fatalf("readyz before: %d", code)
	}
	var pids []int64
	if err := env.Svc.DB.NewRaw(`SELECT coalesce(array_agg(pid), '{}') FROM (SELECT pid, pg_terminate_backend(pid)
		FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) t`).Scan(ctx, pgdialect.Array(&pids)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) { // until they are gone
		var left int
		if err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(?)`, pgdialect.Array(pids)).Scan(ctx, &left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d terminated backends still there", left)
		}
	}
	if code := readyz(); code != 200 {
		t.Fatalf("readyz after the probe's connection was terminated: %d, want 200 (PostgreSQL is up)", code)
	}
}
