package webhooks_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/webhooks/delivery"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// slowQuery delays the worker's statements that hold marker: before they
// run, or after they return (for the claim's UPDATE: its COMMIT then comes
// late). It stands for a loaded database, a pool wait or a slow network
// between the claim and the request (a database that is slow for one
// statement cannot be had for real on demand; the rest of the test is
// real: two workers, one queue, an HTTP receiver). hits counts the delays,
// so a marker the queries no longer hold fails the test instead of
// slowing nothing.
type slowQuery struct {
	marker string
	after  bool
	d      time.Duration
	hits   *atomic.Int32
}

func (h slowQuery) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if !h.after && strings.Contains(e.Query, h.marker) {
		h.hits.Add(1)
		time.Sleep(h.d)
	}
	return ctx
}

func (h slowQuery) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if h.after && strings.Contains(e.Query, h.marker) {
		h.hits.Add(1)
		time.Sleep(h.d)
	}
}

// TestAttemptNeverOutlivesItsLease: worker A spends much of its lease
// before sending (loading the message, or waiting for its claim's COMMIT),
// so its request must end when the lease does, not a full timeout later.
// Otherwise worker B claims the delivery when the lease ends and the
// receiver has one change in flight twice at once. The receiver holds
// every request open until the sender gives up; each case ends when the
// second attempt arrives, by which time an overlap would have been counted.
func TestAttemptNeverOutlivesItsLease(t *testing.T) {
	for _, tc := range []struct {
		name string
		slow slowQuery
	}{
		// With the lease of attemptWithin (10 s, less the 1 s margin) and
		// its timeout (8 s), each slowing leaves the attempt less than its
		// timeout, so the lease bounds it, and still 4–5 s to be sent in,
		// which a loaded machine's delays do not use up (with 0.5 s left,
		// the attempt was never sent there).
		{"slow message load", slowQuery{marker: "the webhook worker's message", d: 5 * time.Second}},
		// The lease is counted from the database's clock in the claim's
		// UPDATE; a worker that counted from the COMMIT's return sent its
		// request 4 s too long.
		{"slow claim commit", slowQuery{marker: "the webhook workers' claim, leasing", after: true, d: 4 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.slow.hits = new(atomic.Int32)
			attemptWithin(t, tc.slow)
			if tc.slow.hits.Load() == 0 {
				t.Fatalf("no query held %q: the test slowed nothing", tc.slow.marker)
			}
		})
	}
}

// attemptWithin runs TestAttemptNeverOutlivesItsLease's case with worker A
// slowed by slow.
func attemptWithin(t *testing.T, slow slowQuery) {
	env := newEnv(t, func(w *config.Webhook) { w.Workers = 0 })
	a := env.NewOrg("A")
	ctx := context.Background()

	var mu sync.Mutex
	inFlight, most := map[string]int{}, 0
	arrived := make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("webhook-id")
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight[id]++
		most = max(most, inFlight[id])
		mu.Unlock()
		arrived <- struct{}{}
		select { // answer only when the sender hangs up (or much later)
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		mu.Lock()
		inFlight[id]--
		mu.Unlock()
	}))
	defer srv.Close()
	if res := a.Post(endpoints, map[string]any{"url": srv.URL + "/hook", "enabled_events": []string{"client.created"}}); res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}

	sealer := sealerOf(t, env)
	slowDB, err := database.Open(ctx, env.Cfg.DatabaseURL, database.Options{MaxOpenConns: 4, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	defer slowDB.Close()
	slowDB = slowDB.WithQueryHook(slow)

	cfg := env.Cfg.Webhook
	cfg.Workers, cfg.Timeout, cfg.Lease = 1, 8*time.Second, 10*time.Second // lease > timeout, as config requires
	cfg.PollInterval, cfg.EndpointConcurrency = 20*time.Millisecond, 4
	log := slog.New(slog.DiscardHandler)
	podA := delivery.Start(slowDB, sealer, log, cfg)
	defer podA.Stop()

	createClient(t, a, "hooked")
	wait := func(what string) {
		t.Helper()
		select {
		case <-arrived:
		case <-time.After(60 * time.Second):
			t.Fatalf("the %s attempt never arrived", what)
		}
	}
	wait("first")
	podB := delivery.Start(env.Svc.DB, sealer, log, cfg) // a healthy pod joins while A's attempt is out
	defer podB.Stop()
	wait("second")
	mu.Lock()
	defer mu.Unlock()
	if most > 1 {
		t.Fatalf("one change was in flight %d times at once to one endpoint: an attempt outlived its lease and another worker claimed the delivery", most)
	}
}
