package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
)

// windowBase is the first step of the schedule in TestFreshWindowRestartsBackoff:
// long beside the test's own delays, short beside the steps after it.
const windowBase = 10 * time.Second

// TestFreshWindowRestartsBackoff: a delivery that has failed 30 times is
// given a fresh retry window, by a retry on request or by a re-enable of
// its endpoint, and fails again. Its next wait follows the first step of
// the schedule (at most windowBase), as the failure is the first of the
// new window, and attempt_count stays the lifetime count. The backoff
// followed attempt_count: the wait after the 31st failure was drawn up to
// the schedule's cap (12 h here), so a delivery retried by hand after many
// failures was, after one more, put off for hours.
func TestFreshWindowRestartsBackoff(t *testing.T) {
	for _, tc := range []struct {
		name string
		// disabled: the endpoint is disabled and the delivery pending,
		// waiting for it (else the endpoint is enabled and the delivery
		// failed).
		disabled bool
		// fresh opens the delivery's fresh window.
		fresh func(t *testing.T, a *apitest.Org, ep, delivery string)
	}{
		{"retried on request", false, func(t *testing.T, a *apitest.Org, ep, delivery string) {
			if r := a.Post(endpoints+"/"+ep+"/deliveries/"+delivery+"/retry", nil); r.Status != http.StatusOK {
				t.Fatalf("retry: %d %s", r.Status, r.Body)
			}
		}},
		{"endpoint re-enabled", true, func(t *testing.T, a *apitest.Org, ep, _ string) {
			if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "enabled"}); r.Status != http.StatusOK {
				t.Fatalf("re-enable: %d %s", r.Status, r.Body)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { freshWindow(t, tc.disabled, tc.fresh) })
	}
}

func freshWindow(t *testing.T, disabled bool, fresh func(t *testing.T, a *apitest.Org, ep, delivery string)) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ctx := context.Background()
	db := env.Svc.DB
	arrived, answer := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-answer
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close) // after the worker stops
	res := a.Post(endpoints, map[string]any{"url": srv.URL + "/hook", "enabled_events": []string{"client.created"}})
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	ep := res.Data()["id"].(string)
	createClient(t, a, "failed thirty times")
	fanOutOne(t, db)
	// Thirty failed attempts so far, in a window opened four days ago.
	status := "failed"
	if disabled {
		status = "pending"
		if r := a.Patch(endpoints+"/"+ep, map[string]any{"status": "disabled"}); r.Status != http.StatusOK {
			t.Fatalf("disable: %d %s", r.Status, r.Body)
		}
	}
	if _, err := db.NewRaw(`UPDATE webhook_deliveries SET status = ?, attempt_count = 30, window_attempts = 30,
			first_failed_at = clock_timestamp() - interval '4 days',
			next_attempt_at = CASE WHEN ? = 'pending' THEN clock_timestamp() - interval '1 day' END
		WHERE organization_id = ? AND endpoint_id = ?`, status, status, a.ID, ep).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	fresh(t, a, ep, deliveries(t, a, ep)[0]["id"].(string))

	w := startWorker(t, env, nil, func(c *config.Webhook) { c.BackoffBase, c.BackoffMax = windowBase, 12*time.Hour })
	select {
	case <-arrived:
	case <-time.After(60 * time.Second):
		t.Fatal("the attempt never reached the receiver")
	}
	// No claim after this one: the state its failure leaves is read before
	// the next attempt moves it.
	w.Quiesce()
	close(answer)
	var s struct {
		Status  string  `bun:"status"`
		Total   int     `bun:"attempt_count"`
		Window  int     `bun:"window_attempts"`
		Leased  bool    `bun:"leased"`
		WaitSec float64 `bun:"wait"`
	}
	waitFor(t, "the failed attempt recorded", func() bool {
		// next_attempt_at and updated_at are set by one statement, so the
		// difference is the wait the worker drew.
		if err := db.NewRaw(`SELECT status, attempt_count, window_attempts, lease_owner IS NOT NULL AS leased,
				coalesce(extract(epoch FROM next_attempt_at - updated_at), -1) AS wait
			FROM webhook_deliveries WHERE organization_id = ? AND endpoint_id = ?`, a.ID, ep).Scan(ctx, &s); err != nil {
			t.Fatal(err)
		}
		return s.Total == 31 && !s.Leased
	})
	if s.Status != "pending" || s.Window != 1 {
		t.Errorf("after a failure in the fresh window: %s with %d failures in the window, want pending with 1", s.Status, s.Window)
	}
	if s.WaitSec < 0 || s.WaitSec > windowBase.Seconds() {
		t.Errorf("wait after the first failure of a fresh window: %.1f s, want the schedule's first step, at most %v", s.WaitSec, windowBase)
	}
	if n := deliveries(t, a, ep)[0]["attempt_count"]; n != float64(31) {
		t.Errorf("attempt_count %v, want the lifetime count 31", n)
	}
}
