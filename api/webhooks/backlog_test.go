package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

// TestReenableFreshWindowBeyondTheBatch: an endpoint is re-enabled with
// more pending deliveries than the PATCH rewrites itself
// (store.FreshWindowBatch), and the one it leaves as it was had failed 30
// times in a window opened four days ago and was put off for a day. It is
// due at once all the same, and its window is fresh: its next failure
// leaves it pending, in a window opened after the re-enable, and the
// endpoint enabled (with its old window, the failure gave it up at once).
// The worker claims it first: a delivery the re-enable made due counts as
// due since the re-enable.
func TestReenableFreshWindowBeyondTheBatch(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ctx := context.Background()
	db := env.Svc.DB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close) // after the worker stops
	res := a.Post(endpoints, map[string]any{"url": srv.URL + "/hook", "enabled_events": []string{"client.created"}})
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	ep := res.Data()["id"].(string)
	createClient(t, a, "left stale by the re-enable")
	fanOutOne(t, db)
	tracked := deliveries(t, a, ep)[0]["id"].(string)
	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "disabled"}); r.Status != http.StatusOK {
		t.Fatalf("disable: %d %s", r.Status, r.Body)
	}
	// FreshWindowBatch more, copies of the change, put off for two days:
	// the re-enable rewrites those (latest first) and leaves the tracked one.
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(sql, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
		SELECT c.organization_id, c.position, c.type, c.object_type, c.object_id, c.data
		FROM changes c CROSS JOIN generate_series(1, ?) WHERE c.organization_id = ? AND c.type = 'client.created'`,
		store.FreshWindowBatch, a.ID)
	exec(`INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at,
			first_failed_at, window_attempts, attempt_count)
		SELECT c.organization_id, ?, c.id, c.seq, c.type, clock_timestamp() + interval '2 days',
			clock_timestamp() - interval '4 days', 30, 30
		FROM changes c WHERE c.organization_id = ? AND c.type = 'client.created'
		ON CONFLICT (endpoint_id, change_seq) DO NOTHING`, ep, a.ID)
	exec(`UPDATE webhook_deliveries SET attempt_count = 30, window_attempts = 30,
			first_failed_at = clock_timestamp() - interval '4 days', next_attempt_at = clock_timestamp() + interval '1 day'
		WHERE organization_id = ? AND id = ?`, a.ID, tracked)

	if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"}); r.Status != http.StatusOK || r.Data()["status"] != "enabled" {
		t.Fatalf("re-enable: %d %s", r.Status, r.Body)
	}
	var untouched bool
	if err := db.NewRaw(`SELECT first_failed_at < clock_timestamp() - interval '1 day' FROM webhook_deliveries
		WHERE organization_id = ? AND id = ?`, a.ID, tracked).Scan(ctx, &untouched); err != nil {
		t.Fatal(err)
	}
	if !untouched {
		t.Fatal("the re-enable rewrote the tracked delivery: the test no longer reaches the fresh window the claim gives")
	}

	w := startWorker(t, env, nil, func(c *config.Webhook) { c.BackoffBase, c.BackoffMax = windowBase, 12*time.Hour })
	var s struct {
		Attempts int    `bun:"attempt_count"`
		Status   string `bun:"status"`
		Fresh    bool   `bun:"fresh"`
		Leased   bool   `bun:"leased"`
		Endpoint string `bun:"endpoint"`
	}
	waitFor(t, "the tracked delivery's attempt recorded", func() bool {
		if err := db.NewRaw(`SELECT d.attempt_count, d.status, coalesce(d.first_failed_at >= e.enabled_at, false) AS fresh,
				d.lease_owner IS NOT NULL AS leased, e.status AS endpoint
			FROM webhook_deliveries d JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
			WHERE d.organization_id = ? AND d.id = ?`, a.ID, tracked).Scan(ctx, &s); err != nil {
			t.Fatal(err)
		}
		return s.Attempts > 30 && !s.Leased
	})
	w.Quiesce()
	if s.Status != "pending" || !s.Fresh {
		t.Errorf("the delivery after its first failure since the re-enable: %s, window opened after the re-enable %v; want pending in a fresh window",
			s.Status, s.Fresh)
	}
	if s.Endpoint != "enabled" {
		t.Errorf("endpoint %s after that failure, want enabled", s.Endpoint)
	}
}

// TestDeleteEndpointWithABacklog: an endpoint with 2,000 deliveries due is
// deleted through the API (the DELETE cascaded to all of them in one
// statement). It answers 204, the endpoint and its deliveries answer 404,
// no worker claims them, and the retention's purge deletes them.
func TestDeleteEndpointWithABacklog(t *testing.T) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ctx := context.Background()
	db := env.Svc.DB
	rcv := newReceiver(t)
	ep := register(t, a, rcv, "client.created")
	createClient(t, a, "deleted with its endpoint")
	fanOutOne(t, db)
	d := deliveries(t, a, ep)[0]["id"].(string)
	const n = 2000
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(sql, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO changes (organization_id, position, type, object_type, object_id, data)
		SELECT c.organization_id, c.position, c.type, c.object_type, c.object_id, c.data
		FROM changes c CROSS JOIN generate_series(1, ?) WHERE c.organization_id = ? AND c.type = 'client.created'`, n, a.ID)
	exec(`INSERT INTO webhook_deliveries (organization_id, endpoint_id, change_id, change_seq, type, next_attempt_at)
		SELECT c.organization_id, ?, c.id, c.seq, c.type, clock_timestamp()
		FROM changes c WHERE c.organization_id = ? AND c.type = 'client.created'
		ON CONFLICT (endpoint_id, change_seq) DO NOTHING`, ep, a.ID)
	if r := a.Delete(endpoints + "/" + ep); r.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	for _, r := range []struct {
		what string
		code int
	}{
		{"GET", a.Get(endpoints + "/" + ep).Status},
		{"deliveries", a.Get(endpoints + "/" + ep + "/deliveries").Status},
		{"retry", a.Post(endpoints+"/"+ep+"/deliveries/"+d+"/retry", nil).Status},
	} {
		if r.code != http.StatusNotFound {
			t.Errorf("%s after the DELETE: %d, want 404", r.what, r.code)
		}
	}
	claims, err := store.ClaimDue(ctx, db, 10*n, 10*n, time.Minute, store.Shares{})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) != 0 {
		t.Errorf("claimed %d deliveries of the deleted endpoint", len(claims))
	}
	purged, err := store.PurgeDeletedEndpoints(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if purged != n+1 {
		t.Errorf("purged %d, want the endpoint's %d", purged, n+1)
	}
	var left int
	if err := db.NewRaw(`SELECT count(*) FROM webhook_deliveries WHERE organization_id = ?`, a.ID).Scan(ctx, &left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d deliveries left after the purge", left)
	}
}
