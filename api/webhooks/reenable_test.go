package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/config"
)

// TestReenableDuringAnAttempt: an endpoint is disabled and enabled again
// while an attempt claimed before is held at the receiver, which then
// answers 503. The re-enable clears failing_since and gives the pending
// deliveries a fresh window, but left the one in flight to its attempt,
// whose failure was then counted against the endpoint's new run: it set
// failing_since to the attempt's start, before the re-enable, and, the
// delivery's window (4 days old) being over, failed the delivery and
// disabled the endpoint again right after the re-enable. Such a failure is
// now the delivery's attempt only, and the delivery gets the fresh window.
func TestReenableDuringAnAttempt(t *testing.T) {
	for _, tc := range []struct {
		name string
		// firstFailure is how long ago the delivery's window began.
		firstFailure string
	}{
		{"its window over", "4 days"},
		{"its window open", "1 hour"},
	} {
		t.Run(tc.name, func(t *testing.T) { reenableDuringAnAttempt(t, tc.firstFailure) })
	}
}

func reenableDuringAnAttempt(t *testing.T, firstFailure string) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ctx := context.Background()
	db := env.Svc.DB
	arrived, answer := make(chan struct{}, 4), make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		select { // one answer; a later attempt waits for its sender to go
		case <-answer:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close) // after the worker stops, which ends a held request
	res := a.Post(endpoints, map[string]any{"url": srv.URL + "/hook", "enabled_events": []string{"client.created"}})
	if res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	ep := res.Data()["id"].(string)
	createClient(t, a, "in flight across a re-enable")
	fanOutOne(t, db)
	// One failed attempt so far, the window starting firstFailure ago.
	if _, err := db.NewRaw(`UPDATE webhook_deliveries SET attempt_count = 1, window_attempts = 1, first_failed_at = clock_timestamp() - ?::interval
		WHERE organization_id = ? AND endpoint_id = ?`, firstFailure, a.ID, ep).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	startWorker(t, env, nil, func(w *config.Webhook) { w.Lease = time.Minute })
	select {
	case <-arrived:
	case <-time.After(60 * time.Second):
		t.Fatal("the attempt never reached the receiver")
	}
	for _, status := range []string{"disabled", "enabled"} {
		if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": status}); r.Status != 200 || r.Data()["status"] != status {
			t.Fatalf("PATCH status %s: %d %s", status, r.Status, r.Body)
		}
	}
	answer <- struct{}{}
	type state struct {
		Attempts     int    `bun:"attempt_count"`
		Window       int    `bun:"window_attempts"`
		Status       string `bun:"status"`
		FreshWindow  bool   `bun:"fresh_window"`
		Endpoint     string `bun:"endpoint_status"`
		NotFailing   bool   `bun:"not_failing"`
		AfterEnabled bool   `bun:"after_enabled"`
	}
	var s state
	waitFor(t, "the attempt recorded", func() bool {
		err := db.NewRaw(`SELECT d.attempt_count, d.window_attempts, d.status, d.first_failed_at IS NULL AS fresh_window,
				e.status AS endpoint_status, e.failing_since IS NULL AS not_failing,
				d.next_attempt_at IS NULL OR d.next_attempt_at >= e.enabled_at AS after_enabled
			FROM webhook_deliveries d JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
			WHERE d.organization_id = ? AND d.endpoint_id = ?`, a.ID, ep).Scan(ctx, &s)
		if err != nil {
			t.Fatal(err)
		}
		return s.Attempts == 2
	})
	if s.Endpoint != "enabled" || !s.NotFailing {
		t.Errorf("endpoint after the re-enable and the failure of an attempt claimed before it: %s, failing_since set %v; want enabled, not failing",
			s.Endpoint, !s.NotFailing)
	}
	if s.Status != "pending" || !s.FreshWindow || s.Window != 0 || !s.AfterEnabled {
		t.Errorf("delivery after that failure: %+v; want pending with a fresh window, as the re-enable gave the others", s)
	}
}
